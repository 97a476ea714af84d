// The page's one live region: what a screen reader should hear without looking -- your
// turn, a trick won, a hand's result.  Why one region outside #app: the page re-renders
// #app on every message, and a live region that is replaced rather than changed is not
// reliably read (or is read again on every re-render).  Each announcement has a key (a
// table and the seq or hand that caused it), so it is said once however often we render.

const said = new Set();

export function announce(key, text) {
  if (said.has(key) || !text) return;
  said.add(key);
  if (said.size > 500) said.delete(said.values().next().value);
  const el = document.getElementById("announce");
  if (!el) return;
  el.dataset.key = key;
  el.textContent = text;
}
