// The home page, a lobby: quick pairing (a person's open seek with a chosen clock, waited on
// until someone takes it), the open seeks of people and bots (accept one, or cancel your own),
// the showcase table (polled with its ETag), a friend game with a copyable link, the bots with
// a chosen clock, and a wall of the live games as mini-boards, refreshed while the tab is visible.
import { errorText, getJson, goPlay, guestId, keepInvite, keptGameIds, keptSeat, onSeatsOfOtherTabs, postJson, sendJson } from "./net.js";
import { miniBoard } from "./miniboard.js";
import { claimShowcase } from "./showcase.js";
import { $, botTag, element, faceLink, faceName, keepChildren, mountHeader, ratingLabel, siteInfo, timeControlLabel, UNNAMED, whileVisible } from "./site.js";

// The clocks offered for seeks and bot games (minutes + increment seconds), as lichess's lobby.
const CLOCKS = [[1, 0], [2, 1], [3, 0], [3, 2], [5, 0], [5, 3], [10, 0], [10, 5], [15, 10]];
const FRIEND_DEFAULT = "10+5"; // a game between friends: longer than a bot's
const BOT_DEFAULT = "5+3";
const SEEK_KEY = "playsite.seek"; // this tab's own open seek while the page is open: {id, secret, label}
const LIVE_PERIOD_MS = 3000;
const SEEK_POLL_MS = 1500;
let showcaseTag = null;

const clockLabel = ([minutes, increment]) => `${minutes}+${increment}`;
const fischer = ([minutes, increment]) => ({ Fischer: { initialSeconds: minutes * 60, incrementSeconds: increment } });


// A bot's name as every page writes it: "house/greedy" (its profile is /@/house/greedy).
const botName = (team, name) => `${team}/${name}`;

function friendLink(gameId, seat, token) {
  return `${location.origin}/play/${gameId}#seat=${seat}&token=${encodeURIComponent(token)}`;
}


// ----- the showcase table ----------------------------------------------------------------------

// A live table's line names whom the bot plays and which side ("demo/featured (Black) is playing
// alice (White): watch it."), from the game's own record of its players.
async function nameShowcaseOpponent(status, bot, gameId) {
  const answer = await getJson(`/games/${gameId}`).catch(() => null);
  const players = answer?.status === 200 ? answer.body.players : null;
  if (!players || status.dataset.status !== "live") return;
  const person = players.white.kind === "Bot" ? "Black" : "White";
  const face = players[person.toLowerCase()];
  const botSide = person === "White" ? "Black" : "White";
  status.textContent = `${bot} (${botSide}) is playing ${faceName(face)} (${person}): watch it.`;
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
      const bot = botName(table.featuredBot.team, table.featuredBot.name);
      status.textContent = {
        // whose side is whose, said of the visitor (play-through s71: "play demo/featured as White" read either way)
        open: `Open: you play ${table.nextHumanColor} against ${bot}, 5+3.`,
        live: `${bot} is playing a game now: watch it.`,
        finishing: "The last game just ended; the table opens again in a moment.",
        unavailable: `The table is closed for now (${table.reason}).`,
      }[table.status];
      if (table.status === "live" && table.currentGame) nameShowcaseOpponent(status, bot, table.currentGame);
      $("showcase-claim").hidden = table.status !== "open";
      const watch = $("showcase-watch");
      watch.hidden = !table.currentGame;
      if (table.currentGame) watch.href = `/play/${table.currentGame}`;
    }
  } catch {
    $("showcase-status").textContent = "The server is not answering; retrying...";
  }
  setTimeout(pollShowcase, 3000);
}

async function claim() {
  if (await stillPlaying($("showcase-message"))) return;
  $("showcase-claim").disabled = true;
  const claimed = await claimShowcase();
  $("showcase-claim").disabled = false;
  if (claimed.message) {
    $("showcase-message").textContent = claimed.message;
    return;
  }
  if (claimed.taken) $("showcase-message").textContent = "Someone else was quicker: watch their game.";
  location.assign(`/play/${claimed.gameId}`);
}

