// The board: a position read from a DFEN, micro-moves applied to it (to show a turn being
// built; the server's fenAfter replaces it once the turn is played), and its rendering.

const GLYPHS = { K: "\u2654", Q: "\u2655", R: "\u2656", B: "\u2657", N: "\u2658", P: "\u2659",
                 k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const FILES = "abcdefgh";

// The chessnut set (Alexis Luengas, Apache-2.0; see pieces/chessnut/NOTICE), served under
// content-hashed names: the server rewrites each relative URL below to the hashed name.
const PIECE_FILES = {
  K: new URL("./pieces/chessnut/wK.svg", import.meta.url).href,
  Q: new URL("./pieces/chessnut/wQ.svg", import.meta.url).href,
  R: new URL("./pieces/chessnut/wR.svg", import.meta.url).href,
  B: new URL("./pieces/chessnut/wB.svg", import.meta.url).href,
  N: new URL("./pieces/chessnut/wN.svg", import.meta.url).href,
  P: new URL("./pieces/chessnut/wP.svg", import.meta.url).href,
  k: new URL("./pieces/chessnut/bK.svg", import.meta.url).href,
  q: new URL("./pieces/chessnut/bQ.svg", import.meta.url).href,
  r: new URL("./pieces/chessnut/bR.svg", import.meta.url).href,
  b: new URL("./pieces/chessnut/bB.svg", import.meta.url).href,
  n: new URL("./pieces/chessnut/bN.svg", import.meta.url).href,
  p: new URL("./pieces/chessnut/bP.svg", import.meta.url).href,
};

// The picture of a piece letter as in FEN ("K" white king, "n" black knight): a same-origin
// URL usable in an <img> or in CSS; undefined for anything else.
export function pieceImage(letter) {
  return PIECE_FILES[letter];
}
const DIE_OF_PIECE = { P: 1, N: 2, B: 3, R: 4, Q: 5, K: 6 };

// square name ("e2") -> piece letter, from a DFEN's first field
export function parsePlacement(dfen) {
  const pieces = {};
  dfen.split(" ")[0].split("/").forEach((row, index) => {
    let file = 0;
    for (const char of row) {
      if (/\d/.test(char)) { file += Number(char); continue; }
      pieces[`${FILES[file]}${8 - index}`] = char;
      file += 1;
    }
  });
  return pieces;
}

// The unspent dice of a DFEN (its 7th field, written as piece letters) as numbers 1-6.
export function diceOf(dfen) {
  const field = dfen.split(" ")[6] || "";
  return [...field].map((letter) => DIE_OF_PIECE[letter.toUpperCase()]).filter(Boolean);
}

export function applyMove(pieces, uci) {
  const next = { ...pieces };
  const from = uci.slice(0, 2), to = uci.slice(2, 4), promotion = uci[4];
  const piece = next[from];
  if (!piece) return next;
  const white = piece === piece.toUpperCase();
  if (piece.toUpperCase() === "P" && from[0] !== to[0] && !next[to]) {
    delete next[`${to[0]}${from[1]}`]; // en passant
  }
  if (piece.toUpperCase() === "K" && Math.abs(FILES.indexOf(to[0]) - FILES.indexOf(from[0])) === 2) {
    const rank = from[1];
    const [rookFrom, rookTo] = to[0] === "g" ? [`h${rank}`, `f${rank}`] : [`a${rank}`, `d${rank}`];
    next[rookTo] = next[rookFrom];
    delete next[rookFrom];
  }
  delete next[from];
  next[to] = promotion ? (white ? promotion.toUpperCase() : promotion.toLowerCase()) : piece;
  return next;
}

const PIECE_NAMES = { K: "king", Q: "queen", R: "rook", B: "bishop", N: "knight", P: "pawn" };
const STEP = { ArrowUp: -8, ArrowDown: 8, ArrowLeft: -1, ArrowRight: 1 };

// Draw the 64 squares into `element`; `marks` gives classes per square, `onSquare` gets clicks.
// Every square is a keyboard control too: Tab reaches the board, the arrow keys move between
// squares, Enter or Space picks one; focus stays on its square when the board is redrawn.
export function renderBoard(element, pieces, { flipped = false, marks = {}, onSquare = () => {} } = {}) {
  const focused = element.contains(document.activeElement) ? document.activeElement.dataset.square : null;
  element.replaceChildren();
  element.setAttribute("role", "grid");
  for (let row = 0; row < 8; row += 1) {
    for (let column = 0; column < 8; column += 1) {
      const rank = flipped ? row + 1 : 8 - row;
      const file = FILES[flipped ? 7 - column : column];
      const name = `${file}${rank}`;
      const square = document.createElement("div");
      square.className = `square ${(FILES.indexOf(file) + rank) % 2 === 0 ? "light" : "dark"} ${marks[name] || ""}`;
      square.dataset.square = name;
      if (pieces[name]) {
        square.textContent = GLYPHS[pieces[name]];
        square.dataset.piece = pieces[name];
      }
      const piece = pieces[name];
      const owner = piece ? (piece === piece.toUpperCase() ? "white" : "black") : null;
      square.setAttribute("role", "button");
      square.setAttribute("aria-label", piece ? `${name}, ${owner} ${PIECE_NAMES[piece.toUpperCase()]}` : name);
      square.tabIndex = name === (focused || "") || (!focused && row === 7 && column === 0) ? 0 : -1;
      square.addEventListener("click", () => onSquare(name));
      square.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          onSquare(name);
        } else if (event.key in STEP) {
          event.preventDefault();
          const index = row * 8 + column + STEP[event.key];
          const target = element.children[index];
          if (target && !(STEP[event.key] === 1 && column === 7) && !(STEP[event.key] === -1 && column === 0)) {
            square.tabIndex = -1;
            target.tabIndex = 0;
            target.focus();
          }
        }
      });
      element.append(square);
    }
  }
  if (focused) element.querySelector(`[data-square="${focused}"]`)?.focus();
}
