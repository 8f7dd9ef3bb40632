// A small static board drawn from a DFEN, for the lobby's wall of live games: the squares are
// one CSS background, each piece an <img> of the board's piece set placed by its file and rank
// classes (no inline style: the CSP allows none). Redrawing with another DFEN touches only the
// pieces that changed, so a wall refreshed every few seconds does not flicker.
import { parsePlacement, pieceImage } from "./board.js";

const FILES = "abcdefgh";
const NAMES = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };

export function pieceName(letter) {
  return `${letter === letter.toUpperCase() ? "white" : "black"} ${NAMES[letter.toLowerCase()]}`;
}

// A mini-board element; call `.draw(dfen, lastMoves)` to show a position (White at the bottom)
// with the squares of its newest turn marked, as the game's own board marks them (every
// micro-move's from and to squares).
export function miniBoard() {
  const board = document.createElement("div");
  board.className = "mini-board";
  board.setAttribute("role", "img");
  const shown = new Map(); // square -> <img>
  const marked = new Map(); // square -> its mark
  board.draw = (dfen, lastMoves = []) => {
    const last = new Set(lastMoves.flatMap((uci) => [uci.slice(0, 2), uci.slice(2, 4)]));
    for (const [square, mark] of marked) if (!last.has(square)) { mark.remove(); marked.delete(square); }
    for (const square of last) {
      if (marked.has(square) || !/^[a-h][1-8]$/.test(square)) continue;
      const mark = document.createElement("span");
      mark.className = `last-move f${FILES.indexOf(square[0]) + 1} r${square[1]}`;
      board.prepend(mark); // under the pieces
      marked.set(square, mark);
    }
    const pieces = dfen ? parsePlacement(dfen) : {};
    for (const [square, img] of shown) {
      if (pieces[square] !== img.dataset.piece) {
        img.remove();
        shown.delete(square);
      }
    }
    for (const [square, letter] of Object.entries(pieces)) {
      if (shown.has(square) || !pieceImage(letter)) continue;
      const img = document.createElement("img");
      img.src = pieceImage(letter);
      img.alt = "";
      img.dataset.piece = letter;
      img.className = `f${FILES.indexOf(square[0]) + 1} r${square[1]}`;
      board.append(img);
      shown.set(square, img);
    }
    const count = Object.keys(pieces).length;
    board.setAttribute("aria-label", `board with ${count} pieces`);
  };
  return board;
}
