// Each box's data-saves: the bytes its backward keeps (data.saves: {box id: bytes}, explorer/program/page_data.py's
// saves, tape.saved's), on every drawing, not only while the Memory tab's timeline pushes them (graph_view.js's
// paintMemory, which sets the same numbers). The server sends them with a full run only (a fragment's reruns send
// numbers): they are kept here by program (data.key), for the drawings of other parts or directions laid out later.

const KNOWN = new Map(); // program key -> saves, the latest few
const KEEP = 8;

export function markSaves(drawing, saves, key) {
  if (saves) {
    KNOWN.delete(key);
    KNOWN.set(key, saves);
    while (KNOWN.size > KEEP) KNOWN.delete(KNOWN.keys().next().value);
  } else {
    saves = KNOWN.get(key);
  }
  if (!saves) return;
  for (const [id, box] of drawing.boxes) {
    if (id in saves && box.g.dataset.saves !== String(saves[id])) box.g.dataset.saves = String(saves[id]);
  }
}
