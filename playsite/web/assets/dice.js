// The dice as pictures: each die is a face carrying the piece it lets move (1 pawn ... 6 king),
// with its number small in a corner, an accessible label ("die: knight", ", used" once the
// turn being built has spent it), spent dice dimmed, and a short tumble when a roll arrives.
// spentDice() works out which dice a half-built turn has used, by the rules' payment: a die
// pays for the moving piece's type, castling spends a king die and a rook die, a promotion is
// paid with a pawn die, and a promoted piece moves later with a die of its new type.
import { applyMove, pieceImage } from "./board.js";

export const DIE_PIECE = { 1: "pawn", 2: "knight", 3: "bishop", 4: "rook", 5: "queen", 6: "king" };
export const DIE_OF_LETTER = { P: 1, N: 2, B: 3, R: 4, Q: 5, K: 6 };
const LETTER_OF_DIE = { 1: "P", 2: "N", 3: "B", 4: "R", 5: "Q", 6: "K" };
const FILES = "abcdefgh";

/**
 * Which of `dice` the micro-moves `partialMoves` (UCI, in order) have spent, played from
 * `pieces` (square -> FEN letter: the position the dice were rolled in). One boolean per die,
 * in the order of `dice`; of two equal dice the first is spent first.
 */
export function spentDice(dice, pieces, partialMoves = []) {
  const spent = dice.map(() => false);
  const spend = (value) => {
    const index = dice.findIndex((die, at) => die === value && !spent[at]);
    if (index >= 0) spent[index] = true;
  };
  let board = { ...pieces };
  for (const uci of partialMoves) {
    if (!board[uci.slice(0, 2)]) continue;
    for (const value of payment(board, uci)) spend(value);
    board = applyMove(board, uci);
  }
  return spent;
}

/** Which of a played turn's `dice` it left unused (the rules' most dice still left some), as spentDice's opposite. */
export function unusedDice(dice, pieces, moves) {
  return spentDice(dice, pieces, moves).map((spent) => !spent);
}

// The dice a micro-move spends on `board`: its piece's (a promotion, e7e8q, is a pawn's move: a
// pawn die), and a rook's too when it castles.
function payment(board, uci) {
  const type = board[uci.slice(0, 2)]?.toUpperCase();
  if (!type) return [];
  const across = Math.abs(FILES.indexOf(uci[2]) - FILES.indexOf(uci[0]));
  return type === "K" && across === 2 ? [DIE_OF_LETTER.K, DIE_OF_LETTER.R] : [DIE_OF_LETTER[type]];
}

/**
 * Which of `dice` can still be played: not spent (`spent`, as spentDice gives it) and paid for
 * by some completion of the turn, `node` being the legal-move tree below the turn built so far
 * ({} once it is complete) and `pieces` the position after it. One boolean per die, in the
 * order of `dice`: a die of a kind no completion moves is not, nor one more of a kind than any
 * completion plays (a turn plays as many dice as it can, so some may be left unplayable).
 */
export function playableDice(dice, spent, pieces, node) {
  const need = {}, most = {}, count = {};
  dice.forEach((value, index) => { if (!spent[index]) need[value] = (need[value] || 0) + 1; });
  // done once every die left is known playable: most turns play them all, and their first
  // complete turn says so (a big tree is then not walked on)
  let done = false;
  const walk = (board, at) => {
    const moves = Object.keys(at || {});
    if (!moves.length) {
      for (const [value, n] of Object.entries(count)) most[value] = Math.max(most[value] || 0, n);
      done = Object.entries(need).every(([value, n]) => (most[value] || 0) >= n);
      return;
    }
    for (const uci of moves) {
      if (done) return;
      const paid = payment(board, uci);
      for (const value of paid) count[value] = (count[value] || 0) + 1;
      walk(applyMove(board, uci), at[uci]);
      for (const value of paid) count[value] -= 1;
    }
  };
  walk(pieces, node);
  return dice.map((value, index) => {
    if (spent[index] || !(most[value] > 0)) return false;
    most[value] -= 1;
    return true;
  });
}

function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/**
 * Draw `dice` (numbers 1-6) into `element`, lowest first. `spent`: a boolean per die of `dice` (dimmed, labelled
 * "used"); `unplayable`: the same for dice left that the turn cannot play (faded, labelled so); `rolling`: tumble them in (not under prefers-reduced-motion); `side`: whose roll it
 * is, drawn with that side's own pieces: "white" ivory dice with White's pieces (the default),
 * "black" stone-grey dice with Black's.
 */
export function renderDice(element, dice, { spent = [], unplayable = [], rolling = false, side = "white" } = {}) {
  element.classList.add("dice");
  element.dataset.side = side === "black" ? "black" : "white";
  if (!element.hasAttribute("role")) element.setAttribute("role", "group");
  if (!element.hasAttribute("aria-label")) element.setAttribute("aria-label", "dice");
  // lowest first, as a position's DFEN lists a roll's dice: the order the server rolled them in
  // is not kept once a page reloads, so no page shows it, and the same roll always looks the same
  const sorted = dice.map((value, index) => ({ value, used: Boolean(spent[index]), idle: Boolean(unplayable[index]) }))
    .sort((a, b) => a.value - b.value);
  const faces = sorted.map(({ value, used, idle }) => {
    const die = document.createElement("span");
    die.className = `die${used ? " spent" : idle ? " unplayable" : ""}`;
    die.dataset.die = String(value);
    die.setAttribute("role", "img");
    die.setAttribute("aria-label", `die: ${DIE_PIECE[value] || value}${used ? ", used" : idle ? ", cannot be played" : ""}`);
    if (idle) die.title = `No ${DIE_PIECE[value] || "piece"} can move with this die in this turn.`;
    const letter = LETTER_OF_DIE[value];
    if (letter) {
      const picture = document.createElement("img");
      picture.className = "die-piece";
      picture.alt = "";
      picture.draggable = false;
      picture.src = pieceImage(side === "black" ? letter.toLowerCase() : letter); // the roller's own pieces
      die.append(picture);
    }
    const pips = document.createElement("span");
    pips.className = "die-number";
    pips.setAttribute("aria-hidden", "true");
    pips.textContent = String(value);
    die.append(pips);
    return die;
  });
  // spaces between the faces: the text of the dice reads "3 1 5" (flex layout ignores them)
  element.replaceChildren(...faces.flatMap((die, index) => (index ? [" ", die] : [die])));
  if (rolling && !reducedMotion()) {
    faces.forEach((die, index) => {
      if (!die.animate) return;
      const turns = index % 2 === 0 ? 1 : -1;
      die.animate(
        [
          { transform: `translateY(-60%) rotate(${-200 * turns}deg) scale(0.7)`, opacity: 0 },
          { transform: `translateY(8%) rotate(${20 * turns}deg) scale(1.04)`, offset: 0.7 },
          { transform: "translateY(0) rotate(0deg) scale(1)" }, // opacity ends at the die's own (dimmed if spent)
        ],
        { duration: 450 + index * 90, easing: "cubic-bezier(.2,.7,.3,1)" },
      );
    });
  }
}
