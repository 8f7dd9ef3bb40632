// A finished game, turn by turn, with every roll checked in this browser against the seed
// the server revealed at the end (fair.js): first / previous / next / last and the arrow keys,
// the board flipped with its button or F.
import { createBoard, parsePlacement } from "./board.js";
import { renderDice, unusedDice } from "./dice.js";
import { drawNote, moveNumber, notateTurn } from "./movelist.js";
import { drawMoveStrip, keepStripTurnInView } from "./movestrip.js";
import { commitmentSeen, verifyRecord } from "./fair.js";
import { materialOf, materialTag } from "./material.js";
import { getJson, keepSeatOfLink, keptSeat } from "./net.js";
import { followRatingChanges } from "./ratingchange.js";
import { $, botTag, bringIntoSight, element, faceLink, keepInView, mountHeader, ratingChangeTag, ratingLabel, resultText, showMissingGame, siteInfo, timeControlLabel, WHEN } from "./site.js";

const gameId = location.pathname.split("/").pop();
keepSeatOfLink(gameId); // a seat's link to the game, sent on here once it is over
// players: named as they are now; mine: this browser's or account's seat; written: each turn's
// moves in words, for the phone's line
const view = { record: null, players: null, turns: [], step: 0, checks: new Map(), mine: null, written: [], ratings: null };
const board = createBoard($("board"), { label: "board" });

function positionAt(step) {
  return step === 0 ? view.record.initialDfen : view.turns[step - 1].fenAfter;
}

// The squares each micro-move of the turn went from and to.
function lastMoveOf(step) {
  return step === 0 ? [] : view.turns[step - 1].moves.map((uci) => [uci.slice(0, 2), uci.slice(2, 4)]);
}

// A turn's micro-moves as the play page writes them (`Ng1-f3`, `e4xd5`, `O-O`).
function written(index) {
  return notateTurn(parsePlacement(positionAt(index)), view.turns[index].moves).texts;
}

// A rated game's player, once the batch applied it: the rating they brought to the game and what
// the game did to it, as lichess writes both beside a name ("1500 +12").
function ratingOf(side) {
  const rating = view.ratings?.[side.toLowerCase()];
  if (typeof rating?.before !== "number" || typeof rating.change !== "number") return [];
  return [" ", ratingLabel(rating.before, rating.provisional, { compact: true }), " ", ratingChangeTag(rating.change)];
}

function placeNames() {
  const black = board.orientation === "white";
  const players = view.players || view.record?.players || {};
  // as the play page's strips: the side, then the name (a bot's marked BOT), and "(you)" on one's own seat
  const bot = (face) => (face?.kind === "Bot" ? [botTag(), " "] : []);
  // and the material the side is up in the position shown (material.js)
  const material = materialOf(parsePlacement(positionAt(view.step)));
  const up = (side) => { const tag = materialTag(material[side.toLowerCase()]); return tag ? [" ", tag] : []; };
  const strip = (side, face) => [element("span", side, { class: "side" }), " ", ...bot(face), faceLink(face),
    ...ratingOf(side), ...(view.mine === side ? [" ", element("span", "(you)", { class: "you" })] : []), ...up(side)];
  $("name-top").replaceChildren(...strip(black ? "Black" : "White", black ? players.black : players.white));
  $("name-bottom").replaceChildren(...strip(black ? "White" : "Black", black ? players.white : players.black));
}

function flip() {
  board.set({ orientation: board.orientation === "white" ? "black" : "white" });
  if (view.record) placeNames();
}

function show(step) {
  const previous = view.step;
  view.step = Math.max(0, Math.min(step, view.turns.length));
  const { turns } = view;
  // one step forward slides the turn's pieces; a jump redraws at once
  board.set({ pieces: parsePlacement(positionAt(view.step)), lastMove: lastMoveOf(view.step),
    animate: view.step === previous + 1 });
  // counted in moves, as the list numbers them (White's turn and Black's after it share one);
  // Black's half written "19…", as chess writes it, so each step changes what the counter says
  const moves = turns.length ? moveNumber(turns.length - 1) : 0;
  const black = turns[view.step - 1]?.activeColor === "Black" ? "\u2026" : "";
  $("step").textContent = `${view.step ? moveNumber(view.step - 1) : 0}${black} / ${moves}`;
  $("step").dataset.step = String(view.step);
  const turn = turns[view.step - 1];
  $("turn-seat").textContent = turn ? `Move ${moveNumber(view.step - 1)}, ${turn.activeColor}` : "The starting position";
  renderDice($("dice"), turn ? turn.dice : [], { side: turn?.activeColor === "Black" ? "black" : "white" });
  $("moves").textContent = turn
    ? (turn.moves.length ? written(view.step - 1).join(" ") : "(forced pass)") + drawNote(turn.drawOffer, turn.drawDeclined, accepted(view.step - 1)) : "";
  const check = turn && view.checks.get(turn.turnNumber);
  // "checked" read as chess's check: these words are about the dice
  $("turn-check").textContent = check === undefined ? "" : check ? "\u2713 dice verified" : "\u2717 dice do not match";
  $("turn-check").dataset.ok = check === undefined ? "" : String(check);
  $("first").disabled = $("prev").disabled = view.step === 0;
  $("next").disabled = $("last").disabled = view.step === turns.length;
  for (const item of $("turns").children) item.classList.toggle("current", Number(item.dataset.step) === view.step);
  // the starting position has no row: the list goes back to its top, where the first move is
  if (view.step === 0) $("turns").scrollTop = 0;
  else keepInView($("turns"), $("turns").querySelector("li.current"));
  drawMoveStrip($("move-strip"), view.written, view.step - 1); // a phone's line over the board
  placeNames(); // with the material of the position shown
}