// ----- a friend game ---------------------------------------------------------------------------

// "Fischer:600:10", "SuddenDeath:900", "Unlimited": a choice of the friend form as the wire's time control.
function timeControl(choice) {
  const [variant, first, second] = choice.split(":");
  if (variant === "Fischer") return { Fischer: { initialSeconds: Number(first), incrementSeconds: Number(second) } };
  if (variant === "SuddenDeath") return { SuddenDeath: { initialSeconds: Number(first) } };
  return { Unlimited: {} };
}

// The creator's side: chosen, or drawn here for "Random side" (the creator holds both seats'
// tokens, so which one it keeps is the whole choice).
function side() {
  const chosen = $("friend-side").value;
  if (chosen === "White" || chosen === "Black") return chosen;
  return crypto.getRandomValues(new Uint8Array(1))[0] % 2 === 0 ? "White" : "Black";
}

async function createFriendGame() {
  if (await stillPlaying($("friend-message"))) return;
  const body = { timeControl: timeControl($("friend-clock").value), rated: $("friend-rated").checked };
  $("friend-create").disabled = true;
  const answer = await postJson("/games", body);
  if (answer.status !== 201) {
    $("friend-create").disabled = false;
    $("friend-message").textContent = errorText(answer, "The game could not be created; try again.");
    return;
  }
  $("friend-message").textContent = "";
  // To the board at once, as lichess takes a challenger to the game: its page shows the friend's
  // link to copy until the friend comes, and the game begins there when they do (play-through
  // s71: the link and a "Play White" button stayed in the lobby, which never said the friend had
  // come while the friend waited at the board).
  const game = answer.body;
  const mine = side();
  const theirs = mine === "White" ? "Black" : "White";
  keepInvite(game.gameId, friendLink(game.gameId, theirs, game.seats[theirs.toLowerCase()].token));
  goPlay(game.gameId, mine, game.seats[mine.toLowerCase()].token);
}

let ratedOffered = true; // false once signed out: the Rated box stays off
let account = null; // the signed-in account ({nickname}), once known: its seeks from other tabs are its own

// ----- bots ------------------------------------------------------------------------------------

// Read again every 30 s while the page is seen (ratings move as the bots play, a busy bot frees
// a game): a card kept from one read to the next is updated in place, so focus on its Play
// button survives, and a Play under way (its wake asked) keeps its button disabled.
const BOTS_PERIOD_MS = 30_000;
const botCards = new Map(); // "team/name" -> {item, about, button, playing}

function botCard(bot) {
  const id = `${bot.team}/${bot.name}`;
  const item = element("li", null, { class: "bot" });
  item.dataset.card = id;
  const about = element("div", null, { class: "bot-about" });
  const button = element("button", "Play", { type: "button", "aria-label": `Play ${botName(bot.team, bot.name)}` });
  button.dataset.bot = id;
  const card = { item, about, button, playing: false };
  button.addEventListener("click", async () => {
    card.playing = true;
    try { await playBot(bot, button); } finally { card.playing = false; }
  });
  item.append(about, button);
  return card;
}

function showBot(card, bot) {
  const name = element("a", botName(bot.team, bot.name), { href: `/@/${encodeURIComponent(bot.team)}/${encodeURIComponent(bot.name)}`, class: "bot-name" });
  card.about.replaceChildren(name, " ", ratingLabel(bot.rating, bot.provisional));
  if (bot.description) card.about.append(element("span", bot.description, { class: "hint bot-description" }));
  // said in words, not only in a tooltip a phone never shows
  if (!bot.available) card.about.append(element("span", "Busy: playing as many games as it can; try again soon.", { class: "hint bot-busy" }));
  if (!card.playing) card.button.disabled = !bot.available;
  if (bot.available) card.button.removeAttribute("title");
  else card.button.title = "This bot is playing as many games as it can; try again soon.";
}

