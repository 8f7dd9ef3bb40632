// Rematch (contract v1) on the game page, once the game is over.
//
// A player reads GET /games/{id}/rematch about once a second while something may happen,
// pauses while the page is in the background and reads at once when it comes back (or the
// socket reconnects), stops at `matched` (and opens the successor, keeping its seat for this
// tab only) or at `closed`. A spectator reads the public continuation the same way and, at
// `matched`, opens the successor in spectator mode: A -> B -> C, never revisiting a game
// (a visited-id guard) and backing off when reads fail. No token is ever put in a URL.
import { keepSeat, keptList, postJson } from "./net.js";

const POLL_MS = 1000;
const BACKOFF_MAX_MS = 15000;
const VISITED = "playsite.followed";

// One poller: `read()` resolves to true to go on, false to stop. Pauses while hidden.
// `onFailure(failed)` hears when reads start and stop failing (the server went away, came back).
function poller(read, onFailure = () => {}) {
  let timer = null;
  let stopped = false;
  let delay = POLL_MS;
  let failing = false;
  async function tick() {
    timer = null;
    if (stopped || document.hidden) return;
    let goOn = true;
    try {
      goOn = await read();
      delay = POLL_MS;
      if (failing) { failing = false; onFailure(false); }
    } catch (error) {
      delay = Math.min(delay * 2, BACKOFF_MAX_MS); // the server is away or busy: back off
      // only an unanswered request is a lost connection (a busy server still answers)
      if (error instanceof TypeError && !failing) { failing = true; onFailure(true); }
    }
    if (goOn && !stopped) timer = setTimeout(tick, delay);
    else stopped = true;
  }
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && !stopped && timer === null) tick();
  });
  tick();
  return {
    now() { if (!stopped) { clearTimeout(timer); tick(); } },
    stop() { stopped = true; clearTimeout(timer); },
  };
}

const CLOSED = {
  expired: "The rematch window has closed.",
  technical_failure: "The rematch could not be started.",
  restart: "The rematch was interrupted by a server restart.",
};

// Who declined or withdrew follows from who had consented: the one who offered (their consent
// taken) is told the other declined; the one who was offered, that they declined themselves.
// An offer nobody answered in time says so to both (`offerSeen`: this page showed the
// opponent's offer), where a window nobody used only closed. The opponent by name when they
// have one ("bob declined the rematch.", as a draw offer names them), else "your opponent".
function closedWords(state, offerSeen, them) {
  if (state.closedReason === "expired" && state.myConsent) {
    return `Your rematch offer expired: ${them} did not answer in time.`;
  }
  if (state.closedReason === "expired" && offerSeen) return "The rematch offer expired unanswered.";
  if (state.closedReason === "declined") {
    return state.myConsent ? `${capital(them)} declined the rematch.` : "You declined the rematch.";
  }
  if (state.closedReason === "cancelled") {
    return state.myConsent ? "You withdrew your rematch offer." : `${capital(them)} withdrew the rematch offer.`;
  }
  return CLOSED[state.closedReason] || "The rematch is closed.";
}

// A line of words in `slot` in place of what it held, and no control (`hint`: quieter, news
// of the players' for a spectator).
function rematchLine(slot, words, { hint = false } = {}) {
  const line = document.createElement("p");
  line.id = "rematch-status";
  if (hint) line.className = "hint";
  line.textContent = words;
  slot.replaceChildren(line);
  slot.className = "rematch";
  slot.hidden = false;
}

// No control in `slot`, only why (the opponent has gone: nobody would answer an offer).
export function noRematch(slot, why) {
  rematchLine(slot, why);
}

// The milliseconds left until the state's deadline, by the server's own clock; null without one.
function msLeft(state) {
  return state.deadlineAt && state.serverNow ? Date.parse(state.deadlineAt) - Date.parse(state.serverNow) : null;
}

// The player's control, in `slot`. `token` is this tab's seat token of the finished game.
// `onConnection(lost)` hears when the server stops (and starts again) answering.
//
// The seconds left count down on the page from the server's deadline (read against the
// server's own clock), so the countdown never freezes between reads; while the server is away
// it stops and every button is disabled. A refused command shows why and gives the control back.
// `watchedEnd`: this page saw the game end. A page that neither saw it end nor saw the rematch
// being decided (an old game's link opened again) is not carried to the rematch: it links to it.
// "your opponent" begins a sentence capitalised; a nickname is written as its owner wrote it
const capital = (words) => (words === "your opponent" ? "Your opponent" : words);

