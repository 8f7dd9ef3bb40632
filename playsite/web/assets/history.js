// The history page: the newest finished games (GET /archive), each opening its replay.
import { getJson } from "./net.js";
import { $, element, faceLink, mountHeader, resultText } from "./site.js";

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
    const item = element("li");
    item.dataset.game = game.gameId;
    const when = new Date(game.finishedAt).toLocaleString();
    item.append(
      faceLink(game.players?.white), " vs ", faceLink(game.players?.black),
      element("span", `: ${resultText(game.result, game.termination)}, ${game.turns} turns, ${when} `),
      element("a", "Replay", { href: `/replay/${game.gameId}`, class: "replay" }),
    );
    return item;
  }));
  if (!answer.body.games.length) list.textContent = "No game has finished yet.";
}

mountHeader();
listFinished();
