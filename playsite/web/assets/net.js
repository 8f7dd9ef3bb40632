// Talking to the server: JSON requests, the stable guest id, and a game socket that
// reconnects with backoff (each connection starts with a fresh Snapshot).

export function guestId() {
  let id = localStorage.getItem("playsite.guestId");
  if (!id) {
    id = crypto.randomUUID();
    localStorage.setItem("playsite.guestId", id);
  }
  return id;
}

// A client seed for the dice: 16 random bytes as 32 hexadecimal digits (the server takes 16 to 256
// characters), this player's share of every roll of the game (docs/dice.md).
export function randomSeed() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

// A seat's token is kept for this tab (sessionStorage) and for the browser (localStorage, the
// last SEATS_KEPT games), never in the address bar: another tab of the same browser opened on
// the game plays the seat too, as the same guest (a tab's own seat comes first: one browser may
// hold both seats of a game, a tab each).
const SEATS = "playsite.seats";
const SEATS_KEPT = 30;

// A JSON list kept in `storage` under `key`: [] when there is none, or what is there is not a list.
export function keptList(storage, key) {
  try {
    const kept = JSON.parse(storage.getItem(key));
    return Array.isArray(kept) ? kept : [];
  } catch {
    return [];
  }
}

function browserSeats() {
  return keptList(localStorage, SEATS);
}

function keepBrowserSeats(seats) {
  try { localStorage.setItem(SEATS, JSON.stringify(seats.slice(-SEATS_KEPT))); } catch { /* storage full or off */ }
}

export function keepSeat(gameId, seat, token) {
  sessionStorage.setItem(`playsite.seat.${gameId}`, JSON.stringify({ seat, token }));
  keepBrowserSeats([...browserSeats().filter((kept) => kept.gameId !== gameId), { gameId, seat, token }]);
}

// A friend's link carries the seat in its fragment (`#seat=White&token=...`): kept for this tab,
// then taken out of the address bar (and so of the history) at once. The game's page does it,
// and its replay too: the server sends a finished game's page on to it, the fragment with it.
export function keepSeatOfLink(gameId) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (!fragment.get("token")) return;
  keepSeat(gameId, fragment.get("seat"), fragment.get("token"));
  history.replaceState(null, "", `${location.pathname}${location.search}`);
}

// To a game this browser was just given a seat in (a bot game, an accepted seek): the seat kept,
// then its page.
export function goPlay(gameId, seat, token) {
  keepSeat(gameId, seat, token);
  location.assign(`/play/${gameId}`);
}

// The friend's link of a game this tab created, kept for this tab so the game's page can show
// it while the friend has not come (the creator may go to the board before sending it).
export function keepInvite(gameId, link) {
  sessionStorage.setItem(`playsite.invite.${gameId}`, link);
}

export function keptInvite(gameId) {
  return sessionStorage.getItem(`playsite.invite.${gameId}`);
}

// The seat was refused (taken by someone else): this tab, and this browser, no longer claim it.
export function forgetSeat(gameId) {
  sessionStorage.removeItem(`playsite.seat.${gameId}`);
  keepBrowserSeats(browserSeats().filter((kept) => kept.gameId !== gameId));
}

// Signed out (in this tab or another): this browser no longer holds any seat (another person
// may use it next), and the tab notes the games the account was playing (noteSignedOutOf). Its
// guest id stays: it is the browser's, not the account's.
export function forgetSeats(playing) {
  for (const key of Object.keys(sessionStorage)) {
    if (key.startsWith("playsite.seat.") || key.startsWith("playsite.invite.")) sessionStorage.removeItem(key);
  }
  try { localStorage.removeItem(SEATS); } catch { /* storage off */ }
  noteSignedOutOf(Array.isArray(playing) ? playing : []);
}

// Signing out while playing: the games the account held a seat in, kept for this tab, so that
// their pages (reloaded as a spectator's) say why and how to come back: sign in again within
// the disconnect grace. A sign-in finds the seat again by the session.
const SIGNED_OUT_OF = "playsite.signedOutOf";

function noteSignedOutOf(gameIds) {
  try { sessionStorage.setItem(SIGNED_OUT_OF, JSON.stringify(gameIds)); } catch { /* storage off */ }
}

export function signedOutOf(gameId) {
  try {
    const games = JSON.parse(sessionStorage.getItem(SIGNED_OUT_OF) || "[]");
    return Array.isArray(games) && games.includes(gameId);
  } catch {
    return false;
  }
}