// Whether the turn at `index` carried the offer the game was drawn by: its last, in a game drawn by agreement.
function accepted(index) {
  return view.record?.termination === "draw_agreement" && index === view.turns.length - 1;
}

function listTurns() {
  view.written = view.turns.map((turn, index) => ({ seat: turn.activeColor, texts: written(index) }));
  $("turns").replaceChildren(...view.turns.map((turn, index) => {
    const item = element("li");
    item.value = moveNumber(index); // "5. White", "5. Black": as the play page (the archive numbers each turn)
    item.dataset.step = String(index + 1);
    const button = element("button", "", { type: "button", class: "link" });
    const dice = element("span", "", { class: "dice small" });
    renderDice(dice, turn.dice, { unplayable: unusedDice(turn.dice, parsePlacement(positionAt(index)), turn.moves),
      side: turn.activeColor === "Black" ? "black" : "white" }); // faded: the dice the turn left
    const moves = element("span", turn.moves.length ? null : "pass", { class: "moves" });
    // each move kept whole when a narrow list wraps them ("Ra8-b8", never "Ra8-" then "b8")
    written(index).forEach((text, at) => moves.append(...(at ? [" "] : []), element("span", text, { class: "micro" })));
    // a draw offer's note under the moves (beside them, it squeezed them to one a line: s63)
    const note = drawNote(turn.drawOffer, turn.drawDeclined, accepted(index));
    if (note) moves.append(element("span", note, { class: "note" }));
    button.append(element("span", turn.activeColor, { class: "seat" }), dice, moves);
    button.addEventListener("click", () => { show(index + 1); bringIntoSight($("board")); });
    item.append(button);
    return item;
  }), ...unplayedItem());
}

// The roll the game ended on, never played (a resignation, a clock or a first move run out): in
// the list after the last turn, not a position to step to, its dice checked like the turns'.
function unplayedItem() {
  const last = view.record.unplayedRoll;
  if (!last) return [];
  const item = element("li", null, { class: "unplayed" });
  item.value = moveNumber(view.turns.length);
  const dice = element("span", "", { class: "dice small" });
  renderDice(dice, last.dice, { side: last.activeColor === "Black" ? "black" : "white" });
  const row = element("span", null, { class: "row" });
  row.append(element("span", last.activeColor, { class: "seat" }), dice,
    element("span", "the roll the game ended on, not played", { class: "note" }));
  item.append(row);
  return [item];
}

// `unseeded`: neither player added a seed of their own, so the rolls follow from the server's
// committed seed alone (checked all the same, but not shared with anyone): said, not hidden.
function showVerdict(verdict, { unseeded = false } = {}) {
  const badge = $("fairness");
  badge.dataset.state = verdict.state;
  for (const turn of verdict.turns || []) view.checks.set(turn.turnNumber, turn.ok);
  for (const item of $("turns").children) {
    if (item.classList.contains("unplayed")) {
      if (verdict.unplayed) item.dataset.ok = String(verdict.unplayed.ok);
      continue;
    }
    const turn = view.turns[Number(item.dataset.step) - 1];
    const ok = view.checks.get(turn.turnNumber);
    if (ok !== undefined) item.dataset.ok = String(ok);
  }
  badge.textContent = {
    verified: () => verdict.checked
      ? `Provably fair: verified (${verdict.checked} ${verdict.checked === 1 ? "roll" : "rolls"} checked in your browser)${unseeded ? "; no player added a seed" : ""}`
      // the game ended before its first roll (a seat never taken)
      : "Provably fair: the seed matches its commitment; no roll was made, so none to check",
    mismatch: () => `Mismatch at ${verdict.unplayed && !verdict.unplayed.ok ? "the roll the game ended on" : `turn ${verdict.turnNumber}`}: `
      + `the seed gives ${verdict.expected.join(" ")}, `
      + `the record says ${Array.isArray(verdict.recorded) ? verdict.recorded.join(" ") : "nothing"}`,
    commitment: () => verdict.seen
      ? "Mismatch: the record's commitment is not the one this browser was shown during the game"
      : "Mismatch: the revealed seed is not the one the server committed to",
    unrevealed: () => "Not revealed yet: the seed is published when the game ends",
    unsupported: () => "This browser cannot check the dice here (WebCrypto needs https)",
    unreadable: () => `The record cannot be checked: ${verdict.reason}`,
  }[verdict.state]();
  show(view.step);
}

