// The game page, for a seat (its token rides in the URL fragment, which browsers never send
// in a request) or a spectator. The server decides everything: the page renders its events
// and builds a whole turn from the server's tree, one legal micro-move at a time, then
// submits it at once. Around the board: the dice, the clocks, the move list (browsable),
// the end-of-game box, sounds and a live region for screen readers.
import { applyMove, createBoard, diceOf, parsePlacement } from "./board.js";
import { DIE_OF_LETTER, DIE_PIECE, playableDice, renderDice, spentDice, unusedDice } from "./dice.js";
import { Clocks } from "./clocks.js";
import { rememberCommitment } from "./fair.js";
import { materialOf, materialTag } from "./material.js";
import { drawNote, movedSquares, moveNumber, notateTurn, positionBefore, speak, START_DFEN } from "./movelist.js";
import { drawMoveStrip, keepStripTurnInView } from "./movestrip.js";
import { forgetSeat, forgetSignedOut, gameSocket, getJson, guestId, keepSeatOfLink, keptInvite, keptSeat, randomSeed, signedOutOf, socketOpens } from "./net.js";
import { offerPlayAgain } from "./playagain.js";
import { fitBoard, turnIntoView } from "./playlayout.js";
import { followRatingChanges, periodWords } from "./ratingchange.js";
import { followContinuation, mountRematch, noRematch } from "./rematch.js";
import { $, botTag, bringIntoSight, copyField, element, faceName, keepInView, mountHeader, OTHER, profileHref, ratingChangeTag, ratingLabel, sentence, showMissingGame, siteInfo, timeControlLabel, whileVisible, whyAborted } from "./site.js";
import { isMuted, playSound, setMuted } from "./sound.js";

const gameId = location.pathname.split("/").pop();
keepSeatOfLink(gameId);
const { seat: keptSeatName, token } = keptSeat(gameId);

// A signed-in player's own game opened without the seat's token (another tab, another device,
// a closed tab): the server says which seat the account holds, and the socket returns to it by
// the session. A signed-out page asks nothing.
async function accountSeat() {
  if (token) return null;
  const info = await siteInfo();
  if (!info.account) return null;
  const answer = await getJson(`/auth/me/games/${encodeURIComponent(gameId)}`).catch(() => null);
  return answer?.status === 200 ? answer.body.seat : null;
}
const returning = await accountSeat();
let mine = token ? keptSeatName : returning; // null: spectator (also once the seat is refused)
// Signed out while playing this game (in this tab or another): watching now, and told why and
// how to come back (play-through s65: "taken by someone else", and the game lost unawares).
const signedIn = Boolean((await siteInfo()).account);
const signedOut = !mine && !signedIn && signedOutOf(gameId);
if (signedIn) forgetSignedOut(); // signed in again: the note has done its work
// A fine pointer that hovers: a desktop, where a key is worth naming (a phone has no Enter to press).
const KEYBOARD = matchMedia("(hover: hover) and (pointer: fine)").matches;
// "Play turns at once": a complete turn is sent without "Play this turn" (as lichess sends a move
// without confirmation); off by default, so a turn can be looked at and undone before it goes.
const QUICK_KEY = "playsite.quickTurns";
const quickTurns = () => localStorage.getItem(QUICK_KEY) === "1";

// Whole seconds left until `at` (ms since the epoch, on this page's clock), never below 0: the
// counts a page shows (a forfeit, a first move, the rematch gate).
const secondsUntil = (at) => Math.max(0, Math.ceil((at - Date.now()) / 1000));

// What a complete turn asks for, on the status line and in the last step's announcement.
const PLAY_OR_UNDO = `play it${KEYBOARD ? " (Enter)" : ""} or undo.`;
// A roll's dice in words, lowest first, as the dice are drawn: "pawn, knight, king".
const diceWords = (dice) => [...dice].sort((a, b) => a - b).map((die) => DIE_PIECE[die]).join(", ");

const view = {
  rematchWait: null, // the countdown of a rematch waiting for its players
  ratings: null, // {White, Black}: each seat's rating now (GET /games/{id}/ratings), null for a guest
  orientation: mine === "Black" ? "black" : "white",
  dfen: null, // the position the current roll was made in
  dice: [], // the current roll
  diceSeat: null,
  rolling: false,
  pieces: {}, // the live position (with the half-built turn applied)
  tree: null, // my roll's tree, while I am to move
  node: null,
  partial: [],
  refusal: null, // why the piece last picked cannot move (said under the buttons until a move)
  waiting: false, // a turn was sent, its verdict has not come
  ended: false,
  over: null,
  gone: false, // no such game
  players: null,
  namesBeforeStart: false, // the Snapshot came before both players sat down: names are read again at the first roll
  rated: false,
  clockWords: "", // the time control in words ("10+10")
  opponentIsBot: false, // a bot's seat cannot answer a draw offer
  drawBlocked: false, // my offer was declined: no new one until the opponent offers
  drawOfferFrom: null, // the seat whose draw offer waits for an answer
  turns: [], // {seat, dice, moves, fenAfter, drawOffer, declined}
  browsing: null, // null: live; else the index of the turn whose position is shown (-1: the start)
  animate: false,
  notice: "",
  promoting: false, // the promotion picker is open over its square
  rollPassed: false, // the roll shown has no legal move: the server passes it at once
  rollOpen: false, // the roll shown is still to be played (its turn not played yet)
  away: {}, // seat -> when it forfeits (ms since the epoch), or true, while its player is away
  unarrived: {}, // seat -> true while its player was never here (a lobby or bot game's seat not taken yet)
  reconnecting: {}, // seat -> until when (ms) its player, here before the server restarted, is on the way back
  firstMove: null, // {seat, at}: the seat to move has not played yet, and the game is aborted at `at` (ms) unless it does
  present: {}, // seat -> true once told it is here (the game began: both seats are taken)
  forfeit: false, // the game record says the loser forfeited by leaving (a page opened after the end)
  aborted: null, // the game record's word on an abort, once read: {abort, technical}
  confirming: false,
  connection: "connecting",
  everOpen: false,
};

const clocks = new Clocks();

function path() {
  // &presence=1: Presence frames too (a player away, and when they forfeit), and FirstMove, playsite's own
  if (!mine) return SPECTATOR_PATH;
  if (!token) return `/games/${gameId}/ws?seat=${mine}&presence=1`; // an account's return: its session proves it
  return `/games/${gameId}/ws?token=${encodeURIComponent(token)}&guest=${guestId()}&presence=1`;
}

// A sentence under the controls: an error (a refused turn) in the danger colour, news (a
// declined draw) in the quiet one.
function say(text, { news = false } = {}) {
  $("message").textContent = text || "";
  $("message").classList.toggle("info", news);
}

// The live region, for screen readers. Sentences that come together (the opponent's turn, then this page's roll) are said together:
// set one after the other, a screen reader may read only the last (the opponent's move lost).
let heard = [];
let hearing = null;
function announce(text) {
  heard.push(text);
  // said once the sentences stop coming for a moment: a burst of the server's frames (a turn,
  // the next roll, the first-move count) is one announcement, however busy the page was between them
  clearTimeout(hearing);
  hearing = setTimeout(() => {
    const region = $("announce");
    const words = heard.join(" ");
    heard = [];
    hearing = null;
    region.textContent = "";
    requestAnimationFrame(() => { region.textContent = words; });
  }, 200);
}

// ----- the board ---------------------------------------------------------------------------------

const board = createBoard($("board"), { onMove, onRefuse, label: "board" });

function destsOf(node) {
  const dests = {};
  for (const uci of Object.keys(node || {})) {
    const from = uci.slice(0, 2), to = uci.slice(2, 4);
    dests[from] ||= [];
    if (!dests[from].includes(to)) dests[from].push(to);
  }
  return dests;
}

// A piece of one's own picked that cannot move this turn: why, in words (the dice are the usual
// reason, and the question every newcomer asks). Said under the turn's buttons until a move is made.
function onRefuse(square) {
  if (!myTurn()) return;
  const piece = view.pieces[square];
  const white = piece === piece.toUpperCase();
  if (white !== (mine === "White")) return; // the opponent's piece: nothing to explain
  const die = DIE_OF_LETTER[piece.toUpperCase()];
  const word = DIE_PIECE[die];
  const spent = spentDice(view.dice, parsePlacement(view.dfen), view.partial);
  const idle = unplayableDice(spent);
  const left = view.dice.filter((_, index) => !spent[index] && !idle[index]); // the dice still to play
  const text = !view.dice.some((value, index) => value === die && !spent[index])
    // the dice the turn can still play, never one it cannot (play-through s71: "the dice left
    // move bishop, queen" where neither could move)
    ? `No die for a ${word}: ${!left.length ? `the turn is complete: ${PLAY_OR_UNDO}`
      : `${view.partial.length ? "the dice left move" : "this roll moves"} ${diceWords(new Set(left))}.`}`
    // a rolled piece kept still by the maximum-dice rule, which no board shows (play-through s65)
    : `The ${word} on ${square} cannot move now: it is blocked, or moving it plays fewer dice than the roll allows (a turn plays as many as it can).`;
  view.refusal = text;
  say(text, { news: true });
  announce(text);
}