async function listBots() {
  const answer = await getJson("/lobby/bots").catch(() => null); // the next read retries
  if (answer?.status !== 200) return;
  const { bots } = answer.body;
  const listed = new Set(bots.map((bot) => `${bot.team}/${bot.name}`));
  for (const id of [...botCards.keys()]) if (!listed.has(id)) botCards.delete(id);
  const items = bots.map((bot) => {
    const id = `${bot.team}/${bot.name}`;
    if (!botCards.has(id)) botCards.set(id, botCard(bot));
    const card = botCards.get(id);
    showBot(card, bot);
    return card.item;
  });
  keepChildren($("bot-list"), items.length ? items : [element("li", "No bot takes on people right now.", { class: "hint" })]);
}

// The bot is asked first whether it is there (its program running: the account stream held, or
// its webhook answering): a game against a bot that never moves would only run out its clock.
// A wake that cannot be asked (too many, the network) does not stop the game.
async function playBot(bot, button) {
  if (await stillPlaying($("bots-message"))) return;
  button.disabled = true;
  const who = `${bot.team}/${bot.name}`;
  const message = $("bots-message");
  message.classList.add("info");
  message.textContent = `Checking that ${who} is there...`;
  const woken = await postJson(`/lobby/bots/${encodeURIComponent(bot.team)}/${encodeURIComponent(bot.name)}/wake`, {});
  message.classList.remove("info");
  message.textContent = "";
  if (woken.status === 200 && !woken.body.alive) {
    button.disabled = false;
    message.textContent = woken.body.busy
      ? `${who} is playing as many games as it can; try again soon, or another bot.`
      : `${who} is not answering right now (its program is not running); try another bot.`;
    return;
  }
  const clock = CLOCKS.find((c) => clockLabel(c) === $("bot-clock").value) || [5, 3];
  const answer = await postJson("/lobby/play-bot", {
    guestId: guestId(), team: bot.team, name: bot.name, timeControl: fischer(clock),
    rated: ratedOffered && $("bot-rated").checked,
  });
  button.disabled = false;
  if (answer.status !== 201) {
    message.textContent = errorText(answer, "That bot cannot play now; try another.");
    return;
  }
  goPlay(answer.body.gameId, answer.body.seat, answer.body.token);
}

// ----- seeks -----------------------------------------------------------------------------------

function mySeek() {
  try { return JSON.parse(sessionStorage.getItem(SEEK_KEY)); } catch { return null; }
}

function showWaiting(seek) {
  $("seek-waiting").hidden = !seek;
  $("seek-rated").disabled = Boolean(seek) || !ratedOffered; // a posted seek keeps its kind
  if (seek) $("seek-waiting-text").textContent = `Waiting for an opponent (${seek.label}${seek.rated ? ", rated" : ""})...`;
  for (const tile of $("pairing-grid").children) {
    tile.setAttribute("aria-pressed", String(Boolean(seek) && tile.dataset.clock === seek.label));
  }
}

async function createSeek(clock) {
  $("seek-message").textContent = "";
  const current = mySeek();
  if (current?.label === clockLabel(clock)) return cancelSeek(); // a second click on the same clock withdraws it
  if (await stillPlaying($("seek-message"))) return;
  if (current) await cancelSeek();
  const rated = ratedOffered && $("seek-rated").checked;
  const answer = await postJson("/lobby/seeks", { creator: guestId(), timeControl: fischer(clock), rated });
  if (answer.status !== 201) {
    // one seek a person: a new one takes the place of one open in another tab or browser, so a
    // refusal here is a full lobby, or the other one being accepted at this very moment
    $("seek-message").textContent = errorText(answer, "The seek could not be posted; try again.");
    return;
  }
  const seek = { id: answer.body.seekId, secret: answer.body.secret, label: clockLabel(clock), rated };
  sessionStorage.setItem(SEEK_KEY, JSON.stringify(seek));
  showWaiting(seek);
  readLobby();
  watchSeek();
}

