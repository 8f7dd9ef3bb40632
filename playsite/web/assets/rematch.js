// Rematch (contract v1) on the game page, once the game is over.
//
// A player reads GET /games/{id}/rematch about once a second while something may happen,
// pauses while the page is in the background and reads at once when it comes back (or the
// socket reconnects), stops at `matched` (and opens the successor, keeping its seat for this
// tab only) or at `closed`. A spectator reads the public continuation the same way and, at
// `matched`, opens the successor in spectator mode: A -> B -> C, never revisiting a game
// (a visited-id guard) and backing off when reads fail. No token is ever put in a URL.
import { keepSeat, postJson } from "./net.js";

const POLL_MS = 1000;
const BACKOFF_MAX_MS = 15000;
const VISITED = "playsite.followed";

// One poller: `read()` resolves to true to go on, false to stop. Pauses while hidden.
function poller(read) {
  let timer = null;
  let stopped = false;
  let delay = POLL_MS;
  async function tick() {
    timer = null;
    if (stopped || document.hidden) return;
    let goOn = true;
    try {
      goOn = await read();
      delay = POLL_MS;
    } catch {
      delay = Math.min(delay * 2, BACKOFF_MAX_MS); // the server is away: back off
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

function secondsLeft(state) {
  if (!state.deadlineAt) return null;
  const left = (Date.parse(state.deadlineAt) - Date.parse(state.serverNow)) / 1000;
  return Math.max(0, Math.ceil(left));
}

const CLOSED = {
  declined: "Your opponent declined the rematch.",
  cancelled: "The rematch offer was withdrawn.",
  expired: "The rematch window has closed.",
  technical_failure: "The rematch could not be started.",
  restart: "The rematch was interrupted by a server restart.",
};

// The player's control, in `slot`. `token` is this tab's seat token of the finished game.
export function mountRematch(slot, { gameId, token }) {
  slot.replaceChildren();
  slot.className = "rematch";
  const text = document.createElement("p");
  text.id = "rematch-status";
  const buttons = document.createElement("div");
  buttons.className = "controls";
  slot.append(text, buttons);
  const seatHeader = token ? { "X-Rematch-Seat-Token": token } : {};
  let shown = false;

  function button(label, action) {
    const element = document.createElement("button");
    element.textContent = label;
    element.dataset.action = action;
    element.addEventListener("click", () => send(action));
    return element;
  }

  async function send(action) {
    for (const element of buttons.children) element.disabled = true;
    const answer = await postJson(`/games/${gameId}/rematch`, { requestId: crypto.randomUUID(), action }, seatHeader);
    const state = answer.body?.state || (answer.status === 200 ? answer.body : null);
    if (state) render(state);
    if (answer.status !== 200) text.dataset.error = answer.body?.error?.code || String(answer.status);
    poll.now();
  }

  function render(state) {
    const actions = state.allowedActions || [];
    if (!shown && state.phase === "closed" && !state.myConsent) {
      slot.hidden = true; // nothing to offer here (no rematch for this game, or it is long over)
      return false;
    }
    shown = true;
    slot.hidden = false;
    slot.dataset.phase = state.phase;
    const left = secondsLeft(state);
    buttons.replaceChildren();
    if (state.phase === "available") {
      text.textContent = `Play again with the same settings? (${left} s)`;
      buttons.append(button("Rematch", "propose"));
    } else if (state.phase === "offered" && actions.includes("cancel")) {
      text.textContent = `Rematch offered; waiting for your opponent (${left} s).`;
      buttons.append(button("Withdraw", "cancel"));
    } else if (state.phase === "offered") {
      text.textContent = `Your opponent offers a rematch (${left} s).`;
      buttons.append(button("Accept", "accept"), button("Decline", "decline"));
    } else if (state.phase === "starting") {
      text.textContent = "Starting the rematch...";
    } else if (state.phase === "matched") {
      text.textContent = "The rematch is ready: opening it.";
      if (state.join) keepSeat(state.nextGameId, state.join.seat, state.join.token);
      location.assign(`/play/${state.nextGameId}`);
      return false;
    } else if (state.phase === "closed") {
      text.textContent = CLOSED[state.closedReason] || "The rematch is closed.";
      return false;
    }
    return true;
  }

  const poll = poller(async () => {
    const response = await fetch(`/games/${gameId}/rematch`, { headers: seatHeader });
    if (response.status === 429 || response.status >= 500) throw new Error(String(response.status));
    if (response.status !== 200) {
      slot.hidden = !shown;
      return false; // not a participant, or not over yet: nothing to show
    }
    return render(await response.json());
  });
  return poll;
}

// A spectator follows the chain: at `matched`, open the next game (never one seen before).
export function followContinuation(gameId) {
  const visited = JSON.parse(sessionStorage.getItem(VISITED) || "[]");
  if (!visited.includes(gameId)) visited.push(gameId);
  sessionStorage.setItem(VISITED, JSON.stringify(visited.slice(-50)));
  return poller(async () => {
    const response = await fetch(`/games/${gameId}/continuation`);
    if (response.status === 429 || response.status >= 500) throw new Error(String(response.status));
    if (response.status !== 200) return false;
    const state = await response.json();
    if (state.phase === "matched") {
      if (visited.includes(state.nextGameId)) return false; // a loop: stay here
      location.assign(`/play/${state.nextGameId}`);
      return false;
    }
    return state.phase === "waiting";
  });
}