async function ownSeat() {
  const kept = keptSeat(gameId).seat;
  if (kept) return kept;
  const site = await siteInfo().catch(() => null);
  if (!site?.account) return null;
  const mine = await getJson(`/auth/me/games/${gameId}`).catch(() => null);
  return mine?.status === 200 ? mine.body.seat : null;
}

async function load() {
  const answer = await getJson(`/games/${gameId}/history`);
  if (answer.status !== 200) {
    const live = await getJson(`/games/${gameId}`);
    if (live.status === 200) {
      $("fairness").dataset.state = "unrevealed";
      $("fairness").textContent = "Not revealed yet: the game is still being played.";
      $("outcome").replaceChildren("Watch it: ", element("a", "the game", { href: `/play/${gameId}` }));
    } else {
      showMissingGame({ finished: true });
    }
    return;
  }
  const record = answer.body;
  view.record = record;
  view.turns = [...record.turns].sort((a, b) => a.turnNumber - b.turnNumber);
  // a player's own replay is seen from their side, as their game was (this browser's seat, or
  // the signed-in account's)
  view.mine = await ownSeat();
  if (view.mine === "Black") board.set({ orientation: "black" });
  placeNames();
  // The record names no person (it is kept forever; a nickname changes, a deleted account's
  // goes): the names they go by now come beside it. A rated game then says what it made of
  // their ratings, as its play page did at the end: the rating period that holds its end.
  getJson(`/games/${gameId}/players`).then((now) => {
    if (now.status !== 200 || !now.body) return;
    view.players = now.body;
    placeNames();
    if (record.rated && record.termination !== "aborted") {
      followRatingChanges($("rating-change"), gameId, now.body, view.mine, {
        onChange: (known) => { view.ratings = known; placeNames(); },
      });
    }
  }).catch(() => {});
  // how it ended, and what kind of game it was (an abort rated nothing, whatever was asked)
  const kind = record.termination === "aborted" ? "" : record.rated ? " \u00b7 Rated" : " \u00b7 Casual";
  $("outcome").textContent = `${resultText(record)}, ${WHEN.format(new Date(record.finishedAt))}`;
  $("game-kind").textContent = `${timeControlLabel(record.timeControl)}${kind}`;
  $("commit").textContent = record.fairness.commit;
  // the fingerprint a play page of this browser was shown during the game, compared with the record's
  const seen = commitmentSeen(gameId);
  const seenAlike = seen !== null && seen.toLowerCase() === String(record.fairness.commit).toLowerCase();
  if (seen !== null) {
    $("commit-seen").textContent = seenAlike
      ? "\u2713 This browser was shown the same commitment while the game was played."
      : `\u2717 This browser was shown another commitment while the game was played: ${seen}`;
    $("commit-seen").dataset.ok = String(seenAlike);
    $("commit-seen").hidden = false;
  }
  $("seed").textContent = record.fairness.seed ?? "(not revealed)";
  // a seed as the code it is, or in words when none was sent (an empty one adds nothing)
  const seed = (text) => (text ? element("code", JSON.stringify(text)) : "none sent");
  $("client-white").replaceChildren(seed(record.fairness.clientSeeds?.white));
  $("client-black").replaceChildren(seed(record.fairness.clientSeeds?.black));
  $("verify-command").textContent = `python3 verify_dice.py ${location.origin}/games/${gameId}/history`;
  $("record").href = `/games/${gameId}/history`;
  $("record").download = `playsite-${gameId}.json`;
  listTurns();
  show(view.turns.length);
  const seeds = record.fairness?.clientSeeds;
  const verdict = seen !== null && !seenAlike ? { state: "commitment", seen: true } : await verifyRecord(record);
  showVerdict(verdict, { unseeded: Boolean(seeds) && !seeds.white && !seeds.black });
}

$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(view.step - 1));
$("next").addEventListener("click", () => show(view.step + 1));
$("last").addEventListener("click", () => show(view.turns.length));
$("flip").addEventListener("click", flip);
$("move-strip").addEventListener("click", (event) => {
  const turn = event.target.closest(".turn");
  if (turn) show(Number(turn.dataset.index) + 1);
});
if (typeof ResizeObserver === "function") {
  // (the line itself, not looked up: a game not found has taken it off the page)
  new ResizeObserver(([seen]) => keepStripTurnInView(seen.target)).observe($("move-strip"));
}
document.addEventListener("keydown", (event) => {
  // a key the board used (an arrow moving across its squares) does not also step the game
  if (event.defaultPrevented || event.target.closest?.("input, textarea, select")) return;
  if ((event.key === "f" || event.key === "F") && !event.ctrlKey && !event.metaKey && !event.altKey) {
    flip();
    return;
  }
  if (!view.record) return;
  const to = { ArrowLeft: view.step - 1, ArrowRight: view.step + 1, Home: 0, End: view.turns.length }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  show(to);
});
mountHeader();
// "Verify the dice" comes here: the check and how it is made, opened.
if (location.hash === "#fairness") $("fairness-details").open = true;
load().catch(() => {
  $("fairness").dataset.state = "unreadable";
  $("fairness").textContent = "The game could not be loaded; reload to try again.";
});
