// A phone's line of moves over the board, as lichess's phone pages have it (movestrip.css shows it
// up to 760 px wide, upright; the play page also stands it between the clocks sideways): the
// game's turns in one row that scrolls under a finger, each turn a chip in the move list's words,
// the turn the board shows marked and in view. It is aria-hidden and holds nothing focusable: the
// page's full list says the same to a screen reader and a keyboard. The page handles a tap
// (`data-index` on each turn, `.strip-live` on the way back).
import { moveNumber } from "./movelist.js";
import { element } from "./site.js";

// `turns`: [{ seat, texts }] (texts: the turn's moves written out, none for a pass); `shown`: the
// index of the turn the board shows, -1 for the start; `back`: the words of a way back to the
// game, held at the line's end, or null.
export function drawMoveStrip(strip, turns, shown, back = null) {
  const items = [];
  turns.forEach(({ seat, texts }, index) => {
    if (seat === "White" || index === 0) {
      items.push(element("span", `${moveNumber(index)}${seat === "White" ? "." : "..."}`, { class: "number" }));
    }
    // a move breaks across lines only between moves (at its "-" it wrapped in a narrow column)
    const item = element("span", "", { class: "turn", "data-index": String(index) });
    (texts.length ? texts : ["pass"]).forEach((text, at) => item.append(...(at ? [" "] : []), element("span", text, { class: "micro" })));
    if (index === shown) item.classList.add("current");
    items.push(item);
  });
  if (back) items.push(element("span", back, { class: "strip-live" }));
  strip.replaceChildren(...items);
  keepStripTurnInView(strip);
}

// The marked turn in the middle of what the way back leaves of the line (the newest at its end),
// or the line's start when none is marked: called again when the line changes size (a phone
// turned: a column that became a row had the game's first turns in view). One of the two ways
// does not scroll: setting it does nothing.
export function keepStripTurnInView(strip) {
  const item = strip.querySelector(".current");
  const back = strip.querySelector(".strip-live"); // held at the line's end, over the turns there
  if (!item) strip.scrollTo(0, 0);
  else strip.scrollTo(item.offsetLeft - (strip.clientWidth - (back?.offsetWidth ?? 0) - item.offsetWidth) / 2,
    item.offsetTop - (strip.clientHeight - (back?.offsetHeight ?? 0) - item.offsetHeight) / 2);
}
