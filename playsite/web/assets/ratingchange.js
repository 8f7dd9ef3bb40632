// After a rated game: each rated player's new rating and its change, once the rating batch has
// applied the game's period. Ratings move in periods (docs/ladder.md), so the page reads each
// player's rating history when the game ends and again every few seconds for a while; the first
// new point is the change. A server with a long period keeps the sentence it started with.
import { getJson } from "./net.js";
import { faceName, profileHref } from "./site.js";

const PERIOD_MS = 5_000;
const GIVE_UP_MS = 180_000;

function historyPath(face) {
  const href = profileHref(face);
  if (!href) return null; // a guest: never rated
  return `${href.replace(/^\/@\//, face.kind === "Bot" ? "/bots/" : "/players/")}/rating-history`;
}

async function pointsOf(path) {
  const answer = await getJson(path).catch(() => null);
  return answer?.status === 200 ? answer.body.points : null;
}

const signed = (value) => (value > 0 ? `+${value}` : value < 0 ? `\u2212${-value}` : "\u00b10");

// The change a game that ended at `endedAt` (ms) made: the first period that ends at or after
// it holds the game; the point before it (or the starting 1500) is the rating it started from.
// `provisional`: whether the new rating still was (the strips write it "1662?").
export function changeAfter(points, endedAt) {
  const at = points.findIndex((point) => Date.parse(point.at) >= endedAt);
  if (at < 0) return null;
  return changeTo(points[at], at > 0 ? points[at - 1].rating : 1500);
}

function changeTo(point, previous) {
  const rating = Math.round(point.rating);
  return { rating, delta: rating - Math.round(previous), provisional: Boolean(point.provisional) };
}

// `players`: {white, black} faces; `element` receives the sentence; `you`: "White", "Black" or null.
// `endedAt` (ms since the epoch, from the game's record): a page opened after the game ended
// finds the game's period by its end, where a page that saw the end compares with what it read then.
// `lead`: the sentence's first words ("Rated game." under the game's own result); `onChange()`
// is called when a new rating is known (the page may read the names' ratings again). `until()`:
// once it says true, the sentence is put away and no more is read (a game whose place it had).
export async function followRatingChanges(element, players, you, { endedAt = null, lead = "Rated game.", onChange = () => {}, until = () => false } = {}) {
  // the player's own change first ("New ratings: you 1662 (+162), bob 1338 (−162)."), then the other's
  const seats = you?.toLowerCase() === "black" ? ["black", "white"] : ["white", "black"];
  const rated = seats.map((seat) => ({ seat, face: players?.[seat] }))
    .map((entry) => ({ ...entry, path: historyPath(entry.face) })).filter((entry) => entry.path);
  if (!rated.length) return;
  for (const entry of rated) entry.before = endedAt === null ? await pointsOf(entry.path) : [];
  const started = Date.now();
  const changes = new Map();
  const show = () => {
    if (until()) {
      element.hidden = true;
      return;
    }
    const parts = rated.filter((entry) => changes.has(entry.seat)).map((entry) => {
      const { rating, delta } = changes.get(entry.seat);
      const who = you && entry.seat === you.toLowerCase() ? "you" : faceName(entry.face);
      return `${who} ${rating} (${signed(delta)})`;
    });
    if (parts.length) {
      const text = `${lead} New ratings: ${parts.join(", ")}.`;
      // told the new ratings by seat ({white: {rating: 1662, provisional: true}}), for the page's own strips
      if (element.textContent !== text || element.hidden) {
        onChange(Object.fromEntries([...changes].map(([seat, { rating, provisional }]) => [seat, { rating, provisional }])));
      }
      element.textContent = text;
      element.hidden = false;
    }
    element.dataset.ratings = parts.length === rated.length ? "applied" : "partial";
  };
  const read = async () => {
    for (const entry of rated) {
      if (changes.has(entry.seat) || entry.before === null) continue;
      const points = await pointsOf(entry.path);
      if (!points) continue;
      if (endedAt !== null) {
        const change = changeAfter(points, endedAt);
        if (change) changes.set(entry.seat, change);
        continue;
      }
      if (points.length <= entry.before.length) continue;
      const previous = entry.before.length ? entry.before[entry.before.length - 1].rating : 1500;
      changes.set(entry.seat, changeTo(points[points.length - 1], previous));
    }
    show();
    if (until()) return;
    if (changes.size < rated.filter((entry) => entry.before !== null).length && Date.now() - started < GIVE_UP_MS) {
      setTimeout(read, PERIOD_MS);
    }
  };
  if (endedAt === null) setTimeout(read, PERIOD_MS);
  else read(); // the period may be applied already
}