function onMove(from, to) {
  closePromotion(); // a move elsewhere answers the open picker
  if (!view.node || view.waiting || view.ended || view.browsing !== null) return;
  const choices = Object.keys(view.node).filter((uci) => uci.startsWith(from + to));
  if (choices.length === 1 && choices[0].length === 5) {
    // a promotion the dice leave one piece for: played at once, and said, so the piece is no surprise
    const piece = { q: "queen", r: "rook", b: "bishop", n: "knight" }[choices[0][4]];
    say(`The dice leave one choice: the pawn becomes a ${piece}.`, { news: true });
    announce(`The pawn becomes a ${piece}.`);
  }
  if (choices.length === 1) return play(choices[0]);
  if (choices.length > 1) return choosePromotion(choices);
  draw();
}

// The pieces a pawn may become here, over its promotion square (the tree may allow fewer than
// four: the maximum-dice rule can force one). A choice counts only while it still is one.
function choosePromotion(choices) {
  const order = "qnrb"; // as lichess lists them, nearest the square first
  const white = view.pieces[choices[0].slice(0, 2)] === "P";
  const tiles = choices
    .slice()
    .sort((a, b) => order.indexOf(a[4]) - order.indexOf(b[4]))
    .map((uci) => ({ piece: white ? uci[4].toUpperCase() : uci[4], move: uci }));
  view.promoting = true; // the status line asks for the choice (play-through s71: it still said "move the pieces")
  board.promote(choices[0].slice(2, 4), tiles, {
    onPick: (uci) => { view.promoting = false; if (view.node?.[uci]) play(uci); else draw(); },
    onCancel: () => { view.promoting = false; draw(); },
  });
  drawStatus();
}

function closePromotion() {
  view.promoting = false;
  board.closePromotion();
}

// A sentence about a piece that could not move goes once a move is made or taken back.
function dropRefusal() {
  if (view.refusal && $("message").textContent === view.refusal) say("");
  view.refusal = null;
}

function play(uci) {
  dropRefusal();
  const capture = Boolean(view.pieces[uci.slice(2, 4)]);
  const spoken = speak(view.pieces, uci);
  view.partial.push(uci);
  view.node = view.node[uci];
  view.pieces = applyMove(view.pieces, uci);
  view.animate = false;
  playSound(capture ? "capture" : "move");
  // each step said, as the board shows it: a player by keyboard and screen reader hears the turn grow
  const complete = !Object.keys(view.node).length;
  const atOnce = complete && quickTurns();
  announce(`${spoken[0].toUpperCase()}${spoken.slice(1)}.${complete && !atOnce ? ` The turn is complete: ${PLAY_OR_UNDO}` : ""}`);
  draw();
  if (atOnce) submit();
}

function replayPartial(moves) {
  for (const uci of moves) {
    if (!view.node?.[uci]) return;
    view.partial.push(uci);
    view.node = view.node[uci];
    view.pieces = applyMove(view.pieces, uci);
  }
}

// The turn being built, kept for this tab: a reload to the same roll builds it again (play-through
// s65: "This turn: Bd3-a6" was gone after a reload, and the clock ran while it was made again).
const PARTIAL_KEY = `playsite.partial.${gameId}`;
function keepPartial() {
  try {
    if (view.partial.length && view.dfen) sessionStorage.setItem(PARTIAL_KEY, JSON.stringify({ dfen: view.dfen, partial: view.partial }));
    else sessionStorage.removeItem(PARTIAL_KEY);
  } catch { /* storage off: a reload starts the turn afresh */ }
}

function keptPartial() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(PARTIAL_KEY));
    return typeof kept?.dfen === "string" && Array.isArray(kept.partial) ? kept : null;
  } catch {
    return null;
  }
}
let partialBeforeReload = keptPartial(); // read once, for the first Snapshot (a draw rewrites the key)

function undo() {
  dropRefusal();
  const undone = view.partial[view.partial.length - 1];
  const fromKeys = document.activeElement === $("undo");
  const kept = view.partial.slice(0, -1);
  undoAll();
  replayPartial(kept);
  draw();
  // Undo goes disabled with the turn's last move taken back: a keyboard's focus goes to the square
  // the piece went back to, never to the page's top
  if (fromKeys && $("undo").disabled && undone) document.querySelector(`#board [data-square="${undone.slice(0, 2)}"]`)?.focus();
}

// The keyboard onto the board: its square in the tab order (the one focused last).
function focusBoard(options) {
  $("board").querySelector('[tabindex="0"]')?.focus(options);
}

function undoAll() {
  view.pieces = parsePlacement(view.dfen);
  view.node = view.tree;
  view.partial = [];
  closePromotion();
}

// A roll's `legalMoves` that say it has no legal move ({}), where null is a tree too big to send
// with it: the server passes such a roll at once.
const forcedPass = (legalMoves) => legalMoves != null && !Object.keys(legalMoves).length;

async function takeRoll(dfen, tree) {
  view.dfen = dfen;
  view.pieces = parsePlacement(dfen);
  view.partial = [];
  if (tree === null) tree = (await getJson(`/games/${gameId}/moves`)).body.legalMoves; // too big to inline
  view.tree = view.node = tree;
  turnIntoView();
}

// `pointer`: "Play this turn" was clicked or tapped, which leaves the page's keys (the arrows
// step through the game) as they were; played from the keyboard, the focus goes to the board.
function submit({ pointer = false } = {}) {
  if ($("submit").disabled) return;
  if (view.connection !== "open") { // never "Turn sent" for a turn that was not
    say("Not connected: the turn is kept; play it once the page is back online.");
    return;
  }
  view.waiting = true;
  const command = { moves: view.partial };
  if ($("offer-draw").checked && !$("offer-draw-label").hidden) command.offerDraw = true;
  $("offer-draw").checked = false;
  const fromButton = document.activeElement === $("submit");
  socket.send({ SubmitTurn: command });
  draw();
  // the button disables itself while the turn is sent: a keyboard's focus goes back to the board,
  // not the page's top; a pointer's leaves the button for the page (play-through s72: the arrows
  // then moved among the board's squares instead of through the game)
  if (fromButton && pointer) document.activeElement.blur();
  else if (fromButton) focusBoard({ preventScroll: true });
}

// ----- drawing ------------------------------------------------------------------------------------

function myTurn() {
  return Boolean(view.node) && !view.waiting && !view.ended;
}

// The dice of my roll that the turn cannot play, from the tree below the turn built so far (a
// turn plays as many dice as it can: some may be left) (play-through s71: a die no piece could
// use looked as live as one still to play, beside "Your turn is complete").
const playableMemo = new WeakMap(); // tree node -> playableDice's answer
function unplayableDice(spent) {
  if (!myTurn() || view.diceSeat !== mine || !view.dfen) return [];
  let playable = playableMemo.get(view.node);
  if (!playable) {
    playable = playableDice(view.dice, spent, view.pieces, view.node);
    playableMemo.set(view.node, playable);
  }
  return view.dice.map((_, index) => !spent[index] && !playable[index]);
}

function drawDice() {
  const spent = view.partial.length && view.dfen ? spentDice(view.dice, parsePlacement(view.dfen), view.partial) : [];
  const element = $("dice");
  element.dataset.seat = view.diceSeat || "";
  renderDice(element, view.dice, { spent, unplayable: unplayableDice(spent), rolling: view.rolling,
    side: (view.diceSeat || "White").toLowerCase() });
  view.rolling = false;
  const owner = $("dice-owner");
  owner.textContent = !view.diceSeat ? "" : view.diceSeat === mine ? "Your roll" : `${view.diceSeat}'s roll`;
  owner.dataset.mine = String(Boolean(mine) && view.diceSeat === mine);
}

function drawBoard() {
  if (view.browsing !== null) {
    const index = view.browsing;
    const lastMove = index < 0 ? [] : movedSquares(view.turns[index].moves);
    board.set({ pieces: shownPieces(), orientation: view.orientation, dests: {}, lastMove, animate: false });
  } else {
    const lastTurn = [...view.turns].reverse().find((turn) => turn.moves.length); // a pass moves nothing
    const lastMove = view.partial.length ? movedSquares(view.partial) : lastTurn ? movedSquares(lastTurn.moves) : [];
    board.set({
      pieces: view.pieces, orientation: view.orientation, dests: myTurn() ? destsOf(view.node) : {},
      lastMove, animate: view.animate,
    });
  }
  view.animate = false;
  $("board").dataset.orientation = view.orientation;
  $("board").dataset.browsing = view.browsing === null ? "" : String(view.browsing);
  $("table").dataset.orientation = view.orientation;
  placeStrips();
}

// The strips in the page's order as on the screen, the top one before the board and the bottom
// one after it, so Tab (and a screen reader) meets them as they are seen, flipped or not (the
// stylesheet's order alone turned them on screen only: play-through s64). Focus inside a moved
// strip is given back.
function placeStrips() {
  const [top, bottom] = view.orientation === "white" ? [$("player-black"), $("player-white")] : [$("player-white"), $("player-black")];
  if ($("board").previousElementSibling === top) return;
  const focused = document.activeElement;
  $("board").before(top);
  $("board").after(bottom);
  if (focused && focused !== document.activeElement && (top.contains(focused) || bottom.contains(focused))) focused.focus();
}

// The name of the player of a seat, or null while it has none (a guest, a seat not taken yet).
function playerName(seatName) {
  const face = view.players?.[seatName.toLowerCase()];
  return face?.name ? faceName(face) : null;
}

