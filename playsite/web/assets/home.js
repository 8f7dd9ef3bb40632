// The home page: the showcase table live (polled with its ETag), a friend game, live games.
import { getJson, guestId, keepSeat, postJson } from "./net.js";
import { mountHeader, ratingLabel, siteInfo, whileVisible } from "./site.js";

const $ = (id) => document.getElementById(id);
let showcaseTag = null;

function friendLink(gameId, seat, token) {
  return `${location.origin}/play/${gameId}#seat=${seat}&token=${encodeURIComponent(token)}`;
}

function goPlay(gameId, seat, token) {
  keepSeat(gameId, seat, token);
  location.assign(`/play/${gameId}`);
}

async function pollShowcase() {
  try {
    const answer = await getJson("/showcase", showcaseTag);
    if (answer.status === 404) return; // no showcase on this server
    $("showcase").hidden = false;
    if (answer.status === 200) {
      showcaseTag = answer.etag;
      const table = answer.body;
      const status = $("showcase-status");
      status.dataset.status = table.status;
      const bot = `${table.featuredBot.team}/${table.featuredBot.name}`;
      status.textContent = {
        open: `Open: play ${bot} as ${table.nextHumanColor}, 5+3.`,
        live: `A game against ${bot} is on.`,
        finishing: "The last game just ended; the table opens again in a moment.",
        unavailable: `The table is closed for now (${table.reason}).`,
      }[table.status];
      $("showcase-claim").hidden = table.status !== "open";
      const watch = $("showcase-watch");
      watch.hidden = !table.currentGame;
      if (table.currentGame) watch.href = `/play/${table.currentGame}`;
    }
  } catch (error) {
    $("showcase-status").textContent = "The server is not answering; retrying...";
  }
  setTimeout(pollShowcase, 3000);
}

async function claim() {
  $("showcase-claim").disabled = true;
  const answer = await postJson("/showcase/claim", { guestId: guestId() }, { "Idempotency-Key": crypto.randomUUID() });
  $("showcase-claim").disabled = false;
  if (answer.status !== 200) {
    $("showcase-message").textContent = answer.body?.title || "The table could not be claimed; try again.";
    return;
  }
  if (answer.body.outcome === "claimed") {
    goPlay(answer.body.gameId, answer.body.seat, answer.body.seatToken);
  } else {
    $("showcase-message").textContent = "Someone else was quicker: watch their game.";
    location.assign(`/play/${answer.body.gameId}`);
  }
}

// "Fischer:600:10", "SuddenDeath:900", "Unlimited": a choice of the friend form as the wire's time control.
function timeControl(choice) {
  const [variant, first, second] = choice.split(":");
  if (variant === "Fischer") return { Fischer: { initialSeconds: Number(first), incrementSeconds: Number(second) } };
  if (variant === "SuddenDeath") return { SuddenDeath: { initialSeconds: Number(first) } };
  return { Unlimited: {} };
}

async function createFriendGame() {
  const body = { timeControl: timeControl($("friend-clock").value), rated: $("friend-rated").checked };
  const answer = await postJson("/games", body);
  if (answer.status !== 201) {
    $("friend-links").hidden = true;
    $("friend-message").textContent = answer.body?.error?.message || "The game could not be created; try again.";
    return;
  }
  $("friend-message").textContent = "";
  const game = answer.body;
  $("friend-white").onclick = () => goPlay(game.gameId, "White", game.seats.white.token);
  $("friend-black").value = friendLink(game.gameId, "Black", game.seats.black.token);
  $("friend-links").hidden = false;
}

async function listBots() {
  const answer = await getJson("/lobby/bots");
  if (answer.status !== 200) return;
  $("bot-list").replaceChildren(...answer.body.bots.map((bot) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    const id = `${bot.team}/${bot.name}`;
    item.dataset.card = id;
    button.textContent = `Play ${id}`;
    button.dataset.bot = id;
    button.disabled = !bot.available;
    button.addEventListener("click", () => playBot(bot));
    item.append(button, " rated ", ratingLabel(bot.rating, bot.provisional), bot.description ? `: ${bot.description}` : "");
    return item;
  }));
  if (!answer.body.bots.length) $("bot-list").textContent = "No bot takes on people right now.";
}

async function playBot(bot) {
  const answer = await postJson("/lobby/play-bot", {
    guestId: guestId(), team: bot.team, name: bot.name,
    timeControl: { Fischer: { initialSeconds: 300, incrementSeconds: 3 } },
  });
  if (answer.status !== 201) {
    $("bots-message").textContent = answer.body?.error?.message || "That bot cannot play now; try another.";
    return;
  }
  goPlay(answer.body.gameId, answer.body.seat, answer.body.token);
}

async function listGames() {
  const answer = await getJson("/games");
  if (answer.status !== 200) return;
  const list = $("live-games");
  list.replaceChildren(...answer.body.games.map((game) => {
    const item = document.createElement("li");
    const link = document.createElement("a");
    const name = (face) => face?.name || (face?.kind === "Bot" ? "a bot" : "a guest");
    link.href = `/play/${game.gameId}`;
    link.textContent = `${name(game.players?.white)} vs ${name(game.players?.black)}`;
    item.append(link);
    return item;
  }));
  if (!answer.body.games.length) list.textContent = "No game is being played right now.";
}

$("showcase-claim").addEventListener("click", claim);
$("friend-create").addEventListener("click", createFriendGame);
mountHeader();
siteInfo().then((info) => { if (info.showcase) pollShowcase(); });
listBots();
whileVisible(listGames, 4000);