// `opponent`: the other player's name, or null (a guest: "your opponent").
export function mountRematch(slot, { gameId, token, opponent = null, onConnection = () => {}, watchedEnd = false }) {
  const them = opponent || "your opponent";
  slot.replaceChildren();
  slot.className = "rematch";
  const text = document.createElement("p");
  text.id = "rematch-status";
  const error = document.createElement("p");
  error.id = "rematch-error";
  error.className = "message";
  error.setAttribute("role", "alert");
  error.hidden = true;
  const buttons = document.createElement("div");
  buttons.className = "controls";
  slot.append(text, buttons, error);
  const seatHeader = token ? { "X-Rematch-Seat-Token": token } : {};
  let shown = false;
  let last = null; // the last state read, rendered again after a refusal
  let offerSeen = false; // the opponent's offer was shown here (its expiry is told as such)
  let deadline = null; // ms on this page's clock (Date.now()) when the current phase ends
  let lost = false;
  let sending = false;
  let words = null; // the sentence the countdown is appended to
  let watched = watchedEnd; // there for the end or for the rematch being decided: follow it

  function button(label, action, primary = false) {
    const element = document.createElement("button");
    element.type = "button";
    element.textContent = label;
    element.dataset.action = action;
    if (primary) element.className = "primary";
    element.addEventListener("click", () => send(action));
    return element;
  }

  // The buttons are made anew only when what they offer changes: a poll that changes nothing
  // (every second) keeps them, so keyboard focus stays and a press under way still counts.
  let offered = null;
  function offer(...choices) {
    const key = choices.map(([, action]) => action).join(" ");
    if (key === offered) return;
    offered = key;
    const focused = buttons.contains(document.activeElement);
    buttons.replaceChildren(...choices.map(([label, action, primary]) => button(label, action, primary)));
    if (focused) buttons.firstElementChild?.focus(); // the next choice, not the page's top
  }

  function countdown() {
    if (!words) return;
    if (lost) {
      text.textContent = "Connection lost: the rematch waits until the server answers again.";
      return;
    }
    const left = deadline === null ? null : Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    text.textContent = left === null ? words : `${words} (${left}\u00a0s)`; // the count never wraps apart
    if (left === 0) enable(); // the window has closed here: no button offers what the server would refuse
  }
  const timer = setInterval(countdown, 250);

  function enable() {
    const over = deadline !== null && deadline <= Date.now();
    for (const element of buttons.children) element.disabled = lost || sending || over;
  }

  async function send(action) {
    sending = true;
    enable();
    error.hidden = true;
    let answer;
    try {
      answer = await postJson(`/games/${gameId}/rematch`, { requestId: crypto.randomUUID(), action }, seatHeader);
    } catch {
      answer = { status: 0, body: null };
    }
    sending = false;
    const state = answer.body?.state || (answer.status === 200 ? answer.body : null);
    if (answer.status !== 200) {
      error.textContent = answer.status === 0
        ? "The server could not be reached: try again."
        : `Refused: ${answer.body?.error?.message || `the server answered ${answer.status}`}.`;
      error.dataset.code = answer.body?.error?.code || String(answer.status);
      error.hidden = false;
    }
    if (state) render(state);
    else if (last) render(last);
    enable();
    poll.now();
  }

  function render(state) {
    last = state;
    const actions = state.allowedActions || [];
    if (!shown && state.phase === "closed" && !state.myConsent) {
      slot.hidden = true; // nothing to offer here (no rematch for this game, or it is long over)
      clearInterval(timer);
      return false;
    }
    shown = true;
    slot.hidden = false;
    slot.dataset.phase = state.phase;
    const left = msLeft(state);
    deadline = left === null ? null : Date.now() + left;
    words = null;
    if (["available", "offered", "starting"].includes(state.phase)) watched = true; // being decided while this page looks on
    if (state.phase === "available") {
      words = "Play again with the same settings?";
      offer(["Rematch", "propose", true]);
    } else if (state.phase === "offered" && actions.includes("cancel")) {
      words = `Rematch offered; waiting for ${them}.`;
      offer(["Withdraw", "cancel"]);
    } else if (state.phase === "offered") {
      words = `${capital(them)} offers a rematch.`;
      offerSeen = true;
      offer(["Accept", "accept", true], ["Decline", "decline"]);
    } else {
      offer();
    }
    if (state.phase === "starting") {
      text.textContent = "Starting the rematch...";
    } else if (state.phase === "matched") {
      clearInterval(timer);
      if (state.join) keepSeat(state.nextGameId, state.join.seat, state.join.token);
      if (watched) {
        text.textContent = "The rematch is ready: opening it.";
        // the rematch's page says what this game did to the ratings, known a moment later
        sessionStorage.setItem(`playsite.rematchOf.${state.nextGameId}`, gameId);
        location.assign(`/play/${state.nextGameId}`);
      } else {
        text.replaceChildren(...rematchPlayed(state.nextGameId, "Open the rematch"));
      }
      return false;
    } else if (state.phase === "closed") {
      text.textContent = closedWords(state, offerSeen, them);
      clearInterval(timer);
      return false;
    }
    enable();
    countdown();
    return true;
  }

  const poll = poller(async () => {
    const response = await fetch(`/games/${gameId}/rematch`, { headers: seatHeader });
    if (response.status === 503 && !shown) {
      clearInterval(timer);
      return false; // this server keeps no rematches (no database)
    }
    if (response.status === 429 || response.status >= 500) throw new Error(String(response.status));
    if (response.status !== 200) {
      slot.hidden = !shown;
      clearInterval(timer);
      return false; // not a participant, or not over yet: nothing to show
    }
    return render(await response.json());
  }, (failed) => {
    lost = failed;
    enable();
    countdown();
    onConnection(failed);
  });
  return poll;
}

