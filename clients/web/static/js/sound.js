// Short sounds for "your turn" and "a trick won": tones made here with WebAudio (no sound
// files), off until the person turns them on with the top bar's "Sound: off" button; the
// choice is kept in localStorage.  window.summonSound counts what was played (tests read it).

import { h } from "./ui.js";
import { t as tr } from "./i18n.js";

const KEY = "summon.sound";
// each sound: [frequency Hz, start s, length s]
const TUNES = { turn: [[660, 0, 0.12], [880, 0.13, 0.16]], trick: [[523, 0, 0.09]] };
const played = { turn: 0, trick: 0 };
window.summonSound = played;

let audio = null;   // one AudioContext, made on the first sound or click

export function soundOn() {
  try { return localStorage.getItem(KEY) === "on"; } catch (err) { return false; }
}

function context() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!audio && Ctx) audio = new Ctx();
  // a context made before any click starts suspended: a click on the page wakes it
  if (audio && audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

// Play `kind` ("turn" or "trick") if sound is on; quiet and short.
export function playSound(kind) {
  if (!soundOn() || !TUNES[kind]) return;
  played[kind] += 1;
  const a = context();
  if (!a) return;
  const now = a.currentTime;
  for (const [freq, at, len] of TUNES[kind]) {
    const osc = a.createOscillator();
    const gain = a.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, now + at);
    gain.gain.exponentialRampToValueAtTime(0.12, now + at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + at + len);
    osc.connect(gain).connect(a.destination);
    osc.start(now + at);
    osc.stop(now + at + len + 0.02);
  }
}

// The top bar's button: "Sound: off" / "Sound: on"; turning it on plays the turn sound once.
export function soundSwitch(refresh) {
  const on = soundOn();
  return h("button", { type: "button", class: "small sound-switch", "aria-pressed": on ? "true" : "false",
    dataset: { key: "sound" }, on: { click: () => {
      try { localStorage.setItem(KEY, on ? "off" : "on"); } catch (err) { /* private mode: not kept */ }
      if (!on) { context(); playSound("turn"); }
      refresh();
    } } }, tr(on ? "sound.on" : "sound.off"));
}

document.addEventListener("pointerdown", () => { if (audio && audio.state === "suspended") audio.resume().catch(() => {}); });
