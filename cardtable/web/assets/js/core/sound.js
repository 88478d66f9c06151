/**
 * Sound effects made here with the Web Audio API (no audio files). Off until the player turns
 * sound on in the settings; the AudioContext is created on first use after that.
 */

import { getSetting } from "./settings.js";

let context = null;

const EFFECTS = {
  place: [{ freq: 520, end: 380, dur: 0.07, type: "triangle", gain: 0.25 }],
  hint: [{ freq: 660, end: 880, dur: 0.12, type: "sine", gain: 0.18 }],
  undo: [{ freq: 380, end: 260, dur: 0.1, type: "triangle", gain: 0.2 }],
  error: [{ freq: 180, end: 150, dur: 0.16, type: "square", gain: 0.08 }],
  end: [
    { freq: 523, end: 523, dur: 0.14, type: "sine", gain: 0.2, at: 0 },
    { freq: 659, end: 659, dur: 0.14, type: "sine", gain: 0.2, at: 0.12 },
    { freq: 784, end: 784, dur: 0.26, type: "sine", gain: 0.2, at: 0.24 },
  ],
};

export function playSound(name) {
  if (!getSetting("sound") || !EFFECTS[name]) return;
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    context = context || new Ctx();
    if (context.state === "suspended") context.resume();
    const now = context.currentTime;
    for (const e of EFFECTS[name]) {
      const start = now + (e.at || 0);
      const osc = context.createOscillator();
      const gain = context.createGain();
      osc.type = e.type;
      osc.frequency.setValueAtTime(e.freq, start);
      osc.frequency.exponentialRampToValueAtTime(e.end, start + e.dur);
      gain.gain.setValueAtTime(e.gain, start);
      gain.gain.exponentialRampToValueAtTime(0.001, start + e.dur);
      osc.connect(gain).connect(context.destination);
      osc.start(start);
      osc.stop(start + e.dur + 0.02);
    }
  } catch {
    /* sound is a nicety; never let it break play */
  }
}
