// The game page, for a seat (its token rides in the URL fragment, which browsers never send
// in a request) or a spectator. The server decides everything: the page renders its events
// and builds a whole turn from the server's tree, one legal micro-move at a time, then
// submits it at once.
import { applyMove, diceOf, parsePlacement, renderBoard } from "./board.js";
import { gameSocket, getJson, guestId, keepSeat, keptSeat } from "./net.js";
import { followContinuation, mountRematch } from "./rematch.js";
import { mountHeader } from "./site.js";

const $ = (id) => document.getElementById(id);
const gameId = location.pathname.split("/").pop();
// A friend's link carries the seat in its fragment: keep it for this tab, then take it out
// of the address bar (and so of the history) at once.
const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.get("token")) {
  keepSeat(gameId, fragment.get("seat"), fragment.get("token"));
  history.replaceState(null, "", location.pathname);
}
const { seat: keptSeatName, token } = keptSeat(gameId);
const mine = token ? keptSeatName : null; // null: spectator

const view = {
  dfen: null, // the position the current roll was made in
  pieces: {},
  tree: null, // my roll's tree, while I am to move
  node: null,
  partial: [],
  selected: null,
  waiting: false, // a turn was sent, its verdict has not come
  ended: false,
  clocks: null,
  clockSeat: null,
  clockAt: 0,
  opponentIsBot: false, // a bot's seat cannot answer a draw offer
  drawBlocked: false, // my offer was declined: no new one until the opponent offers
  drawOfferFrom: null, // the seat whose draw offer waits for an answer
};

function path() {
  if (!mine) return `/games/${gameId}/ws?mode=spectator`;
  return `/games/${gameId}/ws?token=${encodeURIComponent(token)}&guest=${guestId()}`;
}

function say(text) { $("message").textContent = text || ""; }

// ----- the board and the turn being built ------------------------------------------------------

function movesFrom(square) {
  return Object.keys(view.node || {}).filter((uci) => uci.startsWith(square));
}

function draw() {
  const marks = {};
  const myTurn = view.node && !view.waiting && !view.ended;
  if (myTurn) {
    for (const uci of Object.keys(view.node)) marks[uci.slice(0, 2)] = "movable";
    if (view.selected) {
      marks[view.selected] = "selected";
      for (const uci of movesFrom(view.selected)) marks[uci.slice(2, 4)] = "target";
    }
  }
  renderBoard($("board"), view.pieces, { flipped: mine === "Black", marks, onSquare: click });
  $("partial").textContent = view.partial.join(" ");
  const complete = view.node && Object.keys(view.node).length === 0 && view.partial.length > 0;
  $("submit").disabled = !complete || view.waiting || view.ended;
  $("undo").disabled = view.partial.length === 0 || view.waiting;
  $("resign").disabled = !mine || view.ended;
  $("offer-draw-label").hidden = !complete || view.waiting || view.ended || view.opponentIsBot || view.drawBlocked;
  const offer = view.drawOfferFrom && !view.ended;
  $("draw-offer").hidden = !offer;
  const answering = offer && mine && view.drawOfferFrom !== mine;
  $("draw-accept").hidden = !answering;
  $("draw-decline").hidden = !answering;
  if (offer) {
    $("draw-offer-text").textContent = view.drawOfferFrom === mine
      ? "You offered a draw; waiting for the answer."
      : `${view.drawOfferFrom} offers a draw.`;
  }
}

function click(square) {
  if (!view.node || view.waiting || view.ended) return;
  if (view.selected) {
    const choices = movesFrom(view.selected).filter((uci) => uci.slice(2, 4) === square);
    if (choices.length === 1) return play(choices[0]);
    if (choices.length > 1) return choosePromotion(choices);
  }
  view.selected = movesFrom(square).length ? square : null;
  draw();
}

