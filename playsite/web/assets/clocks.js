// The game's two clocks as a page counts them between the server's frames: the time each side
// had when the server last said it, which one runs since when, and the clock faces drawn from
// that ("4:59", "0:09.4" under ten seconds, red when low, a flag on the one that ran out).
// The server decides every clock; each of its frames sets these again.

export class Clocks {
  constructor() {
    this.values = null; // {white, black}: ms left when last set, null for a game without clocks
    this.running = null; // the seat ("White" or "Black") whose clock runs, or null
    this.since = 0; // when it was set (performance.now())
    this.final = false; // the values are the server's for an ended game (exact to the millisecond)
    this.initialMs = null; // the time control's starting time, when it has one
    this.incrementMs = 0;
    this.lowWarned = false; // the running clock's player was told their time runs low
  }

  // `running`: the seat whose clock runs from now; `final`: the clocks of an ended game as the
  // server stopped them.
  set(values, running, { final = false } = {}) {
    this.values = values;
    this.final = final;
    this.running = running;
    this.since = performance.now();
    this.lowWarned = false;
  }

  // Stop the running clock where the page has it, `increment` added (the server's next frame
  // corrects it).
  stop(seat, increment) {
    if (!this.values) return;
    if (this.running === seat) this.values = { ...this.values, [seat.toLowerCase()]: this.left(seat) + increment };
    this.running = null;
    this.since = performance.now();
  }

  // `seat`'s time left now, as this page counts it (it may go under zero before the server's word).
  left(seat) {
    const spent = this.running === seat ? performance.now() - this.since : 0;
    return this.values[seat.toLowerCase()] - spent;
  }

  // A seat that lost on time has none left.
  flag(seat) {
    if (this.values) this.values = { ...this.values, [seat.toLowerCase()]: 0 };
  }

  // The seat whose clock has run out, if one has: on the server's final clocks, the one at zero;
  // on this page's own count, within half a second.
  outOfTime() {
    if (!this.values) return null;
    const margin = this.final ? 0 : 500;
    return ["White", "Black"].find((seat) => this.left(seat) <= margin) ?? null;
  }

  // The time control's starting time and increment ({Fischer: {...}} and the like, or null).
  readControl(control) {
    this.initialMs = null;
    this.incrementMs = 0;
    if (!control) return;
    const [kind, body] = Object.entries(control)[0];
    if (kind === "Fischer") { this.initialMs = body.initialSeconds * 1000; this.incrementMs = body.incrementSeconds * 1000; }
    if (kind === "SuddenDeath") this.initialMs = body.initialSeconds * 1000;
    if (kind === "PerMove") this.initialMs = body.secondsPerMove * 1000;
  }

  // Red from 20 s, or 10% of the starting time when that is less, but never under 10 s (a turn is
  // up to three moves: 6 s at 1+0 came too late) nor over half the starting time (a 8 s move).
  lowThreshold() {
    if (!this.initialMs) return 20_000;
    return Math.min(20_000, Math.max(10_000, this.initialMs * 0.1), this.initialMs / 2);
  }

  // Draw both faces (`faces`: {white, black} elements). `ended`: the game is over; `mine`: the
  // page's own seat, whose player `onLow()` warns once when their running clock turns low.
  draw(faces, { ended, mine, onLow }) {
    for (const seat of ["White", "Black"]) {
      const face = faces[seat.toLowerCase()];
      if (!this.values) { face.textContent = ""; face.hidden = true; continue; }
      face.hidden = false;
      const running = !ended && this.running === seat;
      const left = Math.max(0, running ? this.left(seat) : this.values[seat.toLowerCase()]);
      const text = clockText(left);
      if (face.textContent !== text) face.textContent = text;
      face.classList.toggle("running", running);
      // red while it runs low, and for good on the clock that ran out (a flag, as lichess marks it)
      const low = ended ? left === 0 : left < this.lowThreshold();
      face.classList.toggle("low", low);
      if (running && low && !this.lowWarned && mine === seat) {
        this.lowWarned = true;
        onLow();
      }
    }
  }
}

// "4:59", "0:09.4": whole seconds rounded up, tenths under ten seconds, rounded down.
function clockText(ms) {
  const tenths = ms < 10_000;
  const seconds = tenths ? Math.floor(ms / 100) / 10 : Math.ceil(ms / 1000);
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}${tenths ? `.${Math.floor((seconds * 10) % 10)}` : ""}`;
}
