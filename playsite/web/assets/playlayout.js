// The play page's layout: the board's size against the window (one column on a phone or an
// upright tablet, the panel beside the board on a desktop, the strips beside it on a phone held
// sideways: play.css), and the scroll that brings a player's turn into view on an upright screen.
import { $, element } from "./site.js";

// One column (play.css): a phone, a narrow window, or a tablet held upright (up to 1,100 px wide
// and at least 6/5 as tall, its browser's bars shown: a 768 x 1024 tablet's window is ~768 x 950),
// where beside the panel the board had under two thirds of the width.
const ONE_COLUMN = "(max-width: 760px), (max-width: 1100px) and (max-aspect-ratio: 5/6)";
const UPRIGHT_ONE_COLUMN = "(max-width: 760px) and (orientation: portrait), (max-width: 1100px) and (max-aspect-ratio: 5/6)";

// What a turn needs under the board on an upright phone, the page's gap under the board included:
// the status's two lines, the dice (their legend gives way on a short screen: play.css), the line
// of the turn's moves and the turn's buttons, measured at 320 and 360 px wide (~203 px).
const TURN_ROOM_REM = 13;
// and the dice's legend, where it is shown (a tablet, a phone over 760 px tall): up to two lines
// (at 700 px wide its "Rules" takes the second), which took "Play this turn" 11-28 px under a
// tablet's foot without them
const LEGEND_ROOM_REM = 2.2;

// A phone or a tablet held upright, as a player's page opens on a live game and as a roll of
// theirs comes: when "Play this turn" is under the screen's foot and the header is in view, the page
// scrolls by what it takes (the header at most), so the board, the dice and the button are seen
// together; once, mostly, as the page opens, before a finger is on the board. Looking further
// down (the moves), nothing moves.
let intoViewAsked = false; // one measure a frame: two asks in one frame scrolled twice
export function turnIntoView() {
  if (intoViewAsked || !matchMedia(UPRIGHT_ONE_COLUMN).matches) return;
  intoViewAsked = true;
  requestAnimationFrame(() => {
    intoViewAsked = false;
    const table = $("table").getBoundingClientRect(), submit = $("submit").getBoundingClientRect();
    const over = submit.bottom + 4 - innerHeight;
    if (over > 0 && table.top > 0) scrollBy({ top: Math.min(over, table.top), behavior: "smooth" });
  });
}

// The window's height with the browser's bars shown (CSS's svh): a phone's browser hides them as
// the page scrolls, and its window grows and shrinks with them; a board sized by that would grow
// and shrink under the finger as the page scrolls (turnIntoView's scroll included).
let heightProbe = null;
function steadyHeight() {
  if (!CSS.supports("height", "100svh")) return innerHeight;
  if (!heightProbe) {
    heightProbe = element("div", null, { "aria-hidden": "true" });
    heightProbe.style.cssText = "position: fixed; top: 0; left: 0; width: 0; height: 100svh; visibility: hidden; pointer-events: none";
    document.body.append(heightProbe);
  }
  return Math.min(innerHeight, heightProbe.offsetHeight || innerHeight);
}

// The board's side: as tall as the window allows under the header with both strips on screen
// (desktop, the panel beside it), or the full width (a phone, the panel below); `player`: the
// page holds a seat, and so a turn to play under the board. play.css has a close guess for the
// first paint; this measures.
export function fitBoard({ player }) {
  const table = $("table");
  const main = table.parentElement;
  const style = getComputedStyle(main);
  const room = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  // sideways on a phone (play.css): the panel and the strips beside the board, whatever the width
  const short = matchMedia("(orientation: landscape) and (max-height: 500px)").matches;
  const narrow = !short && matchMedia(ONE_COLUMN).matches;
  // what the table holds beside the board (the strips, their gaps) and what the page keeps under
  // it (the table's margin, main's and the body's padding): the page's foot stays in the window
  const strips = short ? 0 : table.offsetHeight - $("board").offsetHeight;
  const foot = [getComputedStyle(table).marginBottom, style.paddingBottom, getComputedStyle(document.body).paddingBottom]
    .reduce((sum, length) => sum + (parseFloat(length) || 0), 0);
  const top = table.getBoundingClientRect().top + scrollY;
  const beside = short ? 14 * rem + 1 * rem + 7 * rem + 0.5 * rem : 17 * rem + 1.5 * rem; // panel, strips, gaps
  const byWidth = narrow ? room : room - beside;
  const under = (height) => height - top - strips - foot - 4; // the board's room under the header
  const byHeight = under(innerHeight);
  const upright = !short && matchMedia(UPRIGHT_ONE_COLUMN).matches;
  // Upright, a player's page: the board gives up to an eighth of a phone's width (on a wider
  // screen, down to 26 rem) so that, the header scrolled away (turnIntoView), the strips, the
  // board and the turn's essentials under it (the status, the dice, the turn's moves, "Play this
  // turn": TURN_ROOM_REM) are one screen. A spectator has no turn to play: the board takes the
  // width, as much of it as the window's height leaves under the header (a tablet's).
  const least = Math.min(byWidth * 0.88, 26 * rem);
  const legend = getComputedStyle(document.querySelector("#dice-row .legend")).display === "none" ? 0 : LEGEND_ROOM_REM;
  const steady = steadyHeight();
  const besideTurn = steady - strips - (TURN_ROOM_REM + legend) * rem - 4;
  const size = Math.floor(!upright ? Math.min(byWidth, byHeight)
    : Math.max(least, Math.min(byWidth, player ? besideTurn : under(steady))));
  document.body.style.setProperty("--play-size", `${Math.max(200, size)}px`);
}