// Who plays a seat, in a sentence about the game: the player's name where they have one, as
// lichess writes "alice offers a draw" (a rematch draws the colours again: "White" was another
// person from one game to the next), else the colour.
const seatWho = (seatName) => playerName(seatName) ?? seatName;

// The other seat of this page's game, before the game begins, still empty.
function awaitedSeat(seatName) {
  const face = view.players?.[seatName.toLowerCase()];
  return Boolean(view.namesBeforeStart && !view.ended && mine && mine !== seatName && face?.kind !== "Bot" && !face?.name
    && !view.present[seatName]);
}

// The friend's link (this tab created the game) while the friend has not come.
const invite = keptInvite(gameId);
function drawInvite() {
  const waiting = Boolean(invite && mine && awaitedSeat(OTHER[mine]));
  $("invite").hidden = !waiting;
  if (waiting && $("invite-link").value !== invite) $("invite-link").value = invite;
}

async function copyInvite() {
  // the field holds the invite (drawInvite)
  $("invite-copied").textContent = await copyField($("invite-link")) ? "Copied: send it to your friend."
    : "Select the link and copy it (Ctrl+C)."; // selected for it
}

// The seats that have played a turn, as the server counts them (a roll passed for want of a
// move is not one).
function playedSeats() {
  return new Set(view.turns.filter((turn) => turn.moves.length).map((turn) => turn.seat));
}

function abortable() {
  return playedSeats().size < 2;
}

function drawControls() {
  const complete = myTurn() && Object.keys(view.node).length === 0 && view.partial.length > 0;
  $("my-controls").hidden = !mine || view.gone || view.ended;
  $("partial").dataset.moves = view.partial.join(" ");
  let winning = false; // the turn built takes the king: it ends the game, so it offers no draw
  if (view.partial.length && view.dfen) {
    const { texts, kingTaken } = notateTurn(parsePlacement(view.dfen), view.partial);
    winning = kingTaken;
    $("partial").replaceChildren(...texts.map((text, index) => {
      const chip = document.createElement("span");
      chip.className = "chip";
      chip.dataset.uci = view.partial[index];
      chip.textContent = text;
      return chip;
    }));
  } else {
    $("partial").replaceChildren();
  }
  $("partial-row").dataset.empty = view.partial.length ? "" : "true";
  // The turn's row and buttons only while there is a turn to build (or one just sent): during
  // the opponent's turn they would be greyed-out clutter, on a phone between board and moves.
  const building = myTurn() || view.waiting || view.partial.length > 0;
  for (const id of ["partial-row", "submit", "undo"]) $(id).hidden = !building;
  $("submit").disabled = !complete || view.connection !== "open";
  $("undo").disabled = view.partial.length === 0 || view.waiting || view.ended;
  $("resign").textContent = abortable() ? "Abort" : "Resign";
  $("resign").disabled = !mine || view.ended || view.gone;
  $("resign").hidden = view.confirming;
  $("confirm").hidden = !view.confirming || view.ended;
  $("confirm-text").textContent = abortable() ? "Abort the game?" : "Resign the game?";
  // No offer before both sides have played a turn (this one counting): accepted, it would only
  // abort the game, and the server refuses it.
  const bothWillHavePlayed = new Set([...playedSeats(), mine]).size === 2;
  // there throughout one's turn, before its first move too (play-through s74: a chess player
  // looked for a draw button and found none until every die of the turn was spent)
  const offerable = myTurn();
  // a spectator plays no turn (a page whose seat was taken becomes one), nor anyone once it is over
  $("quick-turns").hidden = !mine || view.ended;
  $("offer-draw-label").hidden = !offerable || winning || view.opponentIsBot || view.drawBlocked || !bothWillHavePlayed;
  const offer = view.drawOfferFrom && !view.ended;
  $("draw-offer").hidden = !offer;
  const answering = offer && mine && view.drawOfferFrom !== mine;
  $("draw-accept").hidden = !answering;
  $("draw-decline").hidden = !answering;
  if (offer) {
    $("draw-offer-text").textContent = view.drawOfferFrom === mine
      ? "You offered a draw; waiting for the answer."
      : `${seatWho(view.drawOfferFrom)} offers a draw.`;
  }
  $("notice").textContent = view.notice;
  $("notice").hidden = !view.notice;
  // While a draw offer waits for its answer no roll stands: the dice shown were the offerer's.
  $("dice-row").hidden = !view.dice.length || view.ended || Boolean(offer);
  $("moves-box").hidden = !view.turns.length;
}

// A player's status once both seats are taken, until the first roll.
const STARTING = "The game is starting: the first roll is coming...";

function setStatus(text, kind) {
  const status = $("status");
  status.replaceChildren(text);
  status.dataset.status = kind;
}

// A rematch waiting for both players: the seconds left counted down (read on this page's clock,
// never more than the gate's 15 s).
const REMATCH_GATE_S = 15;
function showRematchWait(deadlineAt) {
  const deadline = Date.parse(deadlineAt);
  const tell = () => {
    const left = Math.min(REMATCH_GATE_S, secondsUntil(deadline));
    setStatus(`Rematch: it starts when both players are here (${left} s).`, "awaiting-joins");
  };
  clearInterval(view.rematchWait);
  tell();
  view.rematchWait = setInterval(() => {
    if ($("status").dataset.status === "awaiting-joins") tell();
    else clearInterval(view.rematchWait);
  }, 1000);
}

function drawStatus() {
  if (view.gone) return;
  if (view.ended) return setStatus("Game over.", "ended");
  if (view.drawOfferFrom) {
    const answerer = OTHER[view.drawOfferFrom];
    // the banner below holds the offer's words (and the answerer's buttons): the status says what to do
    if (mine === answerer) return setStatus("Your answer: accept the draw or decline it.", "draw-answer");
    if (mine) return setStatus(`Waiting for ${seatWho(answerer)}'s answer.`, "draw-answer");
    return setStatus(`${seatWho(answerer)} is answering ${seatWho(view.drawOfferFrom)}'s draw offer.`, "draw-answer");
  }
  if (!view.diceSeat) return;
  if (view.diceSeat === mine && view.waiting) return setStatus("Turn sent...", "sent");
  if (view.diceSeat === mine && view.tree && view.browsing !== null) {
    // the board shows an earlier position, where nothing can be played
    return setStatus(`Your turn: back to the game to play it${KEYBOARD ? " (End)" : ""}.`, "your-turn");
  }
  if (view.diceSeat === mine && view.tree) {
    if (view.promoting) return setStatus(`Your turn: choose what the pawn becomes${KEYBOARD ? " (Escape to move another piece)" : ""}.`, "your-turn");
    if (!view.partial.length || Object.keys(view.node).length) {
      if (view.firstMove?.seat === mine) { // the first-move limit, said where the player looks (counted by tick)
        const left = secondsUntil(view.firstMove.at);
        return setStatus(`Your turn: play your first move within ${left}\u00a0s, or the game is aborted.`, "your-turn");
      }
      return setStatus("Your turn: move the pieces your dice allow.", "your-turn");
    }
    // the turn cannot be sent while the connection is down (the button waits for it)
    return setStatus(view.connection === "open" ? `Your turn is complete: ${PLAY_OR_UNDO}`
      : "Your turn is complete and kept: it can be played once the connection is back.", "your-turn");
  }
  if (view.diceSeat === mine && view.rollOpen && !view.waiting) {
    // my roll without its tree yet: a pass the server plays at once, or a tree too big to inline
    // being read (play-through s71: "White to move: waiting for your opponent." to White)
    return view.rollPassed ? setStatus("Your roll has no legal move: your turn passes.", "passing")
      : setStatus("Your turn: reading the moves your dice allow...", "reading-moves");
  }
  if (mine && view.firstMove?.seat === view.diceSeat) { // the opponent's first-move limit, counted by tick
    const left = secondsUntil(view.firstMove.at);
    return setStatus(`${view.diceSeat} to move: waiting for your opponent's first move (${left}\u00a0s left, or the game is aborted).`, "waiting");
  }
  // the roll shown played, the next one not come yet: the other side moves next
  const next = view.rollOpen ? view.diceSeat : OTHER[view.diceSeat];
  setStatus(mine ? `${next} to move: waiting for your opponent.` : `${next} to move.`, "waiting");
}

// The position on the board: the one looked at in the move list, else the live one (with the
// turn being built).
function shownPieces() {
  if (view.browsing === null) return view.pieces;
  return parsePlacement(view.browsing < 0 ? START_DFEN : view.turns[view.browsing].fenAfter);
}

