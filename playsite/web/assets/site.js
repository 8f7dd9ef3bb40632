// What every page shares: the account corner of the header (sign in, the nickname, a
// nickname change, sign out) and small helpers for names and links.
import { forgetSeats, getJson, sendJson } from "./net.js";

export const $ = (id) => document.getElementById(id);
// The other seat: OTHER.White is "Black".
export const OTHER = { White: "Black", Black: "White" };

export function element(tag, text, attributes = {}) {
  const made = document.createElement(tag);
  if (text !== undefined && text !== null) made.textContent = text;
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

// Put `nodes` into `parent` in this order, moving only what is out of place: a node that stays
// is never taken out of the page, so keyboard focus on it, and a press under way, survive a refresh.
export function keepChildren(parent, nodes) {
  const wanted = new Set(nodes);
  for (const child of [...parent.children]) if (!wanted.has(child)) child.remove();
  nodes.forEach((node, index) => {
    if (parent.children[index] !== node) parent.insertBefore(node, parent.children[index] ?? null);
  });
}

// A page whose subject does not exist (an unknown game): the whole page says so, as the site's
// not-found page does, with the ways on, instead of an empty board and idle buttons.
export function showMissing(title, text) {
  const card = element("section", null, { class: "card notfound", role: "alert" });
  const actions = element("p", null, { class: "actions" });
  actions.append(element("a", "Go to the lobby", { class: "button primary", href: "/" }), " ",
    element("a", "Finished games", { class: "button", href: "/history" }));
  card.append(element("h1", title), element("p", text), actions);
  const main = document.querySelector("main");
  main.className = "missing";
  main.replaceChildren(card);
}

// A game's page of no game, as the game page, its replay and the server's not-found page say it
// (`finished`: the replay, which wants a finished game).
export function showMissingGame({ finished = false } = {}) {
  if (finished) showMissing("No finished game with this id", "The link is wrong, or the game was never played here.");
  else showMissing("No such game", "The link is wrong, or the game is long over.");
}

// The profile page of a public face ({kind, name}), or null for a guest or an unnamed seat.
// A bot's name is written "team name" in games and "team/name" in ratings.
// A bot's face's team and name (the wire's "house random", or "house/random").
export function botTeamAndName(face) {
  const [team, name] = face.name.split(/[ /]/);
  return { team, name };
}

// The mark a bot's name wears wherever it is shown (the game's strips, its replay, the lobby).
export function botTag() {
  return element("span", "BOT", { class: "tag" });
}

export function profileHref(face) {
  if (!face?.name) return null;
  if (face.kind === "Bot") {
    const { team, name } = botTeamAndName(face);
    return name ? `/@/${encodeURIComponent(team)}/${encodeURIComponent(name)}` : null;
  }
  return `/@/${encodeURIComponent(face.name)}`;
}

// A person without a name, in one word everywhere (as lichess says it): a guest in a live game
// (an account's seat shows its nickname), and in a finished game's record, which cannot tell a
// guest from an account deleted since.
export const UNNAMED = "Anonymous";

export function faceName(face) {
  if (face?.kind === "Bot") return face.name ? face.name.replace(" ", "/") : "a bot"; // "team/name", as everywhere
  return face?.name || UNNAMED;
}

// A face as a link to its profile when it has one, else as plain text.
export function faceLink(face) {
  const href = profileHref(face);
  return href ? element("a", faceName(face), { href }) : element("span", faceName(face));
}

// A wire time control in words, as every page writes it: "5+3", "15+0" (no increment, as the
// home page offers it), "30 s a turn", "no clock".
export function timeControlLabel(tc) {
  if (!tc) return "";
  const fischer = tc.Fischer ?? (tc.SuddenDeath && { ...tc.SuddenDeath, incrementSeconds: 0 });
  if (fischer) {
    const minutes = fischer.initialSeconds / 60;
    return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)}+${fischer.incrementSeconds}`;
  }
  if (tc.PerMove) return `${tc.PerMove.secondsPerMove} s a turn`;
  return "no clock";
}

// The ecosystem's text form of a time control (a guest's game list: "Fischer(300,3)",
// "SuddenDeath(300)", "PerMove(30)", "Unlimited") as the wire's object.
function timeControlOfText(text) {
  const [, kind, numbers = ""] = /^(\w+)(?:\(([\d,]*)\))?$/.exec(text) || [];
  const [first, second] = numbers.split(",").map(Number);
  if (kind === "Fischer") return { Fischer: { initialSeconds: first, incrementSeconds: second } };
  if (kind === "SuddenDeath") return { SuddenDeath: { initialSeconds: first } };
  if (kind === "PerMove") return { PerMove: { secondsPerMove: first } };
  return kind === "Unlimited" ? { Unlimited: {} } : null;
}

export const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

const OUTCOME = { win: "won", loss: "lost", draw: "drew", unknown: "aborted" }; // under a profile's name
const YOURS = { win: "You won", loss: "You lost", draw: "You drew", unknown: "Aborted" };

// One finished game from a player's own side (a profile's recent games, "Your games" on the
// history page): "won as White against Ann" (`mine`: "You won as White against Ann"), then how it
// ended, the clock and the date, and its replay.
export function ownGameRow(game, { mine = false } = {}) {
  const item = element("li", null, { class: "game-row" });
  item.dataset.game = game.gameId;
  const line = element("span", null, { class: "players-line" });
  const said = (mine ? YOURS : OUTCOME)[game.result] || game.result;
  line.append(
    element("span", `${said} as ${game.seat} against `, { class: `outcome-${game.result}` }),
    faceLink(game.opponent), // a guest, or an account deleted since: the record cannot tell
  );
  const aborted = game.termination === "aborted"; // says so once, and rates nothing
  const clock = typeof game.timeControl === "string" ? timeControlOfText(game.timeControl) : game.timeControl;
  const why = aborted ? abortWords(game.abort, mine ? { you: game.seat, opponent: "your opponent" } : {}) : null;
  const words = [aborted ? why ?? "no result" : endingWords(game.termination, game.disconnect), timeControlLabel(clock)];
  const meta = element("span", null, { class: "meta" });
  meta.append(`${words.filter(Boolean).join(" \u00b7 ")} \u00b7 `);
  // rated: and once the batch has applied it, what it did to this side's rating ("rated +12")
  if (game.rated && !aborted) meta.append(...ratedWords(game.ratingChange), " \u00b7 ");
  meta.append(element("time", WHEN.format(new Date(game.finishedAt)), { datetime: game.finishedAt }));
  item.append(line, element("a", "Replay", { href: `/replay/${game.gameId}`, class: "replay button" }), meta);
  return item;
}

// "Older games" (`button`) under a list of games (`list`): a press reads the page before the last
// game shown through `read(before)`, which answers { rows, more, next } (`next`: the `before` of
// the page after it) or null once it has said why it could not; the rows are appended, and the
// last page hides the button, a keyboard's focus going on to the first game it added. Returns
// `shown(more, next)`, for a page laid out by the caller (a list's first).
export function pageOlder(button, list, read) {
  let before = null;
  const shown = (more, next) => {
    button.hidden = !more;
    if (next !== undefined) before = next;
  };
  button.addEventListener("click", async () => {
    const focused = document.activeElement === button; // a disabled button loses it
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    const page = await read(before);
    button.disabled = false;
    button.removeAttribute("aria-busy");
    if (!page) return;
    list.append(...page.rows);
    if (!page.more && focused) page.rows[0]?.querySelector("a.replay")?.focus();
    shown(page.more, page.next);
  });
  return shown;
}

// A rating change as players write it: "+12", "−8" (a minus sign), "±0".
export const signed = (value) => (value > 0 ? `+${value}` : value < 0 ? `\u2212${-value}` : "\u00b10");

// A game's share of a rating change, green up and red down: "+12".
export function ratingChangeTag(change) {
  const rounded = Math.round(change);
  const way = rounded > 0 ? "up" : rounded < 0 ? "down" : "even";
  return element("span", signed(rounded), { class: `rating-change rating-${way}` });
}

// "rated", then the game's share of the rating change when known.
function ratedWords(change) {
  if (change === undefined || change === null) return ["rated"];
  return ["rated ", ratingChangeTag(change)];
}

// How a finished game ended, in words: "White won by resignation", "Draw by agreement".
const HOW = {
  king_captured: "king captured", timeout: "on time", resign: "by resignation",
  draw_agreement: "by agreement", no_progress: "no progress",
};

// How a game ended, in the words of the history page: "by resignation", "on time". A record or
// list entry marked `disconnect` is a forfeit (the loser stayed away past the grace), which the
// archive names `resign`.
export function endingWords(termination, disconnect = false) {
  if (termination === "aborted") return "aborted";
  if (disconnect) return "by forfeit";
  return HOW[termination] || termination.replace(/_/g, " ");
}

// Why a players' game was aborted (a record's or a list entry's `abort`: its cause and the seat
// that caused it), in words that go after a colon: "White did not play a first move in time".
// `you`: the reader's own seat, called "you"; `opponent`: what to call the other one (by default
// its seat). Null when the record does not say.
function abortWords(abort, { you = null, opponent = null } = {}) {
  if (!abort) return null;
  const who = !you || !abort.seat ? abort.seat : abort.seat === you ? "you" : opponent ?? abort.seat;
  switch (abort.cause) {
    case "first_move": return `${who} did not play a first move in time`;
    case "resign": return `${who} aborted the game before both sides had played a turn`;
    case "timeout": return `${who} ran out of time before both sides had played a turn`;
    case "disconnect": return `${who} left before both sides had played a turn`;
    case "both_away": return "both players were away";
    case "not_joined": return abort.seat ? `${who} never came to the board` : "neither player came to the board";
    default: return null;
  }
}

// Why an aborted game has no result: the server's own abort (`technical`), else the players'
// (`abortWords`, with `who` as there); null when nothing says.
export function whyAborted({ abort = null, technical = false }, who = {}) {
  return technical ? "the server could not go on" : abortWords(abort, who);
}

// A phrase as the start of a sentence.
export function sentence(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// How a finished game ended, from its record or its entry in a list (`result` from White's side,
// `termination`, and `disconnect`, `abort`, `technical` where it has them): "White won by
// resignation", "Aborted: Black did not play a first move in time".
export function resultText({ result, termination, disconnect = false, abort = null, technical = false }) {
  if (termination === "aborted") {
    const why = whyAborted({ abort, technical });
    return why ? `Aborted: ${why}` : "Aborted";
  }
  if (disconnect && result === 1) return "White won: Black left the game";
  if (disconnect && result === -1) return "Black won: White left the game";
  const how = endingWords(termination);
  const joined = how.startsWith("by ") || how.startsWith("on ") ? ` ${how}` : `: ${how}`;
  if (result === 1) return `White won${joined}`;
  if (result === -1) return `Black won${joined}`;
  return `Draw${joined}`;
}

// A field's text to the clipboard: true once copied; false where the page has no clipboard
// access (an http page on another host), the text then selected to copy by hand.
export async function copyField(input) {
  try {
    await navigator.clipboard.writeText(input.value);
    return true;
  } catch {
    input.select();
    return false;
  }
}

// A page with nothing to show its visitor (signed out, or a server without what it is for):
// its card says why, with "Sign in" (back to this address afterwards) when signing in helps.
export function sayClosed(card, why, { signIn = false } = {}) {
  card.hidden = false;
  card.querySelector(".closed-why").textContent = why;
  const link = card.querySelector(".sign-in-here");
  link.hidden = !signIn;
  link.href = `/auth/login?next=${encodeURIComponent(location.pathname + location.search)}`;
}

// ----- the account corner ---------------------------------------------------------------------

// GET /web/site: who is signed in and what this server offers (sign-in, the showcase, ratings).
// It answers 200 in every case, so a signed-out page logs no failed request (GET /auth/me's 401,
// or its 404 on a server without sign-in, would be a red console error on every page).
let site = null;
export function siteInfo() {
  site ??= getJson("/web/site")
    .then((answer) => (answer.status === 200 ? answer.body : {}))
    .catch(() => ({}));
  return site;
}

async function showAccount(corner) {
  const info = await siteInfo();
  if (info.account) return showSignedIn(corner, info.account, { bots: Boolean(info.bots) });
  if (info.signIn) {
    // sign-in is mounted: come back here afterwards (from the page of a failed sign-in, home: a
    // sign-in that works would land on the failure's words again)
    const here = location.pathname === "/sign-in-failed" ? "/" : location.pathname + location.search;
    const next = encodeURIComponent(here);
    corner.replaceChildren(element("a", "Sign in", { href: `/auth/login?next=${next}`, id: "sign-in", class: "button" }));
    return;
  }
  corner.replaceChildren(); // this server has no sign-in
}

// The account as this browser's other tabs of the site should know it at once, as lichess's
// do: a new nickname shows in their headers, a sign-out reloads them (none goes on as the
// account). Told through `localStorage`, whose changes reach every other tab of the site.
const ACCOUNT_NEWS = "playsite.accountNews";

export function tellOtherTabs(news) {
  try { localStorage.setItem(ACCOUNT_NEWS, JSON.stringify({ ...news, at: Date.now() })); } catch { /* storage off */ }
}

function heedOtherTabs() {
  window.addEventListener("storage", (event) => {
    if (event.key !== ACCOUNT_NEWS || !event.newValue) return;
    let news = null;
    try { news = JSON.parse(event.newValue); } catch { return; }
    if (news?.signedOut) {
      // this tab's seats were the account's too: its game pages say so after the reload
      forgetSeats(news.playing);
      location.reload();
    }
    else if (typeof news?.nickname === "string" && $("account-name")) showNickname(news.nickname);
  });
}

// The account's new nickname in the header, told to the page too (`NICKNAME_CHANGED`, its
// detail the nickname) for what the page itself shows of it (Your account).
export const NICKNAME_CHANGED = "playsite:nickname";
function showNickname(nickname) {
  $("account-name").textContent = nickname;
  const profile = $("account-profile");
  if (profile) profile.href = `/@/${encodeURIComponent(nickname)}`;
  document.dispatchEvent(new CustomEvent(NICKNAME_CHANGED, { detail: nickname }));
}

// `bots`: accounts manage their bots here (the menu links to them).
function showSignedIn(corner, me, { bots = false } = {}) {
  const name = element("span", me.nickname || "signed in", { id: "account-name" });
  // Signing out ends this browser's session, or every session of the account (docs/accounts.md),
  // as lichess's menu has both.
  const outs = [
    { everywhere: false, words: "Sign out", button: element("button", "Sign out", { id: "sign-out", type: "button", title: "Ends your session in this browser" }) },
    { everywhere: true, words: "Sign out everywhere", button: element("button", "Sign out everywhere", { id: "sign-out-everywhere", type: "button", title: "Ends your session on every device" }) },
  ];
  const form = element("form", null, { id: "nickname-form" });
  const input = element("input", null, {
    id: "nickname-input", name: "nickname", required: "", pattern: "[A-Za-z0-9_\\-]{3,20}",
    placeholder: me.nickname ? "new nickname" : "choose a nickname", "aria-label": "nickname", size: "14",
  });
  const save = element("button", "Change", { type: "submit" });
  const message = element("span", "", { id: "account-message", class: "message" });
  // A refusal or a warning reads in the colour of errors, "Saved." as news (play-through s59: it
  // was red too).
  const say = (text, { info = false } = {}) => {
    message.textContent = text;
    message.classList.toggle("info", info);
  };
  form.append(input, save);
  // One control in the header, as lichess has it: the name opens a menu with the rest, so the
  // header keeps to one line on a phone.
  const details = element("details", null, { id: "account-menu" });
  const summary = element("summary", null, { title: "Your account" });
  summary.append(name);
  const menu = element("div", null, { class: "menu" });
  if (me.nickname) menu.append(element("a", "Your profile", { href: `/@/${encodeURIComponent(me.nickname)}`, id: "account-profile" }));
  menu.append(element("a", "Your games", { href: "/history?mine=1", id: "account-games" }));
  menu.append(element("a", "Your account", { href: "/account", id: "account-page" }));
  if (bots) menu.append(element("a", "Your bots", { href: "/account/bots", id: "account-bots" }));
  menu.append(element("span", "Nickname", { class: "hint" }), form, message, ...outs.map((out) => out.button));
  details.append(summary, menu);
  // A menu closes as menus do: a tap or click anywhere else, or Escape (the focus back on the name)
  document.addEventListener("pointerdown", (event) => {
    if (details.open && !details.contains(event.target)) details.open = false;
  });
  details.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !details.open) return;
    event.stopPropagation(); // the menu's Escape, not the page's (the play page drops a selection)
    details.open = false;
    summary.focus();
  });
  let warned = null; // the sign-out whose games to give up were said: its next click signs out
  let busy = false; // a click is being answered: the button stays, focus and all (a disabled one
  // handed the focus to the page, and Escape then never reached the menu: play-through s63)
  const unwarn = () => {
    if (warned) warned.button.textContent = warned.words;
    warned = null;
  };
  // A warning holds while the menu is open: closed and opened again, the button asks anew.
  details.addEventListener("toggle", () => {
    if (details.open || !warned) return;
    unwarn();
    say("");
  });
  let playingAtSignOut = []; // the live games the account held a seat in, as the warning read them
  const signOut = async (out) => {
    if (busy) return;
    busy = true;
    out.button.setAttribute("aria-busy", "true");
    const done = () => { busy = false; out.button.removeAttribute("aria-busy"); };
    if (warned !== out) {
      unwarn();
      const now = await getJson("/auth/me").catch(() => null);
      playingAtSignOut = now?.status === 200 ? now.body.playing || [] : [];
      // a friend game still waiting for its other player loses nothing: nobody is counted away
      const waiting = new Set(now?.status === 200 ? now.body.waiting || [] : []);
      const playing = playingAtSignOut.filter((id) => !waiting.has(id));
      if (playing.length) {
        warned = out;
        const games = playing.length === 1 ? "a game" : `${playing.length} games`;
        say(`You are playing ${games}: signed out, you lose ${playing.length === 1 ? "it" : "them"}`
          + " unless you sign in again within 30 s.");
        out.button.textContent = `${out.words} anyway`;
        done();
        details.open = true;
        return;
      }
    }
    const answer = await sendJson("POST", "/auth/logout", { everywhere: out.everywhere });
    if (answer.status === 204) {
      forgetSeats(playingAtSignOut); // the next person here is not seated; those games' pages say how to come back
      tellOtherTabs({ signedOut: true, playing: playingAtSignOut });
      location.reload(); // and no page goes on as the account's (a game's page watches from now on)
      return;
    }
    done();
    say(answer.body?.title || "Signing out failed; try again.");
    details.open = true;
  };
  for (const out of outs) out.button.addEventListener("click", () => signOut(out));
  // A message answers the last attempt only: typing clears it, and a malformed name (which
  // the browser stops before it is sent) gets the rule, never the previous answer.
  input.addEventListener("input", () => say(""));
  // the rule in the menu's words only: the browser's own bubble hid half of them (play-through s61)
  input.addEventListener("invalid", (event) => {
    event.preventDefault();
    say("A nickname is 3 to 20 letters, digits, _ or -.");
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await sendJson("PATCH", "/auth/me", { nickname: input.value });
    if (answer.status === 200) {
      showNickname(answer.body.nickname);
      input.value = "";
      say("Saved.", { info: true });
      tellOtherTabs({ nickname: answer.body.nickname });
    } else {
      const problem = answer.body || {}; // the accounts' refusals are problem details: {code, title}
      say(problem.code === "nickname_taken" ? "Another player has this nickname."
        : problem.code === "nickname_reserved" ? "Another player went by this nickname: it stays theirs."
        : answer.status === 400 ? "A nickname is 3 to 20 letters, digits, _ or -."
        : problem.title || "That nickname cannot be used.");
    }
  });
  corner.replaceChildren(details);
  tellNicknameTaken(details, say, me.nickname);
}

// A first sign-in whose nickname was another account's comes back with `?nickname_taken=<it>`:
// the menu opens to say so, beside the field for another name, and the word leaves the address
// (a reload or a shared link says nothing again).
function tellNicknameTaken(details, say, nickname) {
  const params = new URLSearchParams(location.search);
  const wanted = params.get("nickname_taken");
  if (!wanted) return;
  params.delete("nickname_taken");
  const rest = params.toString();
  history.replaceState(history.state, "", `${location.pathname}${rest ? `?${rest}` : ""}${location.hash}`);
  details.open = true;
  say(`${wanted} is another player's nickname, so you are ${nickname}. Choose another here if you like.`, { info: true });
}