async function cancelSeek() {
  const seek = mySeek();
  sessionStorage.removeItem(SEEK_KEY);
  showWaiting(null);
  if (seek) await sendJson("DELETE", `/lobby/seeks/${seek.id}?secret=${encodeURIComponent(seek.secret)}`);
  readLobby();
}

// The creator's poll: keeps the seek alive, and takes the seat once someone accepted.
let watching = false;
async function watchSeek() {
  if (watching) return;
  watching = true;
  while (mySeek()) {
    const seek = mySeek();
    try {
      const answer = await getJson(`/lobby/seeks/${seek.id}?secret=${encodeURIComponent(seek.secret)}`);
      if (answer.status === 200 && answer.body.matched && answer.body.token) {
        sessionStorage.removeItem(SEEK_KEY);
        goPlay(answer.body.gameId, answer.body.seat, answer.body.token);
        break;
      }
      if (answer.status === 404 && mySeek()?.id === seek.id) {
        sessionStorage.removeItem(SEEK_KEY);
        showWaiting(null);
        siteInfo().then(showMyGames); // withdrawn for a game begun elsewhere: the way to it
        readLobby(); // its row goes (or shows the seek that took its place, in the other tab)
        // it lapsed, its creator sat down to another game (which withdraws their seeks), or
        // sought again in another tab or browser (one seek a person: the new one takes its place)
        $("seek-message").textContent = "Your seek is gone (you started another game or seek, or it lapsed); pick a clock to seek again.";
        break;
      }
    } catch { /* the server is away: keep waiting, the seek lives two minutes */ }
    await new Promise((resolve) => setTimeout(resolve, SEEK_POLL_MS));
  }
  watching = false;
}

async function acceptSeek(seek, button) {
  if (await stillPlaying($("seek-message"))) return;
  button.disabled = true;
  const answer = await postJson(`/lobby/seeks/${seek.id}/accept`, { accepter: guestId() });
  if (answer.status !== 201) {
    button.disabled = false;
    $("seek-message").textContent = errorText(answer, "That seek is gone; pick another.");
    readLobby();
    return;
  }
  await cancelSeek(); // one's own seek, if any, is no longer wanted
  goPlay(answer.body.gameId, answer.body.seat, answer.body.token);
}

const seekRows = new Map(); // seek id -> {signature, row}: a row is made anew only when what it shows changes

