// The history page: the newest finished games (GET /archive), each opening its replay.
import { getJson } from "./net.js";
import { $, element, faceLink, mountHeader, resultText } from "./site.js";

const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

const PAGE = 30; // games a page asks for: a full page means there may be older ones

function gameRow(game) {
  const item = element("li", null, { class: "game-row" });
  item.dataset.game = game.gameId;
  const players = element("span", null, { class: "players-line" });
  players.append(faceLink(game.players?.white), " vs ", faceLink(game.players?.black));
  // Counted as a chess player counts: moves, White's and Black's turn of each number together
  // (a forced pass is a turn too, so the seats take turns strictly: 55 turns are 28 moves).
  const moves = Math.ceil(game.turns / 2);
  const turns = `${moves} ${moves === 1 ? "move" : "moves"}`;
  const meta = element("span", null, { class: "meta" });
  meta.append(
    element("span", resultText(game.result, game.termination, game.disconnect), { class: "result" }),
    ` \u00b7 ${turns}${game.rated && game.termination !== "aborted" ? " \u00b7 rated" : ""} \u00b7 `, // an abort rates nothing
    element("time", WHEN.format(new Date(game.finishedAt)), { datetime: game.finishedAt }),
  );
  item.append(players, element("a", "Replay", { href: `/replay/${game.gameId}`, class: "replay button" }), meta);
  return item;
}

// A page of finished games: the newest, or (`before`, a listed game's id) the ones before it.
// A full page offers the next one ("Older games"), as long as there are more.
async function listFinished(before = null) {
  const list = $("finished-games");
  const more = $("older-games");
  let answer;
  more.disabled = true;
  try {
    answer = await getJson(`/archive?limit=${PAGE}${before ? `&before=${encodeURIComponent(before)}` : ""}`);
  } catch {
    $("history-message").textContent = "The server is not answering; reload to try again.";
    more.disabled = false;
    return;
  }
  more.disabled = false;
  if (answer.status !== 200) {
    $("history-message").textContent = answer.body?.error?.message || "The finished games could not be read.";
    return;
  }
  const { games } = answer.body;
  if (before) list.append(...games.map(gameRow));
  else list.replaceChildren(...games.map(gameRow));
  if (!before && !games.length) list.replaceChildren(element("li", "No game has finished yet.", { class: "hint" }));
  more.hidden = games.length < PAGE;
  if (games.length) more.dataset.before = games[games.length - 1].gameId;
}

$("older-games").addEventListener("click", () => listFinished($("older-games").dataset.before));
mountHeader();
listFinished();