function choosePromotion(choices) {
  const box = $("promotion");
  box.replaceChildren(...choices.map((uci) => {
    const button = document.createElement("button");
    button.textContent = { q: "Queen", r: "Rook", b: "Bishop", n: "Knight" }[uci[4]] || uci;
    button.dataset.move = uci;
    button.addEventListener("click", () => { box.hidden = true; play(uci); });
    return button;
  }));
  box.hidden = false;
}

function play(uci) {
  view.partial.push(uci);
  view.node = view.node[uci];
  view.pieces = applyMove(view.pieces, uci);
  view.selected = null;
  draw();
}

function undo() {
  view.partial.pop();
  view.node = view.tree;
  view.pieces = parsePlacement(view.dfen);
  const kept = view.partial;
  view.partial = [];
  for (const uci of kept) play(uci);
  draw();
}

async function takeRoll(dfen, tree) {
  view.dfen = dfen;
  view.pieces = parsePlacement(dfen);
  view.partial = [];
  view.selected = null;
  if (tree === null) tree = (await getJson(`/games/${gameId}/moves`)).body.legalMoves; // too big to inline
  view.tree = view.node = tree;
}

function submit() {
  view.waiting = true;
  const command = { moves: view.partial };
  if ($("offer-draw").checked && !$("offer-draw-label").hidden) command.offerDraw = true;
  $("offer-draw").checked = false;
  socket.send({ SubmitTurn: command });
  draw();
}

// ----- clocks, players, status -----------------------------------------------------------------

function setClocks(clocks, running) {
  view.clocks = clocks;
  view.clockSeat = view.ended ? null : running;
  view.clockAt = performance.now();
}

function tick() {
  for (const seat of ["white", "black"]) {
    const element = $(`clock-${seat}`);
    if (!view.clocks) { element.textContent = ""; continue; }
    let left = view.clocks[seat];
    const running = view.clockSeat && view.clockSeat.toLowerCase() === seat;
    if (running) left -= performance.now() - view.clockAt;
    const seconds = Math.max(0, Math.ceil(left / 1000));
    element.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    element.classList.toggle("running", Boolean(running));
  }
}

function answerDraw(accept) {
  socket.send({ AnswerDraw: { accept } });
  $("draw-accept").hidden = $("draw-decline").hidden = true;
}

function showPlayers(players) {
  const opponent = mine === "White" ? players?.black : mine === "Black" ? players?.white : null;
  view.opponentIsBot = opponent?.kind === "Bot";
  for (const seat of ["white", "black"]) {
    const face = players?.[seat];
    const name = face?.name || (face?.kind === "Bot" ? "bot" : "guest");
    $(`player-${seat}`).querySelector(".name").textContent = `${seat === "white" ? "White" : "Black"}: ${name}`;
  }
}

function showOver(over) {
  view.ended = true;
  view.node = null;
  view.clockSeat = null;
  const result = over.result;
  const text = result === null ? "aborted" : result.Draw ? "a draw" : `${result.Win.side} wins`;
  $("status").textContent = `Game over: ${text} (${over.termination}).`;
  $("status").dataset.status = "ended";
  view.drawOfferFrom = null;
  const link = $("replay-link");
  link.querySelector("a").href = `/replay/${gameId}`;
  link.hidden = false;
  // The rematch control shows at once on the authoritative end; a spectator follows the chain.
  if (!afterGame) afterGame = mine ? mountRematch($("rematch-slot"), { gameId, token }) : followContinuation(gameId);
}

let afterGame = null; // the rematch poller, once the game is over

function addHistory(seat, moves, drawOffer = false) {
  const item = document.createElement("li");
  item.textContent = `${seat}: ${moves.length ? moves.join(" ") : "(no move possible)"}${drawOffer ? " (offers a draw)" : ""}`;
  $("history").append(item);
}

function showTurn(seat, dice) {
  if (view.ended) return;
  $("dice").textContent = dice.join(" ");
  const yours = seat === mine;
  $("status").textContent = yours ? "Your turn: build it from the legal moves, then play it." : `${seat} to move.`;
  $("status").dataset.status = yours ? "your-turn" : "waiting";
}

