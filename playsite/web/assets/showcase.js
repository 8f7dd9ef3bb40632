// The showcase table from a page: claiming its seat (the home page's "Play the featured bot", the
// play page's "Play ... again" after a showcase game), and which games this tab played there.
import { errorText, getJson, guestId, keepSeat, keptList, postJson, randomSeed } from "./net.js";

const PLAYED_KEY = "playsite.showcaseGames";
const PLAYED_KEPT = 20;

// Claim the table's seat. `{ gameId, seat, seatToken }` when this tab got it (the seat is kept, as
// a friend game's is, and the game remembered as a showcase game); `{ gameId, taken: true }` when
// someone else was quicker; `{ message }` when it could not be claimed (the table is not open).
export async function claimShowcase() {
  const answer = await postJson("/showcase/claim", { guestId: guestId(), clientEntropy: randomSeed() },
    { "Idempotency-Key": crypto.randomUUID() });
  if (answer.status !== 200) return { message: errorText(answer, "The table could not be claimed; try again.") };
  const { outcome, gameId, seat, seatToken } = answer.body;
  if (outcome !== "claimed") return { gameId, taken: true };
  keepSeat(gameId, seat, seatToken);
  const played = [...keptList(sessionStorage, PLAYED_KEY).slice(-(PLAYED_KEPT - 1)), gameId];
  try { sessionStorage.setItem(PLAYED_KEY, JSON.stringify(played)); } catch { /* storage full or off */ }
  return { gameId, seat, seatToken };
}

// Whether this tab claimed `gameId` at the table (one of its newest PLAYED_KEPT).
export function playedAtTheShowcase(gameId) {
  return keptList(sessionStorage, PLAYED_KEY).includes(gameId);
}

// The table's state now (`GET /showcase`), or null (no table on this server, or no answer).
export async function showcaseTable() {
  const answer = await getJson("/showcase").catch(() => null);
  return answer?.status === 200 ? answer.body : null;
}

// A bot's name as the table writes it: "house/featured".
export function featuredName(table) {
  return `${table.featuredBot.team}/${table.featuredBot.name}`;
}
