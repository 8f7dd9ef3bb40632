// The game's turns in words a chess player reads: long algebraic notation with piece letters
// ("Ng1-f3", "e4xd5", "O-O", "e7-e8=Q"), each turn being up to three micro-moves paid by its dice.
import { applyMove, parsePlacement } from "./board.js";

export const START_DFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const FILES = "abcdefgh";
const PIECE_WORDS = { P: "pawn", N: "knight", B: "bishop", R: "rook", Q: "queen", K: "king" };

// One micro-move in notation, read against the pieces before it.
export function notate(pieces, uci) {
  const from = uci.slice(0, 2), to = uci.slice(2, 4), promotion = uci[4];
  const piece = pieces[from];
  if (!piece) return uci;
  const kind = piece.toUpperCase();
  if (kind === "K" && Math.abs(FILES.indexOf(to[0]) - FILES.indexOf(from[0])) === 2) {
    return to[0] === "g" ? "O-O" : "O-O-O";
  }
  const capture = isCapture(pieces, uci);
  // the king taken ends the game: marked "#", as chess marks the mate that ends one
  const king = takesKing(pieces, uci) ? "#" : "";
  return `${kind === "P" ? "" : kind}${from}${capture ? "x" : "-"}${to}${promotion ? `=${promotion.toUpperCase()}` : ""}${king}`;
}

// Whether the micro-move takes the king (which ends the game).
function takesKing(pieces, uci) {
  return pieces[uci.slice(2, 4)]?.toUpperCase() === "K";
}

// Whether the micro-move takes a piece (en passant included).
export function isCapture(pieces, uci) {
  const from = uci.slice(0, 2), to = uci.slice(2, 4);
  const piece = pieces[from];
  return Boolean(pieces[to]) || (Boolean(piece) && piece.toUpperCase() === "P" && from[0] !== to[0]);
}

// One micro-move in words for a screen reader: "knight g1 to f3", "pawn e4 takes d5".
export function speak(pieces, uci) {
  const piece = pieces[uci.slice(0, 2)];
  const text = notate(pieces, uci);
  if (text.startsWith("O-O")) return text === "O-O" ? "castles king side" : "castles queen side";
  const word = piece ? PIECE_WORDS[piece.toUpperCase()] : "";
  const promotion = uci[4] ? `, promotes to ${PIECE_WORDS[uci[4].toUpperCase()]}` : "";
  const king = takesKing(pieces, uci) ? "the king on " : "";
  return `${word} ${uci.slice(0, 2)} ${isCapture(pieces, uci) ? `takes ${king}` : "to "}${uci.slice(2, 4)}${promotion}`;
}

// A whole turn from `pieces`: its notation per micro-move, whether it took something (and the
// king, which ends the game), and the pieces after it.
export function notateTurn(pieces, moves) {
  const texts = [], spoken = [];
  let capture = false, kingTaken = false;
  let now = pieces;
  for (const uci of moves) {
    texts.push(notate(now, uci));
    spoken.push(speak(now, uci));
    capture = capture || isCapture(now, uci);
    kingTaken = kingTaken || takesKing(now, uci);
    now = applyMove(now, uci);
  }
  return { texts, spoken, capture, kingTaken, after: now };
}

// The chess move number of the game's turn at `index` (from 0): White's turn and the Black one
// after it share a number, as the play page's list, its browse note and the replay write them.
export function moveNumber(index) {
  return Math.floor(index / 2) + 1;
}

// The position before turn `index` of a list of turns ({fenAfter}), the start for the first.
export function positionBefore(turns, index, startDfen = START_DFEN) {
  return parsePlacement(index > 0 ? turns[index - 1].fenAfter : startDfen);
}

// The squares of a turn's micro-moves, as the board marks them: [["e2", "e4"], ...].
export function movedSquares(moves) {
  return moves.map((uci) => [uci.slice(0, 2), uci.slice(2, 4)]);
}

// A turn that offered a draw, as the move lists write it: " (offers a draw)", then
// " (offers a draw; declined)" or " (offers a draw; accepted)" once answered; "" for any other turn.
export function drawNote(offered, declined, accepted = false) {
  if (!offered) return "";
  return declined ? " (offers a draw; declined)" : accepted ? " (offers a draw; accepted)" : " (offers a draw)";
}
