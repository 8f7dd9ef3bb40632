// The material a side is up, as chess sites show it beside a player's name: for each kind of
// piece, the pieces one side has more of on the board than the other (the pieces it has taken,
// less those it lost of the same kind), drawn in the taken pieces' colour, and the sum of their
// values (pawn 1, knight and bishop 3, rook 5, queen 9) for the side ahead. Kings are not
// counted: taking one ends the game. Read from the board shown, so a promotion counts as the
// piece it became, and browsing the move list shows the material of the position looked at.
import { pieceImage } from "./board.js";
import { DIE_OF_LETTER, DIE_PIECE } from "./dice.js";
import { element } from "./site.js";

const KINDS = ["Q", "R", "B", "N", "P"]; // the order they are drawn in, the most valuable first
const VALUE = { Q: 9, R: 5, B: 3, N: 3, P: 1 };

// `pieces`: square -> piece letter, as board.js's parsePlacement gives it.
// -> {white: {taken: ["n", "p"], score: 4}, black: {taken: [], score: 0}}: `taken` are the
// piece letters (of the other side's colour) a side is up, `score` what it is ahead by (0 for
// the side behind, and for both when level).
export function materialOf(pieces) {
  const count = {};
  for (const letter of Object.values(pieces)) count[letter] = (count[letter] || 0) + 1;
  const white = { taken: [], score: 0 }, black = { taken: [], score: 0 };
  let balance = 0;
  for (const kind of KINDS) {
    const more = (count[kind] || 0) - (count[kind.toLowerCase()] || 0);
    const [side, letter] = more > 0 ? [white, kind.toLowerCase()] : [black, kind];
    for (let n = 0; n < Math.abs(more); n += 1) side.taken.push(letter);
    balance += more * VALUE[kind];
  }
  if (balance > 0) white.score = balance;
  if (balance < 0) black.score = -balance;
  return { white, black };
}

// A side's share of `materialOf` as the strip beside its name shows it: the pieces it is up,
// each kind huddled together, then "+4" when it is ahead. Null when it is up nothing. Said to a
// screen reader in words: "a knight and a pawn more, 4 points ahead"; a side behind on the sum
// has its kinds said without being called ahead ("a knight more", where the other side has "3
// pawns more" too) (play-through s71: "up a knight" read as ahead while 8 points behind).
export function materialTag({ taken, score }) {
  if (!taken.length && !score) return null;
  const tag = element("span", null, { class: "material" });
  // the kinds in a box of their own: where the strip is short of room, the last kinds give way
  // (the pawns first), never the player's name nor the score (style.css)
  const kinds = element("span", null, { class: "kinds" });
  let group = null;
  for (const letter of taken) {
    if (group?.dataset.kind !== letter) {
      group = element("span", null, { class: letter === letter.toLowerCase() ? "taken black" : "taken white" });
      group.dataset.kind = letter;
      kinds.append(group);
    }
    group.append(Object.assign(document.createElement("img"), { src: pieceImage(letter), alt: "", draggable: false }));
  }
  if (taken.length) tag.append(kinds);
  if (score) tag.append(element("span", `+${score}`, { class: "score" }));
  const words = taken.map((letter) => DIE_PIECE[DIE_OF_LETTER[letter.toUpperCase()]]);
  tag.setAttribute("role", "img");
  const ahead = score ? `${score} ${score === 1 ? "point" : "points"} ahead` : "";
  tag.setAttribute("aria-label", [words.length ? `${listed(words)} more` : "", ahead].filter(Boolean).join(", "));
  tag.title = tag.getAttribute("aria-label");
  tag.dataset.taken = taken.join("");
  tag.dataset.score = String(score);
  return tag;
}

// "a knight and 2 pawns", "a queen, a rook and a pawn".
function listed(words) {
  const counted = [];
  for (const word of words) {
    const last = counted[counted.length - 1];
    if (last?.word === word) last.n += 1;
    else counted.push({ word, n: 1 });
  }
  const parts = counted.map(({ word, n }) => (n === 1 ? `a ${word}` : `${n} ${word}s`));
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}