export function mountHeader() {
  const corner = $("account");
  if (!corner) return;
  showAccount(corner);
  heedOtherTabs();
}

// A rating as people read it: "1500" or, while the rating rests on few games, "1500, provisional"
// (lichess writes "1500?"), with a tooltip saying what that means.
export const PROVISIONAL_NOTE = "Provisional: based on too few games to be reliable yet; it moves a lot with each result.";

// "1612 ±80" and "9 / 1 / 5" with no-break spaces: on a phone a rating and its deviation, or a
// record's three counts, never wrap apart.
export function ratingText(entry) {
  return `${Math.round(entry.rating)}\u00a0\u00b1${Math.round(entry.rd)}`;
}

export function recordText(entry) {
  return [entry.wins, entry.draws, entry.losses].join("\u00a0/\u00a0");
}

// `compact`: "1500?" where room is short (a table's cell, as the game page's names have it).
export function ratingLabel(rating, provisional, { compact = false } = {}) {
  const label = element("span", `${Math.round(rating)}${provisional ? (compact ? "?" : ", provisional") : ""}`, { class: "rating" });
  if (provisional) {
    label.title = PROVISIONAL_NOTE;
    label.classList.add("provisional");
  }
  return label;
}

// Calls `read` now and then every `periodMs` while the tab is visible; a hidden tab pauses,
// and coming back reads at once. `read` may be async; a slow read is never overlapped. The
// handle's `now()` reads at once, or right after a read under way (which may have been asked
// before what `now()` knows changed); the period starts again from it.
export function whileVisible(read, periodMs) {
  let timer = null;
  let busy = false;
  let again = false;
  async function tick() {
    clearTimeout(timer);
    timer = null;
    if (document.hidden) return;
    if (busy) { again = true; return; }
    busy = true;
    try { await read(); } finally { busy = false; }
    if (again) { again = false; tick(); return; }
    if (!document.hidden) timer = setTimeout(tick, periodMs);
  }
  document.addEventListener("visibilitychange", () => { if (!document.hidden && timer === null && !busy) tick(); });
  tick();
  return { now: tick };
}

// Scroll `list` (a scrolling container) just enough to show `item`, centring it when it was out
// of view: the move lists follow the newest turn, or the one being looked at.
// A board its page's list of turns changed (a tap on a turn on a phone, where the list is far
// below it): scrolled back into sight when less than half of it is on the screen, so the
// position asked for is seen. A board in sight (a desktop, the list beside it) is not moved.
export function bringIntoSight(board) {
  const box = board.getBoundingClientRect();
  const seen = Math.min(box.bottom, innerHeight) - Math.max(box.top, 0);
  if (seen < box.height / 2) board.scrollIntoView({ block: "start", behavior: "smooth" });
}

export function keepInView(list, item) {
  if (!item) return;
  const top = item.getBoundingClientRect().top - list.getBoundingClientRect().top + list.scrollTop;
  if (top < list.scrollTop || top + item.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = top - (list.clientHeight - item.offsetHeight) / 2;
  }
}
