// Checking a finished game's dice in the browser, with WebCrypto, by the bytes of
// docs/dice.md (procedure version 1): nothing here trusts the server's word for a roll.
//
// message(ply) = u32be(len white) | white | u32be(len black) | black | i64be(ply)   (UTF-8 bytes)
// block n      = HMAC-SHA256(key = seed, message(ply) | i32be(n))
// dice         = bytes below 252, in order, as b % 6 + 1; the first three make the roll.

const REJECT_FROM = 252; // 252 = 42 * 6: bytes 252..255 are skipped so every face is equally likely
const SEED_BYTES = 32;

export function fromHex(hex) {
  if (typeof hex !== "string" || hex.length % 2 !== 0 || /[^0-9a-fA-F]/.test(hex)) return null;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

export function toHex(bytes) {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function rollMessage(white, black, ply) {
  const encoder = new TextEncoder(); // UTF-8, the text exactly as recorded (no normalisation)
  const w = encoder.encode(white), b = encoder.encode(black);
  const message = new Uint8Array(4 + w.length + 4 + b.length + 8);
  const view = new DataView(message.buffer);
  view.setUint32(0, w.length);
  message.set(w, 4);
  view.setUint32(4 + w.length, b.length);
  message.set(b, 8 + w.length);
  view.setBigInt64(8 + w.length + b.length, BigInt(ply)); // plies go up to 2^63 - 1
  return message;
}

export async function hmacKey(seedBytes) {
  return crypto.subtle.importKey("raw", seedBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

// The three dice rolled at `ply`; `key` is hmacKey(seed). `ply` may be a Number or a BigInt.
export async function rollWithKey(key, white, black, ply) {
  const message = rollMessage(white, black, ply);
  const dice = [];
  for (let block = 0; ; block += 1) {
    const input = new Uint8Array(message.length + 4);
    input.set(message);
    new DataView(input.buffer).setInt32(message.length, block);
    const digest = new Uint8Array(await crypto.subtle.sign("HMAC", key, input));
    for (const byte of digest) {
      if (byte >= REJECT_FROM) continue;
      dice.push((byte % 6) + 1);
      if (dice.length === 3) return dice;
    }
  }
}

export async function roll(seedHex, white, black, ply) {
  return rollWithKey(await hmacKey(fromHex(seedHex)), white, black, ply);
}

export async function commitmentOf(seedBytes) {
  return toHex(await crypto.subtle.digest("SHA-256", seedBytes));
}

// Whether a recorded roll is exactly the three dice the seed gives, in order.
function sameDice(recorded, expected) {
  return Array.isArray(recorded) && recorded.length === 3 && recorded.every((d, i) => d === expected[i]);
}

// Checks a record shaped like GET /games/{id}/history (and its `unplayedRoll`, the roll the game
// ended on, rolled at the ply after the last turn). The verdict:
//   {state: "verified", checked, turns: [{turnNumber, ply, expected, ok}], unplayed?: {ply, expected, ok}}
//     (`checked` counts the rolls: the turns', and the unplayed one)
//   {state: "mismatch", turnNumber, ply, seat, expected, recorded, checked, turns, unplayed?}  (the first mismatch)
//   {state: "commitment", expected, recorded}   the commitment is not SHA-256 of the seed
//   {state: "unrevealed"}                       no seed yet (the game is not over)
//   {state: "unsupported"}                      this browser has no WebCrypto (a page not on https)
//   {state: "unreadable", reason}
export async function verifyRecord(record) {
  const fairness = record?.fairness;
  if (!fairness || typeof fairness.commit !== "string") return { state: "unreadable", reason: "no commitment" };
  if (fairness.seed === null || fairness.seed === undefined) return { state: "unrevealed" };
  if (!globalThis.crypto?.subtle) return { state: "unsupported" };
  const seed = fromHex(fairness.seed);
  const white = fairness.clientSeeds?.white, black = fairness.clientSeeds?.black;
  if (!seed || seed.length !== SEED_BYTES) return { state: "unreadable", reason: "the seed is not 32 bytes of hex" };
  if (typeof white !== "string" || typeof black !== "string") return { state: "unreadable", reason: "no client seeds" };
  if (!Array.isArray(record.turns)) return { state: "unreadable", reason: "no turns" };
  const expectedCommit = await commitmentOf(seed);
  if (fairness.commit.toLowerCase() !== expectedCommit) {
    return { state: "commitment", expected: expectedCommit, recorded: fairness.commit };
  }
  const key = await hmacKey(seed);
  const ordered = [...record.turns].sort((a, b) => a.turnNumber - b.turnNumber);
  const turns = [];
  for (const [ply, turn] of ordered.entries()) {
    const expected = await rollWithKey(key, white, black, ply);
    const recorded = turn.dice;
    const ok = sameDice(recorded, expected);
    turns.push({ turnNumber: turn.turnNumber, ply, expected, ok });
    if (!ok) {
      return { state: "mismatch", turnNumber: turn.turnNumber, ply, seat: turn.activeColor, expected, recorded,
               checked: ply, turns };
    }
  }
  const last = record.unplayedRoll;
  if (!last) return { state: "verified", checked: turns.length, turns };
  const ply = ordered.length;
  const expected = await rollWithKey(key, white, black, ply);
  const ok = sameDice(last.dice, expected);
  const unplayed = { ply, expected, ok };
  if (!ok) {
    return { state: "mismatch", turnNumber: ply + 1, ply, seat: last.activeColor, expected, recorded: last.dice,
             checked: ply, turns, unplayed };
  }
  return { state: "verified", checked: turns.length + 1, turns, unplayed };
}

// The commitment a play page was shown while its game was played, kept in this browser (the
// newest SEEN_KEPT games) so that the replay can say whether the record's is the one the player
// saw before the first roll: the check then rests on what this browser saw, not only on the record.
const SEEN_KEY = "playsite.commitments";
const SEEN_KEPT = 200;

function seenCommitments() {
  try {
    const seen = JSON.parse(localStorage.getItem(SEEN_KEY));
    return Array.isArray(seen) ? seen.filter((entry) => entry && typeof entry.gameId === "string") : [];
  } catch {
    return [];
  }
}

export function rememberCommitment(gameId, commit) {
  if (typeof commit !== "string" || !commit) return;
  const kept = seenCommitments().filter((entry) => entry.gameId !== gameId);
  kept.push({ gameId, commit });
  try {
    localStorage.setItem(SEEN_KEY, JSON.stringify(kept.slice(-SEEN_KEPT)));
  } catch { /* storage full or refused: the replay then has only the record to go by */ }
}

// The commitment this browser was shown for `gameId`, or null.
export function commitmentSeen(gameId) {
  return seenCommitments().find((entry) => entry.gameId === gameId)?.commit ?? null;
}
