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

// A mini-board element; call `.draw(dfen)` to show a position (White at the bottom).
export function miniBoard() {
  const board = document.createElement("div");
  board.className = "mini-board";
  board.setAttribute("role", "img");
  const shown = new Map(); // square -> <img>
  board.draw = (dfen) => {
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
