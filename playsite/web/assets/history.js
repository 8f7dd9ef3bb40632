// The history page: the newest finished games (GET /archive), each opening its replay.
import { getJson } from "./net.js";
import { $, element, faceLink, mountHeader, resultText } from "./site.js";

const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

async function listFinished() {
  const list = $("finished-games");
  let answer;
  try {
    answer = await getJson("/archive");
  } catch {
    $("history-message").textContent = "The server is not answering; reload to try again.";
    return;
  }
  if (answer.status !== 200) {
    $("history-message").textContent = answer.body?.error?.message || "The finished games could not be read.";
    return;
  }
  list.replaceChildren(...answer.body.games.map((game) => {
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
  }));
  if (!answer.body.games.length) list.replaceChildren(element("li", "No game has finished yet.", { class: "hint" }));
}

mountHeader();
listFinished();
