// The history page: the newest finished games (GET /archive), each opening its replay; with
// ?people=1, "With people": only the games a person played in (the bots' own games, a ladder's
// or a house's, can fill the list); with ?mine=1, "Your games": the signed-in account's (GET
// /auth/me/games), else this browser's guest's (GET /players/{guestId}/games), from the
// player's own side, 20 a page.
import { getJson, guestId, sendJson } from "./net.js";
import { $, element, faceLink, mountHeader, ownGameRow, pageOlder, resultText, siteInfo, WHEN } from "./site.js";

// ?mine=1: one's own games (the account's, signed in, with the guest games it linked; else this
// browser's guest's);
// ?mine=browser: this browser's guest games, signed in or not (those played before signing in)
const which = new URLSearchParams(location.search).get("mine");
const mine = which === "1" || which === "browser";
const people = !mine && new URLSearchParams(location.search).get("people") === "1";

const PAGE = 30; // games a page asks for: a full page means there may be older ones

function gameRow(game) {
  const item = element("li", null, { class: "game-row" });
  item.dataset.game = game.gameId;
  const players = element("span", null, { class: "players-line" });
  players.append(faceLink(game.players?.white), " vs ", faceLink(game.players?.black));
  // Counted as a chess player counts: moves, White's and Black's turn of each number together
  // (a forced pass is a turn too, so the seats take turns strictly: 55 turns are 28 moves).
  // An abort is said without a count: its turns are at most one side's, often only passes
  // (play-through s61: "aborted before both sides had played a turn · 1 move").
  const aborted = game.termination === "aborted";
  const moves = Math.ceil(game.turns / 2);
  const turns = aborted ? "" : ` \u00b7 ${moves} ${moves === 1 ? "move" : "moves"}`;
  const meta = element("span", null, { class: "meta" });
  meta.append(
    element("span", resultText(game), { class: "result" }),
    `${turns}${game.rated && !aborted ? " \u00b7 rated" : ""} \u00b7 `, // an abort rates nothing
    element("time", WHEN.format(new Date(game.finishedAt)), { datetime: game.finishedAt }),
  );
  item.append(players, element("a", "Replay", { href: `/replay/${game.gameId}`, class: "replay button" }), meta);
  return item;
}

// One page's read: its body, or null once the failure is said (`failed` words a refusal of the
// server's by its status).
async function readPage(path, failed) {
  const answer = await getJson(path).catch(() => null);
  if (answer?.status === 200) return answer.body;
  $("history-message").textContent = answer ? failed(answer) : "The server is not answering; reload to try again.";
  return null;
}

// A page of finished games: the newest, or (`before`, a listed game's id) the ones before it.
// A full page offers the next one ("Older games"), as long as there are more.
async function finishedPage(before) {
  const body = await readPage(`/archive?limit=${PAGE}${people ? "&people=1" : ""}${before ? `&before=${encodeURIComponent(before)}` : ""}`,
    (answer) => answer.body?.error?.message || "The finished games could not be read.");
  if (!body) return null;
  const { games } = body;
  return { rows: games.map(gameRow), more: games.length >= PAGE, next: games.at(-1)?.gameId };
}

// Whose games "Your games" lists: the account's (signed in, unless ?mine=browser), else this
// browser's guest's.
async function mineSource() {
  const info = await siteInfo();
  const account = Boolean(info.account) && which !== "browser";
  return { info, account, path: account ? "/auth/me/games" : `/players/${guestId()}/games` };
}

// A page of this person's games: the newest, or (`before`, the last listed game's finishedAt)
// the ones before it; the server says whether there are more.
async function minePage(before) {
  const { path } = await mineSource();
  const body = await readPage(`${path}${before ? `?before=${encodeURIComponent(before)}` : ""}`,
    (answer) => (answer.status === 404 ? "This server keeps no finished games (it runs without a database)."
      : answer.body?.error?.message || answer.body?.title || "Your games could not be read."));
  if (!body) return null;
  const { games, hasMore } = body;
  return { rows: games.map((game) => ownGameRow(game, { mine: true })), more: hasMore, next: games.at(-1)?.finishedAt };
}

const readOlder = mine ? minePage : finishedPage;
const older = pageOlder($("older-games"), $("finished-games"), readOlder);

// The list's first page, in place of what it showed (`empty` said when it has none); for "Your
// games", whose list it is: the account's (with the games this browser played without signing
// in, once linked, or the way to link them), or this browser's (and, where sign-in is offered,
// what signing in adds).
async function listFirst() {
  const page = await readOlder(null);
  if (!page) return;
  const { info, account } = mine ? await mineSource() : {};
  const empty = !mine ? (people ? "No game with a person at the board has finished yet." : "No game has finished yet.")
    : account ? "You have not finished a game while signed in yet." : "No finished game in this browser yet.";
  $("finished-games").replaceChildren(...(page.rows.length ? page.rows : [element("li", empty, { class: "hint" })]));
  older(page.more, page.next);
  if (!mine) return;
  const note = $("mine-note");
  if (account) {
    await offerBrowserGames(note);
  } else {
    note.textContent = `The games played in this browser without signing in.${info.signIn && !info.account ? " Sign in to keep your games wherever you play." : ""}`;
  }
  note.hidden = false;
}

// Signed in: the games this browser played as a guest are the account's once it links them
// (`POST /auth/me/guests`, final: a guest is linked to one account for good), as the
// ecosystem's site offers; until then they are listed apart.
async function offerBrowserGames(note) {
  const [claimed, played] = await Promise.all([
    getJson("/auth/me/guests").catch(() => null),
    getJson(`/players/${guestId()}/games`).catch(() => null),
  ]);
  if (claimed?.body?.guests?.includes(guestId())) {
    note.textContent = "Your games, with those this browser played before you signed in.";
    return;
  }
  if (!played?.body?.games?.length) {
    note.textContent = "Your games while signed in.";
    return;
  }
  const link = element("button", "Add them to your games", { type: "button", id: "link-browser-games" });
  note.replaceChildren("Your games while signed in. This browser also played ",
    element("a", "games without signing in", { href: "/history?mine=browser" }), ": ", link);
  link.addEventListener("click", async () => {
    link.disabled = true;
    const answer = await sendJson("POST", "/auth/me/guests", { guestId: guestId() }).catch(() => null);
    if (answer?.status === 200 || answer?.status === 201) {
      $("history-message").textContent = "";
      await listFirst(); // the list again, with them
      $("finished-games").querySelector("a.replay")?.focus();
      return;
    }
    link.disabled = false;
    const code = answer?.body?.code;
    $("history-message").textContent = code === "guest_claimed" ? "Those games are another account's: they stay apart."
      : !answer || answer.status >= 500 ? "The server did not answer: reload the page to see whether they were added."
      : answer.body?.title || "They could not be added.";
  });
}

$(mine ? "your-games" : people ? "people-games" : "all-games").setAttribute("aria-current", "page");
mountHeader();
listFirst();
