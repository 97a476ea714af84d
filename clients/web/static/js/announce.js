// The page's one live region: what a screen reader should hear without looking -- your
// turn, a trick won, a hand's result.  Why one region outside #app: the page re-renders
// #app on every message, and a live region that is replaced rather than changed is not
// reliably read (or is read again on every re-render).  Each announcement has a key (a
// table and the seq or hand that caused it), so it is said once however often we render;
// those of one render are said together (the last trick won and the hand's result arrive
// in the same state: the second must not silence the first).

const said = new Set();
let batch = null;
const ORDER = { play: 0, trick: 1, hand: 2, turn: 3 };   // what was done, what happened, what it means, then what to do

// A new table or a new language: what was said about the last one must not linger (a reader
// moving through the page would hear the old table's words, in the old language).
export function silence() {
  const el = document.getElementById("announce");
  if (el) { el.textContent = ""; el.dataset.key = ""; }
}

export function announce(key, text) {
  if (said.has(key) || !text) return;
  said.add(key);
  if (said.size > 500) said.delete(said.values().next().value);
  if (!batch) {
    batch = { keys: [], texts: [] };
    queueMicrotask(() => {
      const el = document.getElementById("announce");
      const items = batch.keys.map((k, i) => [k, batch.texts[i]]).sort((a, b) => (ORDER[a[0].split(":")[0]] ?? 4) - (ORDER[b[0].split(":")[0]] ?? 4));
      if (el) {
        el.dataset.key = items.map(([k]) => k).join(" ");
        el.textContent = items.map(([, t]) => t).join(" ");
      }
      batch = null;
    });
  }
  batch.keys.push(key);
  batch.texts.push(text);
}