function drawPlayers() {
  const material = materialOf(shownPieces());
  for (const seat of ["white", "black"]) {
    const face = view.players?.[seat];
    const strip = $(`player-${seat}`);
    const name = strip.querySelector(".name");
    const seatName = seat === "white" ? "White" : "Black";
    // Before the game begins, the other seat of a player's game may still be empty.
    const awaited = awaitedSeat(seatName);
    const href = profileHref(face);
    const label = awaited ? "waiting for a player..." : face ? faceName(face) : ""; // no name before the players are known
    // the name in a span of its own, linked or not: a narrow strip cuts it short there (play.css)
    let text = element("span", label, { class: "label" });
    if (href) {
      text = Object.assign(document.createElement("a"), { href });
      // a bot's "team/name" may go on a line after its slash (the column beside the board on a
      // phone held sideways), rather than break inside a word (play-through s59: "house/rand" "om")
      const [first, ...rest] = label.split("/");
      const shown = element("span", first);
      for (const part of rest) shown.append("/", document.createElement("wbr"), part);
      text.append(shown);
    }
    const parts = [text];
    if (face?.kind === "Bot") parts.unshift(botTag());
    const rating = view.ratings?.[seatName];
    if (rating && face?.name) { // "1662", or "1500?" while provisional (the reason on hover)
      parts.push(ratingLabel(rating.rating, rating.provisional, { compact: true }));
      // after a rated game, what it did to the rating it brought, where lichess writes it: "1500? +12"
      if (view.ended && typeof rating.change === "number") parts.push(ratingChangeTag(rating.change));
    }
    if (mine === seatName) parts.push(element("span", "(you)"));
    const up = materialTag(material[seat]); // the pieces this side is up, and by how much
    if (up) parts.push(up);
    // the name's line (it never wraps: the name gives way), then a player's absence under it
    const line = element("span", null, { class: "line" });
    line.append(...parts.flatMap((part, at) => (at ? [" ", part] : [part])));
    const lines = [line];
    if (view.away[seatName] && !view.ended) {
      const away = element("span", null, { class: "away" });
      showAway(away, seatName);
      lines.push(away);
    } else if (view.firstMove?.seat === seatName && !view.ended) {
      const due = element("span", null, { class: "first-move" });
      showFirstMove(due);
      lines.push(due);
    }
    name.replaceChildren(...lines);
    strip.querySelector(".side").textContent = seatName;
    strip.dataset.toMove = String(!view.ended && (clocks.running || view.diceSeat) === seatName);
  }
}

// The turn that matters in the move list: the newest, or the one being looked at.
function shownTurn(list) {
  if (view.browsing !== null) return list.querySelector(".turn.current");
  const played = list.querySelectorAll(".turn:not(.blank)");
  return played[played.length - 1];
}

// The move list shows that turn.
function keepTurnInView() {
  const list = $("history");
  if (view.browsing === -1) {
    list.scrollTop = 0; // the start: the list from its first move
    return;
  }
  keepInView(list, shownTurn(list));
}

function draw() {
  if (view.gone) return; // the page says the game does not exist: nothing of it is left to draw
  keepPartial();
  drawBoard();
  drawDice();
  drawControls();
  drawStatus();
  drawPlayers();
  drawInvite();
  drawMoves();
  const names = view.players ? `${faceName(view.players.white)} vs ${faceName(view.players.black)}` : "game";
  document.title = `${myTurn() ? "\u25CF Your turn - " : ""}${names} - playsite`;
}

// ----- the move list ----------------------------------------------------------------------------

function drawMoves() {
  const list = $("history");
  const rows = [];
  const strip = [];
  let pieces = parsePlacement(START_DFEN);
  view.turns.forEach((turn, index) => {
    const unused = unusedDice(turn.dice || [], pieces, turn.moves); // faded: what the turn left
    const { texts, spoken, after } = notateTurn(pieces, turn.moves);
    strip.push({ seat: turn.seat, texts });
    pieces = turn.fenAfter ? parsePlacement(turn.fenAfter) : after;
    const number = moveNumber(index);
    let row = rows[rows.length - 1];
    if (!row || turn.seat === "White" || row.children.length >= 3) {
      row = document.createElement("li");
      row.className = "move-row";
      const label = document.createElement("span");
      label.className = "number";
      label.textContent = `${number}.`;
      row.append(label);
      if (turn.seat === "Black") {
        const blank = document.createElement("span");
        blank.className = "turn blank";
        blank.textContent = "...";
        row.append(blank);
      }
      rows.push(row);
    }
    const button = document.createElement("button");
    button.type = "button";
    button.className = "turn";
    button.dataset.index = String(index);
    button.dataset.seat = turn.seat;
    button.dataset.moves = turn.moves.join(" ");
    button.tabIndex = -1;
    const moves = document.createElement("span");
    moves.className = "turn-moves";
    if (!turn.moves.length) moves.textContent = "pass";
    texts.forEach((text, at) => {
      const move = document.createElement("span");
      move.className = "micro";
      move.textContent = text;
      moves.append(...(at ? [" ", move] : [move]));
    });
    const dice = document.createElement("span");
    // the turn's dice as small pictures, as the replay's list draws them (the button's label says them)
    dice.className = "turn-dice small";
    dice.setAttribute("aria-hidden", "true");
    renderDice(dice, turn.dice || [], { unplayable: unused, side: turn.seat === "Black" ? "black" : "white" });
    const named = diceWords(turn.dice || []); // as the live region says them
    dice.title = `dice: ${named}`;
    button.append(moves, " ", dice);
    if (turn.drawOffer) {
      const note = document.createElement("span");
      note.className = "note";
      // the game's last turn, in a game drawn: the offer that was accepted
      const accepted = Boolean(view.over?.result?.Draw) && index === view.turns.length - 1;
      note.textContent = drawNote(turn.drawOffer, turn.declined, accepted);
      button.append(note);
    }
    button.setAttribute("aria-label", `${turn.seat}, dice ${named}: ${turn.moves.length ? spoken.join(", ") : "no legal move, passed"}`); // in words, as announced
    button.setAttribute("aria-current", String(view.browsing === index));
    if (view.browsing === index) button.classList.add("current");
    button.addEventListener("click", () => { browse(index); bringIntoSight($("table")); });
    row.append(button);
  });
  // The buttons are made anew: one that had the focus hands it to its successor (the turn shown),
  // or a keyboard player stepping through the list would be sent back to the page's top.
  const focused = list.contains(document.activeElement);
  list.replaceChildren(...rows);
  if (focused) shownTurn(list)?.focus({ preventScroll: true });
  keepTurnInView();
  const back = view.ended ? "Back to the end" : "Back to the game";
  // the phone's line: the turn looked at, or the newest; the way back while looking back
  drawMoveStrip($("move-strip"), strip, view.browsing ?? strip.length - 1, view.browsing === null ? null : back);
  $("back-live").hidden = view.browsing === null;
  $("back-live").textContent = back;
  $("browse-note").hidden = view.browsing === null;
  if (view.browsing !== null) {
    const shown = view.turns[view.browsing];
    $("browse-note").textContent = view.browsing < 0 ? "The start position"
      : `After ${shown.seat}'s move ${moveNumber(view.browsing)}`; // numbered as the list's rows
  }
}

function browse(index) {
  const last = view.turns.length - 1;
  if (index === null || index > last || (index === last && view.partial.length === 0)) {
    view.browsing = null;
  } else {
    view.browsing = Math.max(-1, index);
  }
  draw();
}

function step(delta) {
  const from = view.browsing === null ? view.turns.length - 1 : view.browsing;
  if (view.browsing === null && delta > 0) return;
  browse(from + delta);
}

// ----- clocks ---------------------------------------------------------------------------------------

// The server's clocks, `running` the seat whose clock runs (none once the game is over);
// `final`: the clocks of an ended game as the server stopped them.
function setClocks(values, running, { final = false } = {}) {
  clocks.set(values, view.ended ? null : running, { final });
}

// "left the game: loses in 23 s" while a player is away (Presence frames), counted down here.
function awayWords(seatName) {
  const at = view.away[seatName];
  const left = typeof at === "number" ? secondsUntil(at) : null;
  // the server restarted a moment ago: this player was here and their page (or bot) is coming back
  if (reconnecting(seatName)) return [["reconnecting", false], [" after a server restart", true]];
  // [text, spared on a phone]: the words a narrow strip does without, so the count stays whole
  if (view.unarrived[seatName]) {
    return left === null ? [["not here", false], [" yet", true]]
      : [["not here", false], [" yet", true], [`: aborted in ${left} s`, false], [" unless they come", true]];
  }
  if (left === null) return [["left", false], [" the game", true]];
  // before both sides have played a turn, leaving aborts the game rather than losing it
  return [["left", false], [" the game", true], [`: ${abortable() ? "aborted" : "loses"} in ${left} s`, false], [" unless back", true]];
}

const reconnecting = (seatName) => Boolean(view.reconnecting[seatName]) && Date.now() < view.reconnecting[seatName];

// "first move: 23 s left, or the game is aborted" (on a phone "first move: 23 s") under the name of a
// player who has not played a turn yet (FirstMove frames), counted down here; red from 10 s.
function showFirstMove(due) {
  const left = secondsUntil(view.firstMove.at);
  const whole = `first move: ${left} s left, or the game is aborted`;
  due.classList.toggle("soon", left <= 10);
  if (due.title === whole) return;
  due.replaceChildren(`first move: ${left} s`, element("span", " left, or the game is aborted", { class: "spared" }));
  due.title = whole;
}

// The absence's line, "left the game: loses in 27 s unless back"; on a phone "left: loses in 27 s",
// so the count stays on screen. The whole sentence is its tooltip.
function showAway(away, seatName) {
  const parts = awayWords(seatName);
  const whole = parts.map(([text]) => text).join("");
  if (away.title === whole) return;
  away.replaceChildren(...parts.map(([text, spared]) => (spared ? element("span", text, { class: "spared" }) : text)));
  away.title = whole;
  away.classList.toggle("reconnecting", reconnecting(seatName));
}