// ----- events ------------------------------------------------------------------------------------

async function onEvent(event) {
  const [kind, body] = Object.entries(event)[0];
  if (kind === "Snapshot") {
    const state = body.state;
    view.ended = false;
    view.waiting = false;
    showPlayers(state.players);
    $("history").replaceChildren();
    for (const turn of body.history) addHistory(turn.seat, turn.moves);
    view.pieces = parsePlacement(state.dfen);
    view.tree = view.node = null;
    view.drawOfferFrom = null;
    setClocks(state.clocks, state.dicePending ? state.activeSeat : null);
    if (state.status.Ended) {
      showOver(state.status.Ended.over);
    } else if (state.dicePending) {
      showTurn(state.activeSeat, diceOf(state.dfen));
      if (state.activeSeat === mine) await takeRoll(state.dfen, state.legalMoves);
    } else if (body.history.length) {
      // a game under way with no roll pending: the last turn offered a draw, the seat to move answers
      view.drawOfferFrom = state.activeSeat === "White" ? "Black" : "White";
      $("status").textContent = "A draw offer waits for its answer.";
      $("status").dataset.status = "draw-offer";
    } else if (state.rematchStartup?.phase === "awaiting_joins") {
      const by = new Date(state.rematchStartup.joinDeadlineAt).toLocaleTimeString();
      $("status").textContent = `Rematch: it starts when both players are here (by ${by}).`;
      $("status").dataset.status = "awaiting-joins";
    } else {
      $("status").textContent = "Waiting for the players...";
    }
  } else if (kind === "DiceRolled") {
    view.drawOfferFrom = null;
    setClocks(body.clocks, body.seat);
    showTurn(body.seat, body.dice);
    view.pieces = parsePlacement(body.dfen);
    if (body.seat === mine && Object.keys(body.legalMoves || { x: 1 }).length) await takeRoll(body.dfen, body.legalMoves);
  } else if (kind === "TurnPlayed") {
    addHistory(body.seat, body.moves, body.drawOffer);
    view.pieces = parsePlacement(body.fenAfter);
    if (body.seat === mine) { view.tree = view.node = null; view.partial = []; view.waiting = false; }
    if (body.drawOffer) {
      view.drawOfferFrom = body.seat;
      if (body.seat !== mine) view.drawBlocked = false; // the opponent offered: mine may follow again
    }
    say("");
  } else if (kind === "GameEnded") {
    showOver(body.over);
  } else if (kind === "Rejected") {
    if (body.seat === mine) {
      view.waiting = false;
      say(`Refused: ${body.reason}`);
      if (view.tree) undoAll();
    }
  } else if (kind === "DrawDeclined") {
    if (body.seat !== mine && mine) view.drawBlocked = true;
    view.drawOfferFrom = null;
    say(`${body.seat} declined the draw.`);
    const declined = document.createElement("li");
    declined.textContent = `${body.seat} declined the draw.`;
    declined.className = "note";
    $("history").append(declined);
  } else if (kind === "Error") {
    view.waiting = false;
    say(`Error: ${body.reason}`);
  }
  draw();
}

function undoAll() {
  view.pieces = parsePlacement(view.dfen);
  view.node = view.tree;
  view.partial = [];
}

$("role").textContent = mine ? `You play ${mine}` : "Watching";
$("submit").addEventListener("click", submit);
$("undo").addEventListener("click", undo);
$("resign").addEventListener("click", () => socket.send({ Resign: {} }));
$("draw-accept").addEventListener("click", () => answerDraw(true));
$("draw-decline").addEventListener("click", () => answerDraw(false));
mountHeader();
const socket = gameSocket(path(), {
  onEvent,
  onState: (state) => {
    $("connection").dataset.state = state;
    $("connection").textContent = state;
    if (state === "open" && afterGame) afterGame.now(); // read the rematch back on reconnect
  },
});
setInterval(tick, 250);
draw();