// What a page that was not carried to a rematch says of it: the sentence and a link to it.
function rematchPlayed(nextGameId, label) {
  const link = document.createElement("a");
  link.href = `/play/${nextGameId}`;
  link.textContent = label;
  return ["A rematch of this game was played. ", link];
}

// A spectator follows the chain: at `matched`, open the next game (never one seen before). Only
// a page that was there for it is carried along: one that saw the game end (`watchedEnd`) or
// saw the rematch still being decided. A page opened on a game whose rematch was already
// played stays on the game asked for, with a link to the next one in `slot`.
//
// While the window is open the spectator is told the players may still agree to one (with the
// seconds left), and "No rematch." once it closed unused: the public projection says nothing of
// who offered or declined (service.md), so neither does the page.
export function followContinuation(gameId, { slot, watchedEnd = false } = {}) {
  const visited = keptList(sessionStorage, VISITED);
  if (!visited.includes(gameId)) visited.push(gameId);
  sessionStorage.setItem(VISITED, JSON.stringify(visited.slice(-50)));
  let watched = watchedEnd;
  let windowSeen = false; // this page saw the window open: its closing is news
  const say = (words) => slot && rematchLine(slot, words, { hint: true });
  return poller(async () => {
    const response = await fetch(`/games/${gameId}/continuation`);
    if (response.status === 429 || response.status >= 500) throw new Error(String(response.status));
    if (response.status !== 200) return false;
    const state = await response.json();
    if (state.phase === "matched") {
      if (visited.includes(state.nextGameId)) return false; // a loop: stay here
      if (watched) {
        location.assign(`/play/${state.nextGameId}`);
      } else if (slot) {
        const line = document.createElement("p");
        line.className = "rematch-next";
        line.append(...rematchPlayed(state.nextGameId, "Watch the rematch"));
        slot.replaceChildren(line);
        slot.hidden = false;
      }
      return false;
    }
    if (state.phase === "waiting") {
      watched = true; // there while it is decided: follow it
      windowSeen = true;
      const left = msLeft(state);
      say(`The players may still agree to a rematch${left === null ? "" : ` (${Math.max(0, Math.round(left / 1000))}\u00a0s left)`}.`);
    } else if (windowSeen) {
      say("No rematch.");
    }
    return state.phase === "waiting";
  });
}