function tick() {
  if (view.gone) return; // the page says the game does not exist: nothing of it is left to draw
  for (const seatName of ["White", "Black"]) {
    const strip = $(`player-${seatName.toLowerCase()}`);
    const away = strip.querySelector(".away");
    if (view.reconnecting[seatName] && !reconnecting(seatName)) {
      view.reconnecting[seatName] = null; // not back in time: gone, as any player who left
      if (view.away[seatName] && !view.ended) announce(`${seatName} left the game.`);
    }
    if (away && view.away[seatName]) showAway(away, seatName);
    const due = strip.querySelector(".first-move");
    if (due && view.firstMove?.seat === seatName) showFirstMove(due);
  }
  if (mine && view.firstMove && !view.ended) drawStatus();
  clocks.draw({ white: $("clock-white"), black: $("clock-black") }, {
    ended: view.ended, mine,
    onLow: () => {
      playSound("low");
      announce("Low time.");
    },
  });
}

function readTimeControl(control) {
  clocks.readControl(control);
  if (!control) return;
  view.clockWords = timeControlLabel(control);
  view.timeControl = control;
  drawGameKind();
}

// "10+10 · Rated" or "· Casual", as a chess site says it: rated as known now (a friend game
// created rated turns casual when a guest takes a seat).
function drawGameKind() {
  $("time-control").textContent = [view.clockWords, view.rated ? "Rated" : "Casual"].filter(Boolean).join(" \u00b7 ");
}

// ----- the end --------------------------------------------------------------------------------------

// Why the game was aborted, as far as this page saw (the record says it for sure): null once both
// sides have played a turn (as the server counts: a turn played, not a roll passed for want of a
// move), when both players left or the server could not go on.
function abortSeen() {
  if (!abortable()) return null;
  const late = clocks.outOfTime();
  if (late) return { cause: "timeout", seat: late };
  const absent = ["White", "Black"].find((seat) => view.unarrived[seat]);
  if (absent) return { cause: "not_joined", seat: absent };
  // the first-move limit ran out (the server aborts at that instant; this page's clock may differ a little)
  if (view.firstMove && view.firstMove.at - Date.now() < 2000) return { cause: "first_move", seat: view.firstMove.seat };
  return null;
}

// The result's second line, as `endingWords` has it now (drawn again when the server's final
// clocks or the game's record say more than this page saw).
function showEndingDetail(over) {
  const { detail } = endingWords(over);
  $("result-detail").textContent = detail;
  $("result-detail").hidden = !detail;
}

