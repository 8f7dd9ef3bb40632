// A profile page: /@/<nickname> reads GET /players/<nickname>, /@/<team>/<name> reads
// GET /bots/<team>/<name>. Rating, record, the rating graph (`.../rating-history`), opponents
// and recent games (each to its replay), and older ones page by page (`.../games`).
import { getJson } from "./net.js";
import { periodWords } from "./ratingchange.js";
import { mountRatingGraph } from "./ratinggraph.js";
import { $, element, faceLink, mountHeader, ownGameRow, pageOlder, PROVISIONAL_NOTE, ratingText, recordText, showMissing, siteInfo } from "./site.js";

const parts = location.pathname.split("/").slice(2).map(decodeURIComponent); // after "/@/"
const isBot = parts.length === 2;
const title = isBot ? `${parts[0]}/${parts[1]}` : parts[0];
const source = isBot
  ? `/bots/${encodeURIComponent(parts[0])}/${encodeURIComponent(parts[1])}`
  : `/players/${encodeURIComponent(parts[0])}`;

// A table row: the first cell reads as text, the others are numbers.
function cellRow(cells) {
  const tr = element("tr");
  cells.forEach((cell, index) => {
    const td = element("td", null, index === 0 ? {} : { class: "num" });
    td.append(cell);
    tr.append(td);
  });
  return tr;
}

// A profile lists its newest games (RECENT of them); "Older games" reads the pages before the
// last one shown (`.../games?before=`, 20 a page), appended, for as long as there are more.
const RECENT = 20;
const older = pageOlder($("older-games"), $("recent"), async (before) => {
  const answer = await getJson(`${source}/games?before=${encodeURIComponent(before)}`).catch(() => null);
  if (answer?.status !== 200) {
    $("older-message").textContent = "The older games could not be read; try again.";
    return null;
  }
  $("older-message").textContent = "";
  const { games, hasMore } = answer.body;
  return { rows: games.map((game) => ownGameRow(game)), more: hasMore, next: games.at(-1)?.finishedAt };
});

async function load() {
  $("profile-name").textContent = isBot ? `Bot ${title}` : title;
  document.title = `playsite: ${title}`;
  const site = await siteInfo();
  if (site.ratings === false) {
    $("profile-message").textContent = "This server keeps no profiles (it runs without a database).";
    $("profile-message").classList.add("info");
    return;
  }
  const answer = await getJson(source);
  if (answer.status !== 200) {
    const code = answer.body?.error?.code;
    if (code === "player_not_found" || code === "bot_not_found") {
      // as every page of something that is not here: what, and the ways on
      showMissing(`No ${isBot ? "bot" : "player"} called ${title}`, isBot
        ? "The link is wrong, or no bot of that name has ever been registered here."
        : "The link is wrong, or nobody has ever gone by that nickname here.");
      document.title = "playsite: not found";
      return;
    }
    $("profile-message").textContent = code === "persistence_required"
      ? "This server keeps no profiles (it runs without a database)."
      : "The profile could not be read; reload to try again.";
    return;
  }
  const profile = answer.body;
  let name = title;
  if (!isBot && profile.nickname && profile.nickname !== title) {
    // a name the player gave up (or another case of it): the page is theirs under the name they have now
    name = profile.nickname;
    history.replaceState(null, "", `/@/${encodeURIComponent(name)}${location.search}${location.hash}`);
    $("profile-name").textContent = name;
    document.title = `playsite: ${name}`;
    if (profile.nickname.toLowerCase() !== title.toLowerCase()) {
      $("profile-message").textContent = `${title} is now called ${name}.`;
      $("profile-message").classList.add("info");
    }
  }
  $("profile-rating").textContent = `Rating ${ratingText(profile)}`
    + `${profile.provisional ? ", provisional" : ""}${isBot && profile.onLadder ? ", on the ladder" : ""}`;
  if (profile.provisional) $("profile-rating").title = PROVISIONAL_NOTE;
  $("profile-record").textContent = profile.games
    ? `${profile.games} rated ${profile.games === 1 ? "game" : "games"}: ${profile.wins} won, ${profile.draws} drawn, ${profile.losses} lost.`
    : "No rated game counted yet."; // none played, or none a rating period has counted
  // a recent rated game the ratings do not hold yet: when it will count
  const waiting = profile.recent.some((game) => game.rated && game.termination !== "aborted" && game.ratingChange === undefined);
  if (waiting && site.ratingPeriodS) {
    $("profile-record").append(` Ratings are updated ${periodWords(site.ratingPeriodS)}; a rated game counts at the next update.`);
  }
  $("opponents").tBodies[0].replaceChildren(...profile.opponents.map((opponent) => cellRow([
    // A bot's profile counts every person in one row; a person's names each account apart
    opponent.opponent.kind === "Human" && !opponent.opponent.name
      ? (isBot ? "people, all together" : "other players, all together") : faceLink(opponent.opponent),
    String(opponent.games), recordText(opponent),
  ])));
  if (!profile.opponents.length) {
    const empty = element("tr");
    empty.append(element("td", "No opponent yet.", { colspan: "3", class: "hint" })); // decided games, rated or casual
    $("opponents").tBodies[0].append(empty);
  }
  $("recent").replaceChildren(...profile.recent.map((game) => ownGameRow(game)));
  if (!profile.recent.length) $("recent").replaceChildren(element("li", "No game yet.", { class: "hint" }));
  older(profile.recent.length >= RECENT, profile.recent.at(-1)?.finishedAt);
  $("profile").hidden = false;
  await mountRatingGraph($("rating-graph"), `${source}/rating-history`, name);
}

mountHeader();
load().catch(() => { $("profile-message").textContent = "The server is not answering; reload to try again."; });