export function forgetSignedOut() {
  sessionStorage.removeItem(SIGNED_OUT_OF);
}

// Whether a socket to `path` opens now (closed again at once): a probe of the server.
export function socketOpens(path, timeoutMs = 5000) {
  return new Promise((resolve) => {
    const probe = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`);
    const timer = setTimeout(() => { probe.close(); resolve(false); }, timeoutMs);
    probe.onopen = () => { clearTimeout(timer); probe.close(1000); resolve(true); };
    probe.onclose = () => { clearTimeout(timer); resolve(false); };
  });
}

// Another tab of this browser kept or forgot a seat (a game begun or left there): `changed()`.
// The browser tells every other tab of the site when its local storage changes.
export function onSeatsOfOtherTabs(changed) {
  addEventListener("storage", (event) => {
    if (event.key === SEATS || event.key === null) changed();
  });
}

// The games this browser holds a seat in, the newest last.
export function keptGameIds() {
  return browserSeats().map((kept) => kept.gameId);
}

export function keptSeat(gameId) {
  try {
    const mine = JSON.parse(sessionStorage.getItem(`playsite.seat.${gameId}`));
    if (mine) return mine;
  } catch { /* read the browser's below */ }
  const kept = browserSeats().find((seat) => seat.gameId === gameId);
  if (!kept) return {};
  sessionStorage.setItem(`playsite.seat.${gameId}`, JSON.stringify({ seat: kept.seat, token: kept.token }));
  return { seat: kept.seat, token: kept.token };
}

export async function getJson(path, etag) {
  const headers = etag ? { "If-None-Match": etag } : {};
  const response = await fetch(path, { headers });
  if (response.status === 304) {
    await response.text(); // read to its (empty) end: an unread response is cancelled, a red row in devtools
    return { status: 304, etag };
  }
  const body = response.headers.get("content-type")?.includes("json") ? await response.json() : null;
  return { status: response.status, etag: response.headers.get("ETag"), body };
}

// What a refusal's body says for people (the JSON error's message, or a problem's title), else `fallback`.
export const errorText = (answer, fallback) => answer.body?.error?.message || answer.body?.title || fallback;

export async function postJson(path, body, headers = {}) {
  return sendJson("POST", path, body, headers);
}

export async function sendJson(method, path, body, headers = {}) {
  const response = await fetch(path, {
    method,
    // X-Game-CSRF: a signed-in person's writes need it (with the page's own Origin); harmless otherwise.
    headers: { "Content-Type": "application/json", "X-Game-CSRF": "1", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON: an error page */ }
  return { status: response.status, body: parsed, etag: response.headers.get("ETag") };
}

// A socket to `path` that reconnects (1 s, 2 s, 4 s ... 15 s) until the game is over (the
// server's normal close, 1000: state "ended"). A socket that closes before it ever opened asks
// `giveUp()` (when given) whether to stop for good: an unknown game is refused before the
// socket opens, and browsers say nothing of why, so the page asks the server and stops. A server
// that says it is restarting (1013, "the server is restarting") is tried every second for a
// while instead: the backoff came back 8 s after the new process answered, and the player to
// move lost those seconds on the clock (play-through s62).
const RESTART_TRIES = 90;
export function gameSocket(path, { onEvent, onState, giveUp = null }) {
  let delay = 1000;
  let steady = 0; // attempts left a second apart: the server said it is restarting
  let stopped = false;
  let opened = false;
  let socket = null;
  const url = () => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
  function connect() {
    onState("connecting");
    socket = new WebSocket(url());
    socket.onopen = () => { delay = 1000; steady = 0; opened = true; onState("open"); };
    socket.onmessage = (message) => onEvent(JSON.parse(message.data));
    socket.onclose = async (closed) => {
      if (stopped) return;
      if (closed.code === 1000) {
        stopped = true;
        onState("ended");
        return;
      }
      onState("closed");
      if (closed.code === 1013 && closed.reason.includes("restarting")) steady = RESTART_TRIES;
      if (!opened && giveUp && await giveUp()) {
        stopped = true;
        return;
      }
      if (steady > 0) {
        steady -= 1;
        setTimeout(connect, 1000);
        return;
      }
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 15000);
    };
  }
  connect();
  return {
    send: (command) => socket && socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(command)),
    stop: () => { stopped = true; socket && socket.close(); },
  };
}