function endingWords(over) {
  const result = over.result;
  const termination = over.termination;
  if (result === null || termination === "Aborted") {
    // The game's record says why (`abort`, or `technical` for the server's own); until it is
    // read, what this page saw happen.
    const why = whyAborted({ abort: view.aborted?.abort ?? abortSeen(), technical: view.aborted?.technical },
      { you: mine, opponent: "your opponent" });
    const detail = why ? `${sentence(why)}: no result, no rating.`
      : !abortable() ? "No result, no rating: both players were away, or the server could not go on."
        : "It ended before both sides had played a turn: no result, no rating.";
    return { title: "Game aborted", detail };
  }
  // under the title, the score as chess players write it and who did what, as lichess's end of a
  // game says it (play-through s71: "You won: king captured" and nothing more)
  if (result.Draw) {
    const last = view.turns[view.turns.length - 1];
    return last?.drawOffer ? { title: "Draw by agreement", detail: "\u00bd\u2013\u00bd \u00b7 Both players agreed to a draw." }
      : { title: "Draw", detail: "\u00bd\u2013\u00bd \u00b7 100 micro-moves without a capture or a pawn move." };
  }
  const winner = result.Win.side;
  const loser = OTHER[winner];
  const title = mine ? (mine === winner ? "You won" : "You lost") : `${winner} won`;
  const score = winner === "White" ? "1\u20130" : "0\u20131";
  const who = (seat) => (seat === mine ? "You" : seatWho(seat)); // a name as it is written ("demo/featured")
  if (termination === "KingCaptured") {
    const square = view.turns[view.turns.length - 1]?.moves.at(-1)?.slice(2, 4);
    const king = mine === loser ? "your king" : `${loser}'s king`;
    return { title: `${title}: king captured`, detail: `${score} \u00b7 ${who(winner)} took ${king}${square ? ` on ${square}` : ""}.` };
  }
  if (termination === "Timeout") {
    return { title: `${title} on time`, detail: `${score} \u00b7 ${mine === loser ? "Your" : `${seatWho(loser)}'s`} time ran out.` };
  }
  // A seat away when its game ends by "resignation" forfeited for not coming back (the wire
  // carries that forfeit as a resignation; an away seat cannot resign). A page opened after the
  // end learns it from the game's record (`disconnect`).
  const left = view.away[loser] || view.forfeit;
  const how = left ? "left the game" : "resigned";
  if (termination === "Resign") {
    const said = left ? `${who(loser)} left the game and did not come back in time.` : `${who(loser)} resigned.`;
    return { title: `${title}: ${mine === loser ? "you" : loser} ${how}`, detail: `${score} \u00b7 ${said}` };
  }
  return { title, detail: `${score} \u00b7 ${sentence(termination.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase())}.` };
}

function showOver(over, { fresh }) {
  // The clocks stop where they are (the running one is not put back to its last roll's value);
  // a seat that lost on time has none left.
  if (clocks.running) clocks.stop(clocks.running, 0);
  if (over.termination === "Timeout" && over.result?.Win) clocks.flag(OTHER[over.result.Win.side]);
  view.ended = true;
  view.over = over;
  $("last-game").hidden = true; // the result below says this game's ratings, not the last one's
  $("signed-out").hidden = true; // no seat to take back
  // A turn this page was building, or had sent, that the game ended before playing is not part of
  // it (a played one came first, as TurnPlayed): the board goes back to the roll's position, where
  // the game ended, as the opponent's page and a reload show it.
  if (view.partial.length && view.dfen) undoAll();
  view.waiting = false;
  view.node = null;
  clocks.running = null;
  view.confirming = false;
  view.drawOfferFrom = null;
  view.notice = "";
  say(""); // a sentence about the game in play (a declined draw, a refusal) is over with it
  const { title } = endingWords(over);
  $("result-title").textContent = title;
  showEndingDetail(over);
  $("result-rated").hidden = !view.rated || over.result === null; // an aborted game changes no rating
  $("replay").href = `/replay/${gameId}`;
  $("replay").hidden = view.turns.length === 0; // nothing to replay (the seed can still be checked)
  $("verify").href = `/replay/${gameId}#fairness`;
  // A keyboard's focus on a control the end hides (Resign, the turn's buttons) goes to the result,
  // from where Tab reaches the rematch and "New game", never to the page's top.
  const stranded = document.activeElement === document.body || document.activeElement?.closest("#my-controls");
  $("result").hidden = false;
  if (fresh && stranded) $("result-title").focus({ preventScroll: true });
  $("result").dataset.outcome = over.result === null ? "aborted" : over.result.Draw ? "draw" : mine ? (over.result.Win.side === mine ? "won" : "lost") : "decided";
  if (fresh) {
    playSound("end");
    announce(`Game over. ${title}.`);
    // This page's count of the clocks lags the server's on a busy machine (a late frame starts it
    // late): the final clocks, each stopped where the end found it, replace it, and say whose
    // clock ran out when a game is aborted on time.
    getJson(`/games/${gameId}`).then((answer) => {
      if (answer.status !== 200 || !answer.body?.status?.Ended || !answer.body.clocks || view.over !== over) return;
      setClocks(answer.body.clocks, null, { final: true });
      showEndingDetail(over);
      draw();
    }).catch(() => {});
  }
  // The new ratings, once the batch has rated the game, beside the result and in the strips
  // (which kept the old ones).
  if (view.rated && over.result !== null) { // a later Snapshot's end takes over (until)
    siteInfo().then(({ ratingPeriodS }) => {
      // when the game counts: the server updates ratings in periods (an hour, unless configured)
      const box = $("result-rated");
      if (ratingPeriodS && box.dataset.ratings !== "applied") {
        box.textContent = `Rated game: ratings are updated ${periodWords(ratingPeriodS)}; this game counts at the next update.`;
      }
      followRatingChanges(box, gameId, view.players, mine, {
        onChange: showNewRatings, until: () => view.over !== over, forMs: ((ratingPeriodS || 0) + 30) * 1000,
      });
    });
  }
  let recordRead = Promise.resolve();
  if (over.termination === "Resign" || over.termination === "Aborted") {
    // The record says whether a "resignation" was a forfeit for leaving (or for never coming:
    // a rematch's seat nobody took, which no Presence ever named away) and why a game was aborted.
    recordRead = getJson(`/games/${gameId}/history`).then((answer) => {
      if (view.over !== over || answer.status !== 200) return;
      if (answer.body.disconnect && !view.forfeit) {
        view.forfeit = true;
        $("result-title").textContent = endingWords(over).title;
        showEndingDetail(over);
      }
      // a game ended on its first roll has that roll in its record, to replay and check
      if (answer.body.unplayedRoll) $("replay").hidden = false;
      if (answer.body.abort || answer.body.technical) {
        view.aborted = { abort: answer.body.abort ?? null, technical: !!answer.body.technical };
        showEndingDetail(over);
      }
    }).catch(() => {});
  }
  // a game against the showcase's bot or another bot, which answer no rematch: "Play <bot> again"
  offerPlayAgain(gameId, () => ({ mine, players: view.players, timeControl: view.timeControl, rated: view.rated }));
  // The rematch control shows at once on the authoritative end; a spectator follows the chain.
  // Rematches are kept in the database: a server without one has none to offer.
  if (!afterGame) {
    afterGame = { now() {} };
    // An opponent who was away when the game ended, or whom the record says forfeited by leaving
    // or never came, is offered no rematch: nobody is there to answer it.
    const opponent = mine && OTHER[mine];
    const awayAtTheEnd = mine && (view.away[opponent] || view.unarrived[opponent]);
    // an abort the record puts down to the opponent's leaving (or never coming), or both leaving
    const leftAbort = (abort) => abort && (abort.cause === "both_away"
      || (["disconnect", "not_joined"].includes(abort.cause) && (!abort.seat || abort.seat === opponent)));
    Promise.all([siteInfo(), recordRead]).then(([site]) => {
      if (!site.ratings) return;
      if (awayAtTheEnd || (mine && view.forfeit && over.result?.Win?.side === mine) || (mine && leftAbort(view.aborted?.abort))) {
        noRematch($("rematch-slot"), "Your opponent has left: no rematch.");
        return;
      }
      // the one who forfeited by leaving, back at the board: the other side was told there is
      // none (play-through s72: a Rematch offered here counted down to nobody)
      if (mine && view.forfeit) {
        noRematch($("rematch-slot"), "You left the game: no rematch.");
        return;
      }
      afterGame = mine
        ? mountRematch($("rematch-slot"), {
          gameId, token, opponent: playerName(opponent), onConnection: showConnectionLost, watchedEnd: fresh,
        })
        : followContinuation(gameId, { slot: $("rematch-slot"), watchedEnd: fresh });
    });
  }
}

let afterGame = null; // the rematch poller, once the game is over

// ----- connection -----------------------------------------------------------------------------------

let rematchLost = false;
function showConnectionLost(lost) {
  rematchLost = lost;
  drawConnection();
}

function drawConnection() {
  if (view.gone) return; // the page says the game does not exist: nothing of it is left to draw
  const state = view.connection;
  const element = $("connection");
  element.dataset.state = state;
  element.textContent = { open: "live", connecting: "connecting...", closed: "reconnecting...", ended: "" }[state] ?? state;
  const lost = (view.everOpen && (state === "closed" || state === "connecting") && !view.ended) || rematchLost;
  $("connection-lost").hidden = !lost;
}

// Where the game stands when its socket will not open: "gone" (no such game), "over" (it ended
// and is no longer served live: long over, or over before the server restarted), else "on"
// (the socket is refused for another reason, or the server cannot be reached).
async function gameStanding() {
  try {
    const answer = await getJson(`/games/${gameId}`);
    if (answer.status === 404) return "gone";
    if (answer.status === 200 && answer.body?.status?.Ended) return "over";
  } catch {
    // not reachable: the socket goes on trying
  }
  return "on";
}

function showGone() {
  view.gone = true;
  showMissingGame();
}

// ----- events ---------------------------------------------------------------------------------------

// `live`: the game is not over (only a live game's ratings are read: GET /games/{id}/ratings).
function setPlayers(players, { live = true } = {}) {
  const named = (faces) => JSON.stringify([faces?.white, faces?.black]);
  const changed = named(players) !== named(view.players);
  view.players = players || null;
  const opponent = mine ? players?.[OTHER[mine].toLowerCase()] : null;
  view.opponentIsBot = opponent?.kind === "Bot";
  if (changed && live) readRatings(true);
}

// Each named player's rating beside their name, as lichess shows it, read when the names are
// known or change, and again now and then while the game is on (a rating period may count
// an earlier game meanwhile). A game no longer live, a server without ratings: none read.
async function readRatings(live = !view.ended) {
  if (!live || view.gone || !(await siteInfo()).ratings) return;
  const answer = await getJson(`/games/${gameId}/ratings`).catch(() => null);
  if (answer?.status !== 200) return;
  view.ratings = { White: answer.body.white, Black: answer.body.black };
  drawPlayers();
}

// A finished rated game's ratings once the batch has rated it ({white: {before: 1500, change:
// 12, provisional: true}, ...}): the strips show the rating each player brought to the game and
// what the game did to it ("1500? +12"), as lichess does and as the replay does (play-through
// s71: the strips showed the new rating beside the change, the replay the old one); the result
// box says the new ones. "?" as the game began, when this page knew it.
function showNewRatings(known) {
  for (const [seat, rating] of Object.entries(known)) {
    const name = seat === "white" ? "White" : "Black";
    const provisional = view.ratings?.[name]?.provisional ?? rating.provisional;
    view.ratings = { ...view.ratings, [name]: { rating: rating.before, provisional, change: rating.change } };
  }
  drawPlayers();
}

// The players' names from GET /games/<id>, drawn when they arrive (a failed read keeps the old ones).
async function readPlayers() {
  const answer = await getJson(`/games/${gameId}`).catch(() => null);
  if (answer?.status !== 200 || !answer.body?.players) return;
  setPlayers(answer.body.players, { live: !answer.body.status?.Ended });
  setRated(Boolean(answer.body.rated));
  drawGameKind();
  draw();
}

// Rated as the server says now. A game that was rated on this page and is casual now (a guest
// took a seat, or one player holds both) says why, once.
function setRated(rated) {
  const lost = view.rated && !rated && !view.ended;
  view.rated = rated;
  if (!lost || !view.players) return;
  const { white, black } = view.players;
  const guest = [white, black].some((face) => face?.kind === "Human" && !face.name);
  const same = white?.name && white.kind === black?.kind && white.name === black?.name;
  if (guest) say("This game is casual now: a player who is not signed in took a seat.", { news: true });
  else if (same) say("This game is casual now: the same player holds both seats.", { news: true });
}

// The dice's commitment, shown while the game is played (the replay says it was) and kept in
// this browser for the replay to compare with the record's.
function showCommitment(commit) {
  if (typeof commit !== "string" || !commit) return;
  $("commit-short").textContent = `${commit.slice(0, 12)}\u2026`;
  $("commit-full").textContent = commit;
  $("commitment").hidden = false;
  rememberCommitment(gameId, commit);
}

// This seat's share of the dice: a random client seed sent before the first roll, so the rolls
// follow from the server's committed seed and both players' (docs/dice.md); none of the three
// alone decides them. Sent again on each Snapshot until the first roll: the server keeps the
// first it accepts and ignores the rest (and any after the roll).
function offerSeed(state, history) {
  if (!mine || !state.status.Active || state.dicePending || history.length) return;
  socket.send({ SubmitSeed: { seed: randomSeed() } });
}

function rollNotice(seat, dice) {
  const words = diceWords(dice);
  if (seat === mine) return `You had no legal move with ${words}: your turn passed.`;
  return `${seat} had no legal move with ${words}: turn passed.`;
}

const PASSES_SAID = 3;

// Every pass since the last turn that moved something, each in its sentence (the newest
// PASSES_SAID): two in a row ("1. pass pass") are both said, not only the second. `current`: a
// roll just made that passes, not yet among the turns. A player who has not moved yet and whose
// rolls passed before the page was open (a bot playing fast in between) is told so too.
function passNotice(current = null) {
  const run = [];
  for (let at = view.turns.length - 1; at >= 0 && !view.turns[at].moves.length; at -= 1) run.unshift(view.turns[at]);
  if (current) run.push(current);
  const said = run.slice(-PASSES_SAID).map((turn) => rollNotice(turn.seat, turn.dice));
  const earlier = mine && !view.turns.some((turn) => turn.seat === mine && turn.moves.length)
    ? view.turns.filter((turn) => turn.seat === mine && !run.includes(turn)).length : 0;
  if (earlier) said.unshift(`Your ${earlier === 1 ? "roll" : `${earlier} rolls`} before had no legal move: passed.`);
  return said.join(" ");
}

async function onEvent(event) {
  const [kind, body] = Object.entries(event)[0];
  if (kind === "Snapshot") {
    const state = body.state;
    view.away = {}; // the server tells who is away after a Snapshot
    view.unarrived = {};
    view.reconnecting = {};
    view.firstMove = null; // and whose first move is due
    view.ended = false;
    view.waiting = false;
    setPlayers(state.players, { live: !state.status.Ended });
    view.namesBeforeStart = !state.status.Ended && !state.dicePending && !body.history.length;
    setRated(Boolean(state.rated));
    readTimeControl(state.timeControl); // and says rated or casual
    // a rematch draws colours afresh (not swapped, as a player may expect): said before it begins
    if (state.rematchStartup && !state.status.Ended) {
      // a player, before it begins; a spectator whenever it comes (one who followed the players
      // comes a poll later, when a passed first roll may already be in the history: CI, s61)
      if (mine && !body.history.length) say(`A rematch: colours are drawn afresh, and you play ${mine}.`, { news: true });
      else if (!mine) say("A rematch of the game before: the colours are drawn afresh.", { news: true });
    }
    view.turns = body.history.map((turn) => ({
      seat: turn.seat, dice: turn.dice, moves: turn.moves, fenAfter: turn.fenAfter,
      drawOffer: Boolean(turn.drawOffer), declined: Boolean(turn.drawDeclined), // playsite's extensions
    }));
    // a page opened after this seat's offer was declined (a reload) knows it may not offer again
    // until the opponent has: the newest offer of the history says (the server refuses it too)
    const newestOffer = [...view.turns].reverse().find((turn) => turn.drawOffer);
    view.drawBlocked = Boolean(mine && newestOffer?.seat === mine && newestOffer.declined);
    view.pieces = parsePlacement(state.dfen);
    view.dfen = state.dfen;
    // the turn being built: this page's (a reconnect), else this tab's before a reload
    const kept = view.partial.length ? { dfen: view.dfen, partial: view.partial } : partialBeforeReload ?? { dfen: null, partial: [] };
    partialBeforeReload = null;
    view.tree = view.node = null;
    view.partial = [];
    closePromotion();
    view.drawOfferFrom = null;
    view.notice = "";
    view.rollPassed = false;
    view.rollOpen = Boolean(state.dicePending) && !state.status.Ended;
    const underWay = state.status.Active && (state.dicePending || body.history.length > 0);
    setClocks(state.clocks, underWay ? state.activeSeat : null, { final: Boolean(state.status.Ended) });
    view.diceSeat = null;
    view.dice = [];
    if (state.status.Ended) {
      const last = view.turns[view.turns.length - 1];
      if (last) { view.dice = last.dice; view.diceSeat = last.seat; }
      showOver(state.status.Ended.over, { fresh: false });
    } else if (state.dicePending) {
      view.notice = passNotice();
      view.dice = diceOf(state.dfen);
      view.diceSeat = state.activeSeat;
      view.rollPassed = forcedPass(state.legalMoves);
      if (state.activeSeat === mine && !view.rollPassed) {
        await takeRoll(state.dfen, state.legalMoves);
        // A reconnect or a reload to the same roll keeps the turn being built (only moves the
        // roll's tree holds are replayed).
        if (kept.dfen === state.dfen) replayPartial(kept.partial);
      }
    } else if (body.history.length) {
      // a game under way with no roll pending: the last turn offered a draw, the seat to move answers
      view.drawOfferFrom = OTHER[state.activeSeat];
      view.turns[view.turns.length - 1].drawOffer = true;
    } else if (state.rematchStartup?.phase === "awaiting_joins") {
      showRematchWait(state.rematchStartup.joinDeadlineAt);
    } else if (mine && awaitedSeat(OTHER[mine])) {
      setStatus("Waiting for your opponent to join...", "waiting-players");
    } else {
      // both seats taken (a bot's, a named player's): the first roll comes within moments
      setStatus(mine ? STARTING : "Waiting for the game to start...", "waiting-players");
    }
    offerSeed(state, body.history);
    showCommitment(state.commit);
    if (mine && !state.status.Ended) turnIntoView();
  } else if (kind === "DiceRolled") {
    if (view.namesBeforeStart) {
      // The game begins once both seats are taken: whoever sat down after this page's Snapshot
      // has a name now (the socket's events carry none).
      view.namesBeforeStart = false;
      readPlayers();
    }
    view.drawOfferFrom = null;
    setClocks(body.clocks, body.seat);
    view.dice = body.dice;
    view.diceSeat = body.seat;
    view.rolling = true;
    view.dfen = body.dfen;
    view.pieces = parsePlacement(body.dfen);
    const pass = forcedPass(body.legalMoves);
    view.rollPassed = pass;
    view.rollOpen = true;
    if (pass) view.notice = passNotice({ seat: body.seat, dice: body.dice }); // it stays until a turn moves something
    playSound("dice");
    const words = diceWords(body.dice); // lowest first, as the dice are drawn
    if (pass) announce(rollNotice(body.seat, body.dice));
    else if (body.seat === mine) announce(`Your turn. Dice: ${words}.`);
    else announce(`${body.seat} rolled ${words}.`);
    if (body.seat === mine && !pass) {
      view.browsing = null; // my roll brings the live board back
      await takeRoll(body.dfen, body.legalMoves);
    }
  } else if (kind === "TurnPlayed") {
    const before = parsePlacement(view.turns.length ? view.turns[view.turns.length - 1].fenAfter : START_DFEN);
    const { spoken, capture } = notateTurn(before, body.moves);
    view.turns.push({ seat: body.seat, dice: view.diceSeat === body.seat ? view.dice : [], moves: body.moves, fenAfter: body.fenAfter, drawOffer: Boolean(body.drawOffer) });
    view.rollOpen = false;
    view.animate = body.seat !== mine;
    view.pieces = parsePlacement(body.fenAfter);
    clocks.stop(body.seat, clocks.incrementMs);
    if (body.seat === mine) { view.tree = view.node = null; view.partial = []; view.waiting = false; }
    if (view.firstMove?.seat === body.seat) view.firstMove = null; // played, or passed (a new frame comes with its next roll)
    if (body.drawOffer) {
      view.drawOfferFrom = body.seat;
      setClocks(clocks.values, OTHER[body.seat]); // the answerer's clock runs while it decides
      if (body.seat !== mine) view.drawBlocked = false; // the opponent offered: mine may follow again
    }
    if (body.moves.length) {
      if (body.seat !== mine) playSound(capture ? "capture" : "move");
      if (body.seat !== mine) announce(`${body.seat} played ${spoken.join(", ")}.${body.drawOffer ? " A draw is offered." : ""}`);
      view.notice = "";
      say(""); // a sentence about the game in play (a declined draw, a refusal) is over with a turn played
    }
  } else if (kind === "Presence") {
    // a seat told of while its player is unnamed here: someone sat down (or was named) since
    const face = view.players?.[body.seat.toLowerCase()];
    if (face && face.kind === "Human" && !face.name) readPlayers();
    const was = Boolean(view.away[body.seat]);
    view.away[body.seat] = body.away ? (body.forfeitAt ? Date.parse(body.forfeitAt) : true) : null;
    view.unarrived[body.seat] = body.away && body.arrived === false;
    view.reconnecting[body.seat] = body.away && body.reconnectingUntil ? Date.parse(body.reconnectingUntil) : null;
    if (body.away && !was && reconnecting(body.seat)) announce(`${body.seat} is reconnecting after a server restart.`);
    else if (body.away && !was) {
      announce(view.unarrived[body.seat] ? `${body.seat} is not here yet.` : `${body.seat === mine ? "You" : body.seat} left the game.`);
    }
    else if (!body.away && was) announce(`${body.seat} is back.`);
    if (!body.away && mine && body.seat !== mine && awaitedSeat(body.seat)) {
      // the opponent sat down (the game begins): no longer waiting for them to join
      view.present[body.seat] = true;
      setStatus(STARTING, "waiting-players");
      announce("Your opponent is here. The game is starting.");
      drawInvite();
    }
    drawPlayers();
  } else if (kind === "Watching") {
    // "N watching": the game's spectators, a spectator's own page among them, told after the
    // Snapshot and within a second of a change
    $("watching").textContent = `${body.count} watching`;
    $("watching").hidden = body.count === 0;
  } else if (kind === "FirstMove") {
    view.firstMove = { seat: body.seat, at: Date.parse(body.abortAt) };
    // A person's first turn is not on their clock (the limit stands in for it): it shows what
    // the roll said, still.
    if (clocks.running === body.seat) setClocks(clocks.values, null);
    if (body.seat === mine) {
      announce(`Play your first move within ${secondsUntil(view.firstMove.at)} seconds, or the game is aborted.`);
    }
    drawPlayers();
  } else if (kind === "GameEnded") {
    showOver(body.over, { fresh: true });
  } else if (kind === "Rejected") {
    if (body.seat === mine) {
      view.waiting = false;
      say(`Refused: ${body.reason}`);
      if (view.tree) undoAll();
    }
  } else if (kind === "DrawDeclined") {
    if (body.seat !== mine && mine) view.drawBlocked = true;
    const offered = [...view.turns].reverse().find((turn) => turn.drawOffer);
    if (offered) offered.declined = true;
    view.drawOfferFrom = null;
    const declined = body.seat === mine ? "You declined the draw." : `${seatWho(body.seat)} declined the draw.`;
    say(declined, { news: true });
    announce(declined);
  } else if (kind === "Error" && body.reason?.startsWith("seed ignored")) {
    // this page's own seed came too late, or again after a reconnect: the dice go on without it
  } else if (kind === "Error") {
    view.waiting = false;
    say(`Error: ${body.reason}`);
  }
  draw();
}

// ----- layout -------------------------------------------------------------------------------------

function fit() {
  if (view.gone) return; // the page says the game does not exist: nothing of it is left to draw
  fitBoard({ player: Boolean(mine) });
}

// ----- controls and keys ------------------------------------------------------------------------------

function flip() {
  view.orientation = view.orientation === "white" ? "black" : "white";
  draw();
}

function drawQuickTurns() {
  const on = quickTurns();
  $("quick-turns").setAttribute("aria-pressed", String(on));
  $("quick-turns").textContent = on ? "Turns play at once" : "Play turns at once";
}

function drawMute() {
  const muted = isMuted();
  $("mute").setAttribute("aria-pressed", String(muted));
  // A toggle: its name ("Mute sound", aria-label) stays, aria-pressed and its look say whether
  // it is on; the words say what is the case ("Sound on" read as a command to some).
  $("mute").textContent = muted ? "Sound muted" : "Mute sound";
}

function answerDraw(accept) {
  socket.send({ AnswerDraw: { accept } });
  $("draw-accept").hidden = $("draw-decline").hidden = true;
}

$("role").textContent = mine ? `You play ${mine}` : "Watching";
$("submit").addEventListener("click", (event) => submit({ pointer: event.detail > 0 }));
$("invite-copy").addEventListener("click", copyInvite);
$("undo").addEventListener("click", undo);
// the skip link lands on the board's square in the tab order (where the arrow keys take over)
$("skip-to-board").addEventListener("click", (event) => {
  event.preventDefault();
  focusBoard();
});
$("resign").addEventListener("click", () => { view.confirming = true; draw(); $("confirm-no").focus(); });
$("confirm-yes").addEventListener("click", () => { view.confirming = false; socket.send({ Resign: {} }); draw(); $("resign").focus(); });
$("confirm-no").addEventListener("click", () => { view.confirming = false; draw(); $("resign").focus(); });
$("draw-accept").addEventListener("click", () => answerDraw(true));
$("draw-decline").addEventListener("click", () => answerDraw(false));
$("flip").addEventListener("click", flip);
$("mute").addEventListener("click", () => { setMuted(!isMuted()); drawMute(); });
$("quick-turns").addEventListener("click", () => {
  try { localStorage.setItem(QUICK_KEY, quickTurns() ? "0" : "1"); } catch { /* storage off: stays as it was */ }
  drawQuickTurns();
  draw(); // the draw-offer box shows while a turn is built, or once it is complete
});
$("back-live").addEventListener("click", () => browse(null));
$("move-strip").addEventListener("click", (event) => {
  if (event.target.closest(".strip-live")) {
    browse(null);
    return;
  }
  const turn = event.target.closest(".turn");
  if (!turn) return;
  const index = Number(turn.dataset.index);
  // the newest: back to the game, with the turn being built (the list's button shows the
  // position after it, without that turn: play-through s62 was stuck there on a phone)
  browse(index === view.turns.length - 1 ? null : index);
});
$("first").addEventListener("click", () => browse(-1));
$("previous").addEventListener("click", () => step(-1));
$("next").addEventListener("click", () => step(1));
$("last").addEventListener("click", () => browse(null));

// Enter on the board plays a turn that was already complete (keyboard players build it there).
// Caught before the board's own handler, so the Enter that completes a turn only completes it.
document.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || event.altKey || event.ctrlKey || event.metaKey) return;
  if (!event.target.closest?.("#board") || $("submit").disabled || board.promoting) return;
  event.preventDefault();
  event.stopPropagation();
  submit();
}, true);

