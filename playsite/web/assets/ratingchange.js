// After a rated game: what it did to each rated player's rating, once the rating batch has applied
// the game's period. Ratings move in periods (docs/ladder.md), so the page reads the game's
// ratings (GET /games/{id}/rating-change) at once, then every few seconds for three minutes, then
// every half minute for as long as the caller asks (`forMs`: a page that told a player when ratings
// are next updated keeps reading until then). Each seat says the rating after the period and this
// game's share of its change ("1512 (+12)"), as a period may hold several games.
import { getJson } from "./net.js";
import { faceName, signed } from "./site.js";

const PERIOD_MS = 5_000;
const SLOWER_MS = 30_000; // after the first three minutes
const GIVE_UP_MS = 180_000;

// How often the rating batch updates ratings (`/web/site`'s ratingPeriodS): "every hour", "every
// 2 hours", "every 15 minutes", "every 10 s".
export function periodWords(seconds) {
  // a number and its unit never apart at a line's end ("every 10 / s" in a narrow result box)
  const every = (count, one, many) => (count === 1 ? `every ${one}` : `every ${count}\u00a0${many}`);
  if (seconds % 3600 === 0) return every(seconds / 3600, "hour", "hours");
  if (seconds % 60 === 0) return every(seconds / 60, "minute", "minutes");
  return every(seconds, "second", "s");
}

// One seat's words: "you 1512 (+12)"; "you 1516? (+165)" while provisional, as the name strips
// mark it (play-through s73: the strips said "1351?", this line "1516"); "you 1662" for a game
// applied before shares were kept.
function seatWords(who, seat) {
  const change = seat.change === undefined ? "" : ` (${signed(Math.round(seat.change))})`;
  return `${who} ${Math.round(seat.after)}${seat.provisional ? "?" : ""}${change}`;
}

// `gameId`: the finished game; `players`: its {white, black} faces; `element` receives the
// sentence; `you`: "White", "Black" or null. `lead`: the sentence's first words ("Rated game."
// under the game's own result); `onChange(ratings)` is told the new ratings by seat
// ({white: {rating: 1662, provisional: true, before: 1500, change: 11.6}}; no before and change
// for a game applied before changes were kept) when they are known, for the page's own strips.
// `until()`: once it says true, the sentence is put away and no more is read.
export async function followRatingChanges(element, gameId, players, you, { lead = "Rated game.", onChange = () => {}, until = () => false, forMs = GIVE_UP_MS } = {}) {
  // the player's own change first ("New ratings: you 1512 (+12), bob 1488 (−12)."), then the other's
  const seats = you?.toLowerCase() === "black" ? ["black", "white"] : ["white", "black"];
  const started = Date.now();
  const read = async () => {
    if (until()) {
      element.hidden = true;
      return;
    }
    const answer = await getJson(`/games/${gameId}/rating-change`).catch(() => null);
    const ratings = answer?.status === 200 ? answer.body : null;
    if (ratings?.applied) {
      const rated = seats.filter((seat) => ratings[seat]);
      if (!rated.length) return; // nobody's rating moved (a side never rated)
      const parts = rated.map((seat) => seatWords(you?.toLowerCase() === seat ? "you" : faceName(players?.[seat]), ratings[seat]));
      element.textContent = `${lead} New ratings: ${parts.join(", ")}.`;
      element.hidden = false;
      element.dataset.ratings = "applied";
      onChange(Object.fromEntries(rated.map((seat) => [seat, {
        rating: Math.round(ratings[seat].after), provisional: ratings[seat].provisional,
        before: ratings[seat].before, change: ratings[seat].change,
      }])));
      return;
    }
    const spent = Date.now() - started;
    if (spent < Math.max(forMs, GIVE_UP_MS)) setTimeout(read, spent < GIVE_UP_MS ? PERIOD_MS : SLOWER_MS);
  };
  read(); // the period may be applied already
}