function showSeeks(seeks) {
  const mine = mySeek();
  const rows = seeks.map((seek) => {
    // what the row shows: a guest's "Sign in to play" in place of Accept only for a rated seek
    const signature = JSON.stringify([seek, mine?.id === seek.id, seek.rated && ratedOffered, account?.nickname]);
    const kept = seekRows.get(seek.id);
    if (kept?.signature === signature) return kept.row;
    const row = element("tr");
    seekRows.set(seek.id, { signature, row });
    row.dataset.seek = seek.id;
    const own = mine?.id === seek.id;
    // this browser's or this account's seek, posted from another tab: that tab holds its secret
    const elsewhere = !own && (seek.yours || (seek.kind === "Human" && seek.name && seek.name === account?.nickname));
    // a person by nickname (signed in, linked to the profile) or "Anonymous"; a bot "team/name"
    const who = own || elsewhere ? "You" : seek.kind === "Bot" ? (seek.name || "a bot").replace(" ", "/") : seek.name || UNNAMED;
    const player = element("td");
    // one line, cut short on a phone (the whole name on hover): the row's action stays on screen
    const seeker = element("span", null, { class: "seeker", title: who });
    seeker.append(own || elsewhere || seek.kind === "Bot" ? who : faceLink({ kind: "Human", name: seek.name }));
    if (seek.kind === "Bot") seeker.append(" ", botTag());
    player.append(seeker);
    // the seeker's rating, as lichess's lobby shows it: how people choose whom to take
    if (seek.rating) player.append(" ", ratingLabel(seek.rating.rating, seek.rating.provisional, { compact: true }));
    const action = element("td");
    const mode = seek.rated ? "rated" : "casual";
    if (elsewhere) {
      action.append(element("span", "in another tab or browser", { class: "hint" }));
    } else if (seek.rated && !own && !ratedOffered) { // a guest cannot take a rated seek: shown the way to sign in
      action.append(element("a", "Sign in to play", { class: "button", href: `/auth/login?next=${encodeURIComponent("/")}` }));
    } else {
      const button = own
        ? element("button", "Cancel", { type: "button" })
        : element("button", "Accept", { type: "button", class: "primary", "aria-label": `Accept ${who}'s ${timeControlLabel(seek.timeControl)} ${mode} seek` });
      button.addEventListener("click", () => (own ? cancelSeek() : acceptSeek(seek, button)));
      action.append(button);
    }
    row.append(player, element("td", timeControlLabel(seek.timeControl)), element("td", mode), action);
    if (own || elsewhere) row.classList.add("own");
    return row;
  });
  // "1500?" is a short way of writing "provisional" (the bot list spells it out): said in words
  // under the table whenever the table has one, for a phone where no title shows on hover
  $("seek-provisional").hidden = !seeks.some((seek) => seek.rating?.provisional);
  const listed = new Set(seeks.map((seek) => seek.id));
  for (const id of [...seekRows.keys()]) if (!listed.has(id)) seekRows.delete(id);
  if (!rows.length) {
    const row = element("tr");
    row.append(element("td", "No open seek: pick a clock above to post one.", { colspan: "4", class: "hint" }));
    rows.push(row);
  }
  keepChildren($("seek-list"), rows);
}

// ----- one's own games in progress ------------------------------------------------------------

// Back in the lobby in the middle of a game (the game counts the player away meanwhile): a way
// back to it at the top, as lichess shows "game in progress". The games are this browser's
// newest kept seats and, signed in, the account's (`GET /auth/me` `playing`), still being played.
const KEPT_LOOKED_AT = 3;
const MY_GAMES_PERIOD_MS = 5000;
let playing = null; // a game in progress that has begun ({id, game}): no other is started meanwhile

async function showMyGames(info) {
  const ids = new Set(keptGameIds().slice(-KEPT_LOOKED_AT));
  const seated = new Set(); // signed in: the account's games, and of those the ones waiting
  const waiting = new Set(); // for their other player
  if (info.account) {
    const me = await getJson("/auth/me").catch(() => null);
    const { playing: theirs = [], waiting: unjoined = [] } = me?.status === 200 ? me.body : {};
    for (const id of theirs) {
      ids.add(id);
      seated.add(id);
    }
    for (const id of unjoined) waiting.add(id);
  }
  const read = await Promise.all([...ids].map(async (id) => ({ id, answer: await getJson(`/games/${id}`).catch(() => null) })));
  const live = read.filter(({ answer }) => answer?.status === 200 && answer.body.status && !answer.body.status.Ended)
    .map(({ id, answer }) => ({ id, game: answer.body }));
  // begun: rolled or played; or both players there before the first roll (its clients' seeds are
  // awaited for a moment): a bot is always there, and the account's server says which wait
  const begun = ({ id, game }) => game.dicePending || game.version > 0
    || Object.values(game.players || {}).some((player) => player?.kind === "Bot")
    || (seated.has(id) && !waiting.has(id));
  playing = live.find(begun) || null;
  const slot = $("my-games");
  slot.hidden = !live.length;
  if (!live.length) {
    slot.replaceChildren();
    return;
  }
  slot.replaceChildren(...live.map(({ id, game }) => {
    const line = element("p", null, { class: "my-game" });
    // whose move it is, when this browser holds the seat; and what staying away costs (the grace)
    const { seat } = keptSeat(id);
    const yours = seat && game.dicePending && game.activeSeat === seat ? ": it is your turn" : "";
    const clock = timeControlLabel(game.timeControl);
    // a friend game whose other player has not come: nothing rolled yet, nobody counted away
    const started = begun({ id, game });
    line.append(started ? `You have a game in progress (${clock})${yours}. ` : `You have a game waiting for its other player (${clock}). `);
    if (started) {
      line.append(element("span", "A player away from the board for 30 s loses the game, or aborts it before both sides have played a turn.", { class: "hint" }), " ");
    }
    line.append(element("a", "Back to the game", { class: "button primary", href: `/play/${id}` }));
    return line;
  }));
  slot.hidden = false;
}