// Escape, off the board's squares: the resign question is put away (back to Resign), a piece
// picked with the mouse or a finger is put down, or a past position is left for the present.
function escape() {
  if (view.confirming) {
    view.confirming = false;
    draw();
    $("resign").focus();
  } else if (board.selected) {
    board.set({ selected: null });
  } else {
    browse(null);
  }
}

document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (event.key === "Escape" && board.promoting) { closePromotion(); draw(); return; }
  if (target.closest?.("input, select, textarea, #account")) return;
  // the board's own keys are Enter, space, Escape and the arrows: "f" flips from anywhere
  if (target.closest?.("#board") && event.key !== "f" && event.key !== "F") return;
  const keys = {
    ArrowLeft: () => step(-1), ArrowRight: () => step(1), ArrowUp: () => browse(-1), ArrowDown: () => browse(null),
    Home: () => browse(-1), End: () => browse(null), f: flip, F: flip, Escape: escape,
  };
  if (event.key === "Enter" && target === document.body && !$("submit").disabled) {
    event.preventDefault();
    submit();
    return;
  }
  if (keys[event.key]) {
    event.preventDefault();
    keys[event.key]();
  }
});

mountHeader();
drawMute();
drawQuickTurns();
// A seat's socket refused twice before it ever opened, while a spectator's socket opens: the
// server is there and says no to the seat (taken by someone else, or a link that is not this
// tab's to use). Browsers give no reason for a refused socket, so the page infers it this way,
// stops claiming the seat and watches instead, saying why.
let seatRefusals = 0;
const SPECTATOR_PATH = `/games/${gameId}/ws?mode=spectator&presence=1`;
async function seatRefused() {
  if (!mine || view.everOpen) return false;
  seatRefusals += 1;
  return seatRefusals >= 2 && await socketOpens(SPECTATOR_PATH);
}

