// The game's sounds, made with WebAudio (no sound files): a move, a capture, the dice, low
// time and the end. A mute switch is remembered in localStorage. Browsers start audio only
// after the person has touched the page, so nothing plays (and nothing is logged) before that.

const KEY = "playsite.muted";
let context = null;
let touched = false;

// [frequency Hz, seconds, wave, volume] notes, played one after the other
const SOUNDS = {
  move: [[520, 0.07, "triangle", 0.25]],
  capture: [[300, 0.05, "square", 0.12], [200, 0.09, "triangle", 0.3]],
  dice: [[900, 0.025, "square", 0.08], [700, 0.025, "square", 0.08], [1100, 0.03, "square", 0.08]],
  low: [[880, 0.09, "sine", 0.25], [0, 0.06], [880, 0.09, "sine", 0.25]],
  end: [[523, 0.12, "sine", 0.25], [659, 0.12, "sine", 0.25], [784, 0.24, "sine", 0.25]],
};

export function isMuted() {
  return localStorage.getItem(KEY) === "1";
}

export function setMuted(muted) {
  localStorage.setItem(KEY, muted ? "1" : "0");
}

for (const kind of ["pointerdown", "keydown"]) {
  addEventListener(kind, () => { touched = true; }, { once: true, capture: true });
}

export function playSound(name) {
  if (isMuted() || !touched || !SOUNDS[name] || typeof AudioContext === "undefined") return;
  try {
    context ||= new AudioContext();
    if (context.state === "suspended") context.resume();
    let at = context.currentTime + 0.01;
    for (const [frequency, seconds, wave, volume] of SOUNDS[name]) {
      if (frequency) {
        const oscillator = context.createOscillator();
        const gain = context.createGain();
        oscillator.type = wave;
        oscillator.frequency.value = frequency;
        gain.gain.setValueAtTime(volume, at);
        gain.gain.exponentialRampToValueAtTime(0.001, at + seconds);
        oscillator.connect(gain).connect(context.destination);
        oscillator.start(at);
        oscillator.stop(at + seconds);
      }
      at += seconds;
    }
  } catch {
    // no audio on this machine: the game goes on silently
  }
}
