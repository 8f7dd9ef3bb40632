// The ranking page: bots and players from GET /leaderboard, each linking to its profile.
import { getJson } from "./net.js";
import { $, element, mountHeader, PROVISIONAL_NOTE, ratingText, recordText, siteInfo } from "./site.js";

// A settled rating as "1612 ±80"; a provisional one marked as such, with the reason on hover.
function ratingCell(entry) {
  if (!entry.provisional) return ratingText(entry);
  const cell = element("span", null, { class: "rating provisional" });
  // "1612 ±280, provisional"; on a phone "1612?", as the names by a board write it (one line a row)
  cell.append(element("span", String(Math.round(entry.rating)), { class: "figures" }),
    element("span", `\u00a0\u00b1${Math.round(entry.rd)}, provisional`, { class: "word" }));
  cell.title = PROVISIONAL_NOTE;
  return cell;
}

// A table row; the name (second cell) reads as text, every other cell is a number. Under the
// name, a line for phones, where the games and record columns give way to it (style.css,
// table.ranking): "15 games · 9 / 1 / 5".
function row(entry, name) {
  const cells = [String(entry.rank), name, ratingCell(entry), String(entry.games), recordText(entry)];
  const tr = element("tr");
  cells.forEach((cell, index) => {
    const td = element("td", null, index === 1 ? {} : { class: "num" });
    td.append(cell);
    tr.append(td);
  });
  const games = `${entry.games} ${entry.games === 1 ? "game" : "games"}`;
  tr.cells[1].append(element("span", `${games} \u00b7 ${recordText(entry)}`, { class: "sub" }));
  return tr;
}

function emptyRow(text) {
  const tr = element("tr");
  tr.append(element("td", text, { colspan: "5", class: "hint" }));
  return tr;
}

async function load() {
  if ((await siteInfo()).ratings === false) {
    $("ranking-message").textContent = "This server keeps no ratings (it runs without a database).";
    $("ranking-message").classList.add("info");
    document.querySelector(".ranking-grid").hidden = true;
    return;
  }
  const answer = await getJson("/leaderboard?provisional=true"); // provisional ratings too, after the converged ones
  if (answer.status !== 200) {
    $("ranking-message").textContent = answer.body?.error?.code === "persistence_required"
      ? "This server keeps no ratings (it runs without a database)."
      : "The ranking could not be read; reload to try again.";
    return;
  }
  const bots = answer.body.leaders.map((bot) => {
    const href = `/@/${encodeURIComponent(bot.team)}/${encodeURIComponent(bot.name)}`;
    const name = element("a", `${bot.team}/${bot.name}`, { href });
    return row(bot, name);
  });
  const players = (answer.body.players || []).map((player) => {
    const name = element("a", player.nickname, { href: `/@/${encodeURIComponent(player.nickname)}` });
    return row(player, name);
  });
  $("bot-ranking").tBodies[0].replaceChildren(...bots);
  $("player-ranking").tBodies[0].replaceChildren(...players);
  if (!bots.length) $("bot-ranking").tBodies[0].append(emptyRow("No bot is rated yet."));
  if (!players.length) $("player-ranking").tBodies[0].append(emptyRow("No player is rated yet."));
}

mountHeader();
load().catch(() => { $("ranking-message").textContent = "The server is not answering; reload to try again."; });