function watchInstead() {
  forgetSeat(gameId);
  mine = null;
  view.orientation = "white"; // as any spectator sees it
  $("seat-refused").hidden = false;
  $("role").textContent = "Watching";
  socket = openSocket();
  draw();
}

function openSocket() {
  return gameSocket(path(), {
    onEvent,
    onState: (state) => {
      if (view.gone) return;
      view.connection = view.ended && state !== "open" ? "ended" : state;
      if (state === "open") view.everOpen = true;
      drawConnection();
      draw();
      if (state === "open" && afterGame) afterGame.now(); // read the rematch back on reconnect
    },
    giveUp: async () => {
      if (view.everOpen) return false;
      const standing = await gameStanding();
      if (standing === "gone") {
        showGone();
        return true;
      }
      if (standing === "over") {
        // its replay shows a finished game whole: the result, every turn, the dice checked
        // (play-through s69: the page said "Waiting for the game... reconnecting..." for good)
        location.replace(`/replay/${gameId}`);
        return true;
      }
      if (!(await seatRefused())) return false;
      watchInstead();
      return true;
    },
  });
}
// A friend's link to a rated game opened signed out, where sign-in is offered, for a seat nobody
// holds yet: taken as a guest, the game turns casual for both players (a guest is never rated),
// so the page asks first, as a chess site asks a visitor to sign in before a rated game. "Sign
// in" comes back to this page, the seat kept for this tab; "Play as a guest" takes the seat.
async function ratedOrGuest() {
  if (!token || !mine) return;
  const [info, answer] = await Promise.all([siteInfo(), getJson(`/games/${gameId}`).catch(() => null)]);
  const game = answer?.status === 200 ? answer.body : null;
  if (info.account || !info.signIn || !game?.rated || game.status?.Ended) return;
  if (game.players?.[mine.toLowerCase()]?.name) return; // the seat is an account's already: the socket says whose
  const host = game.players?.[OTHER[mine].toLowerCase()];
  const clock = timeControlLabel(game.timeControl);
  $("rated-gate-title").textContent = host?.name
    ? `${faceName(host)} invites you to a rated game${clock ? ` (${clock})` : ""}.`
    : `This game${clock ? ` (${clock})` : ""} is rated.`;
  $("rated-gate-sign-in").href = `/auth/login?next=${encodeURIComponent(location.pathname)}`;
  // the board as the game will begin, from this seat's side, and who is there: nothing is live yet
  view.pieces = parsePlacement(START_DFEN);
  setPlayers(game.players);
  drawBoard();
  drawPlayers();
  for (const id of ["status", "connection"]) $(id).hidden = true;
  $("rated-gate").hidden = false;
  $("rated-gate-title").focus();
  await new Promise((resolve) => $("rated-gate-guest").addEventListener("click", resolve, { once: true }));
  $("rated-gate").hidden = true;
  for (const id of ["status", "connection"]) $(id).hidden = false;
}
await ratedOrGuest();
let socket = openSocket();
if (signedOut) {
  $("signed-out-sign-in").href = `/auth/login?next=${encodeURIComponent(location.pathname)}`;
  $("signed-out").hidden = false;
}

// A rematch opened from the game before it (rematch.js notes which): that game's rating change,
// which the rating period settles a moment after its end, is said here, at the panel's foot
// (nothing moves under a player's pointer), since its own page was left at once.
async function showLastGame() {
  const previous = sessionStorage.getItem(`playsite.rematchOf.${gameId}`);
  if (!previous) return;
  const record = await getJson(`/games/${previous}/history`).catch(() => null);
  if (record?.status !== 200 || !record.body.rated || record.body.termination === "aborted") return;
  const players = await getJson(`/games/${previous}/players`).catch(() => null);
  if (players?.status !== 200) return;
  // once it is counted, the names' ratings here are the new ones too (the book follows the batch);
  // once this game is over too, its own result says its ratings: the line about the last one goes
  followRatingChanges($("last-game"), previous, players.body, keptSeat(previous).seat || null,
    { lead: "Your last game, rated.", onChange: () => readRatings(), until: () => view.ended });
}
showLastGame();
const RATINGS_PERIOD_MS = 30_000; // as often as the server's rating book is refreshed
whileVisible(() => (view.ratings && !view.ended ? readRatings() : null), RATINGS_PERIOD_MS);
// The move list keeps its newest turn in view when it changes size too (a desktop): the result
// box and then the rematch control, shown later, take room from it, and the turn that ended
// the game must not slide out of sight.
if (typeof ResizeObserver === "function") {
  new ResizeObserver(() => {
    if (!view.gone && view.browsing === null) keepTurnInView();
  }).observe($("history"));
  new ResizeObserver(([seen]) => { if (!view.gone) keepStripTurnInView(seen.target); }).observe($("move-strip"));
  // The strips grow once their clocks and names are drawn (after the first fit): the board gives
  // them the room, so the page's foot stays inside the window (their height never follows the board's).
  const strips = new ResizeObserver(() => fit());
  for (const id of ["player-white", "player-black"]) strips.observe($(id));
}
setInterval(tick, 100);
draw();
tick();
fit();
addEventListener("resize", fit);
