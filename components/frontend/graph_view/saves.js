// Each box's data-saves: the bytes its backward keeps (data.saves: {box id: bytes}, explorer/program/page_data.py's
// saves, tape.saved's), on every drawing, not only while the Memory tab's timeline pushes them (graph_view.js's
// paintMemory, which sets the same numbers). The server sends them with a full run only (a fragment's reruns send
// numbers): keepSaves carries the last ones over to data of the same program that has none.

export function keepSaves(data, previous) {
  if (data.saves || !previous || !previous.saves || previous.key !== data.key) return data;
  return { ...data, saves: previous.saves };
}

export function markSaves(drawing, saves) {
  if (!saves) return;
  for (const [id, box] of drawing.boxes) {
    if (id in saves && box.g.dataset.saves !== String(saves[id])) box.g.dataset.saves = String(saves[id]);
  }
}
