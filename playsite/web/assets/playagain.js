// "Play <bot> again" at the end of a game against a bot, which answers no rematch: against the
// showcase's featured bot, a claim of the table once it has opened again; against any other
// bot, a new game on the same clock, rated as this one was, the colours swapped (as lichess's
// rematch against its computer).
import { errorText, goPlay, guestId, postJson } from "./net.js";
import { claimShowcase, featuredName, playedAtTheShowcase, showcaseTable } from "./showcase.js";
import { $, botTeamAndName, faceName, OTHER } from "./site.js";

const AGAIN_TRIES = 20; // a second apart: the table reopens a moment after its game's end

// `game()`: the ended game as the page knows it when asked ({mine: "White", "Black" or null
// for a spectator, players: its {white, black} faces, timeControl, rated}). Offered to a
// player only; called again (a later Snapshot of the same end), it offers nothing twice.
export function offerPlayAgain(gameId, game) {
  const { mine } = game();
  if (!mine) return;
  if (playedAtTheShowcase(gameId)) offerShowcaseAgain(gameId);
  else offerBotAgain(game);
}

// A showcase game this tab claimed has no rematch (the table has one seat for everyone).
async function offerShowcaseAgain(gameId) {
  const button = $("showcase-again");
  if (!button.hidden) return;
  const table = await showcaseTable();
  if (!table) return; // no table on this server any more
  button.textContent = `Play ${featuredName(table)} again`;
  button.onclick = () => playShowcaseAgain(gameId);
  button.hidden = false;
}

async function playShowcaseAgain(gameId) {
  const button = $("showcase-again");
  const note = $("showcase-again-note");
  button.disabled = true;
  note.hidden = false;
  for (let tries = 0; tries < AGAIN_TRIES; tries += 1) {
    const table = await showcaseTable();
    if (table?.status === "open") {
      const claimed = await claimShowcase();
      if (claimed.gameId) {
        note.textContent = claimed.taken ? "Someone else was quicker: watching their game..." : "Your new game...";
        location.assign(`/play/${claimed.gameId}`);
        return;
      }
    } else if (table?.status === "live" && table.currentGame !== gameId) {
      note.textContent = "Someone else is playing the featured bot now: you can watch their game from the lobby.";
      button.disabled = false;
      return;
    } else if (!table || table.status === "unavailable") {
      note.textContent = "The table is closed for now: try again later, from the lobby.";
      button.disabled = false;
      return;
    }
    note.textContent = "The table opens again in a moment...";
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  note.textContent = "The table has not opened again yet: try again in a moment.";
  button.disabled = false;
}

function offerBotAgain(game) {
  const { mine, players, timeControl } = game();
  const face = players?.[OTHER[mine].toLowerCase()];
  if (face?.kind !== "Bot" || !face.name || !timeControl) return;
  const button = $("bot-again");
  button.textContent = `Play ${faceName(face)} again`;
  button.onclick = () => playBotAgain(game);
  button.hidden = false;
}

async function playBotAgain(game) {
  const { mine, players, timeControl, rated } = game();
  const face = players[OTHER[mine].toLowerCase()];
  const { team, name } = botTeamAndName(face);
  const button = $("bot-again"), note = $("bot-again-note");
  button.disabled = true;
  note.hidden = false;
  note.textContent = "Your new game...";
  const answer = await postJson("/lobby/play-bot", {
    guestId: guestId(), team, name, timeControl, preferredColor: OTHER[mine], rated: Boolean(rated),
  }).catch(() => null);
  if (answer?.status === 201) {
    goPlay(answer.body.gameId, answer.body.seat, answer.body.token);
    return;
  }
  note.textContent = answer ? errorText(answer, `${faceName(face)} cannot play now: try another bot from the lobby.`)
    : "Not connected: try again in a moment.";
  button.disabled = false;
}
