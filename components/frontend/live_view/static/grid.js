// The live view's grid (an ES module, no DOM; tested in Node): the panels' sizes for the view's width.

/**
 * Three columns when at least 960 px wide (boundary, network, side panels stacked; the boundary's square no
 * taller than `free`, the window's height left under the tiles), two from 600 px (the side panels in a row
 * under them, sharing it equally), one below. `stacked`: how many side panels there are.
 * Returns {columns (CSS grid-template-columns), sideColumn, sideRow, size: {boundary, network, loss, accuracy,
 * side: [width, height] in px (height: at most, for the boundary)}}.
 */
export function gridSizes(width, free, stacked) {
  const gap = 12;
  let side, square, netW, netH, columns;
  if (width >= 960) {
    side = Math.max(250, Math.min(330, width * 0.26));
    square = Math.min(480, free, (width - side - 2 * gap) / 2.1);
    netW = width - side - square - 2 * gap;
    netH = square;
    columns = `${square}px ${netW}px ${side}px`;
  } else if (width >= 600) {
    square = Math.min(440, (width - gap) / 2);
    netW = width - square - gap;
    netH = square;
    side = width;
    columns = `${square}px ${netW}px`;
  } else {
    square = Math.min(width, 480);
    netW = width;
    netH = Math.max(240, Math.min(420, width * 0.85));
    side = width;
    columns = `${width}px`;
  }
  const sideRow = width >= 600 && width < 960;
  const sideW = sideRow ? (side - gap * (stacked - 1)) / stacked : side;
  const titleH = 20;
  return {
    columns,
    sideColumn: width >= 960 ? "auto" : "1 / -1",
    sideRow,
    size: {
      boundary: [square, square - titleH - 18],
      network: [netW, netH - titleH],
      loss: [sideW, width >= 960 ? Math.max(110, square * 0.34) : 160],
      accuracy: [sideW, width >= 960 ? Math.max(80, square * 0.24) : 120],
      side: [sideW],
    },
  };
}
