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
    const piece = board[uci.slice(0, 2)];
    if (!piece) continue;
    const type = piece.toUpperCase();
    spend(DIE_OF_LETTER[type]); // a promotion (e7e8q) is a pawn's move: a pawn die
    const across = Math.abs(FILES.indexOf(uci[2]) - FILES.indexOf(uci[0]));
    if (type === "K" && across === 2) spend(DIE_OF_LETTER.R); // castling also spends a rook die
    board = applyMove(board, uci);
  }
  return spent;
}

function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/**
 * Draw `dice` (numbers 1-6) into `element`, lowest first. `spent`: a boolean per die of `dice` (dimmed, labelled
 * "used"); `rolling`: tumble them in (not under prefers-reduced-motion); `side`: whose roll it
 * is, drawn with that side's own pieces: "white" ivory dice with White's pieces (the default),
 * "black" stone-grey dice with Black's.
 */
export function renderDice(element, dice, { spent = [], rolling = false, side = "white" } = {}) {
  element.classList.add("dice");
  element.dataset.side = side === "black" ? "black" : "white";
  if (!element.hasAttribute("role")) element.setAttribute("role", "group");
  if (!element.hasAttribute("aria-label")) element.setAttribute("aria-label", "dice");
  // lowest first, as a position's DFEN lists a roll's dice: the order the server rolled them in
  // is not kept once a page reloads, so no page shows it, and the same roll always looks the same
  const sorted = dice.map((value, index) => ({ value, used: Boolean(spent[index]) })).sort((a, b) => a.value - b.value);
  const faces = sorted.map(({ value, used }) => {
    const die = document.createElement("span");
    die.className = `die${used ? " spent" : ""}`;
    die.dataset.die = String(value);
    die.setAttribute("role", "img");
    die.setAttribute("aria-label", `die: ${DIE_PIECE[value] || value}${used ? ", used" : ""}`);
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