// Starting another game while one is being played leaves that one, which is lost 30 s later
// (play-through s72: a seek taken from the lobby cost its creator the bot game they had left for
// a moment). The lobby looks again (the game may have ended since), and says so where asked.
async function stillPlaying(message) {
  await showMyGames(await siteInfo());
  if (!playing) return false;
  message.classList.remove("info");
  message.textContent = `You are playing a game (${timeControlLabel(playing.game.timeControl)}): finish it, or resign it, before starting another.`;
  return true;
}

// ----- the wall of live games ------------------------------------------------------------------

const tiles = new Map(); // gameId -> {item, board, white, black}

function clockText(ms) {
  if (ms === undefined || ms === null) return "";
  const seconds = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function tile(game) {
  let made = tiles.get(game.gameId);
  if (!made) {
    const item = element("li", null, { class: "tile" });
    item.dataset.game = game.gameId;
    const link = element("a", null, { href: `/play/${game.gameId}`, class: "tile-link" });
    const strip = () => {
      const row = element("span", null, { class: "strip" });
      row.append(element("span", "", { class: "who" }), element("span", "", { class: "time" }));
      return row;
    };
    const black = strip();
    const white = strip();
    const board = miniBoard();
    const watching = element("span", "", { class: "watching hint" });
    link.append(element("span", "Watch: ", { class: "visually-hidden" }), black, board, white, watching);
    item.append(link);
    made = { item, link, board, white, black, watching };
    tiles.set(game.gameId, made);
  }
  const whiteName = faceName(game.players?.white);
  const blackName = faceName(game.players?.black);
  made.white.firstChild.textContent = whiteName;
  made.black.firstChild.textContent = blackName;
  made.white.lastChild.textContent = clockText(game.clocks?.white);
  made.black.lastChild.textContent = clockText(game.clocks?.black);
  made.white.classList.toggle("to-move", game.activeSeat === "White");
  made.black.classList.toggle("to-move", game.activeSeat === "Black");
  made.watching.textContent = game.watching ? `${game.watching} watching` : "";
  if (made.dfen !== game.dfen) {
    made.board.draw(game.dfen, game.lastMoves || []);
    made.dfen = game.dfen;
  }
  return made.item;
}

// A game nobody has rolled in yet (version 0: a friend game waiting for its players, a game in
// its first seconds) is not on the wall: two "Anonymous" at the start position, perhaps never
// to be joined, are nothing to watch.
const begun = (game) => game.version > 0 || game.dicePending;

function showGames(listing) {
  const games = listing.games.filter(begun);
  const notBegun = listing.games.length - games.length;
  const seen = new Set(games.map((game) => game.gameId));
  for (const id of [...tiles.keys()]) if (!seen.has(id)) tiles.delete(id);
  const wall = $("live-games");
  if (!games.length) {
    wall.replaceChildren(element("li", "No game is being played right now.", { class: "hint empty" }));
  } else {
    keepChildren(wall, games.map(tile)); // the tiles kept stay in place: focus on one survives
  }
  const total = listing.total - notBegun;
  $("live-count").textContent = total > 0 ? `(${total})` : "";
}

async function readLobby() {
  const [seeks, games] = await Promise.all([getJson(`/lobby/seeks?viewer=${guestId()}`).catch(() => null), getJson("/games").catch(() => null)]);
  if (seeks?.status === 200) showSeeks(seeks.body);
  if (games?.status === 200) showGames(games.body);
}

// ----- start -----------------------------------------------------------------------------------

function buildClockChoices() {
  $("pairing-grid").replaceChildren(...CLOCKS.map((clock) => {
    const label = clockLabel(clock);
    const button = element("button", null, { type: "button", class: "clock-tile", "aria-pressed": "false" });
    button.dataset.clock = label;
    button.append(element("span", label, { class: "clock-main" }), element("span", clock[0] < 3 ? "Bullet" : clock[0] < 8 ? "Blitz" : "Rapid", { class: "clock-kind" }));
    button.addEventListener("click", () => createSeek(clock));
    return button;
  }));
  $("bot-clock").replaceChildren(...CLOCKS.map((clock) => {
    const option = element("option", clockLabel(clock), { value: clockLabel(clock) });
    option.selected = clockLabel(clock) === BOT_DEFAULT;
    return option;
  }));
  // A friend game offers the same clocks as the pairing and the bots, and the longer ones two
  // friends may want: fifteen minutes with no increment (15+0, a sudden death, written as the
  // others are), 30+20, no clock at all; shortest first, as the others are ordered.
  const fischer = (clock) => {
    const option = element("option", clockLabel(clock), { value: `Fischer:${clock[0] * 60}:${clock[1]}` });
    option.selected = clockLabel(clock) === FRIEND_DEFAULT;
    return option;
  };
  const longest = CLOCKS.length - 1; // 15+10
  $("friend-clock").replaceChildren(
    ...CLOCKS.slice(0, longest).map(fischer),
    element("option", "15+0", { value: "SuddenDeath:900" }),
    ...[...CLOCKS.slice(longest), [30, 20]].map(fischer),
    element("option", "No clock", { value: "Unlimited" }),
  );
}

buildClockChoices();
$("showcase-claim").addEventListener("click", claim);
$("friend-create").addEventListener("click", createFriendGame);
// held while the game is made and the board opens; the lobby come back to (Back) offers it again
addEventListener("pageshow", () => { $("friend-create").disabled = false; });
$("seek-cancel").addEventListener("click", cancelSeek);
mountHeader();
siteInfo().then((info) => {
  // a game begun in another tab (which withdraws this tab's seek first: its poll may hear of
  // the withdrawal before that tab has kept its seat) shows here once that tab keeps the seat
  onSeatsOfOtherTabs(() => showMyGames(info));
  account = info.account || null;
  if (account) readLobby(); // its own seeks from other tabs shown as its own
  if (info.showcase) pollShowcase();
  // A rated game needs both players signed in: signed out, the box cannot promise one (nor can
  // a server that keeps no ratings, for a bot's game).
  if (!info.ratings) $("bot-rated").disabled = true;
  if (!info.account) {
    ratedOffered = false;
    for (const id of ["friend-rated", "seek-rated", "bot-rated"]) {
      $(id).checked = false;
      $(id).disabled = true;
      $(id).closest("label").title = "Sign in to play rated games";
    }
    readLobby(); // a rated seek offers a guest the way to sign in, not an Accept that fails
  }
});
whileVisible(listBots, BOTS_PERIOD_MS);
// Leaving the page (closing the tab, another page, a reload) withdraws the seek at once, as a
// closed lobby does on lichess: nobody should sit down at a table its creator has left.
window.addEventListener("pagehide", () => {
  const seek = mySeek();
  if (!seek) return;
  sessionStorage.removeItem(SEEK_KEY);
  fetch(`/lobby/seeks/${seek.id}?secret=${encodeURIComponent(seek.secret)}`, {
    method: "DELETE", keepalive: true, headers: { "X-Game-CSRF": "1" },
  });
});
whileVisible(readLobby, LIVE_PERIOD_MS);
// the line of one's own games follows them (play-through s72: a game lost meanwhile stayed "in
// progress" until a reload)
whileVisible(() => siteInfo().then(showMyGames), MY_GAMES_PERIOD_MS);
