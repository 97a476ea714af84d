// Small DOM helpers: build elements from data, never from HTML strings.
//
// Why never HTML strings: every text on the page comes from the broker (usernames,
// table ids, tournament names, error details), so building nodes with textContent makes
// markup injection impossible by construction, and the CSP forbids inline scripts anyway.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "on") for (const [ev, fn] of Object.entries(value)) el.addEventListener(ev, fn);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "text") el.textContent = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// A button that sends one legal move.  data-key keeps keyboard focus across re-renders;
// data-move lets tests (and people reading the DOM) see which legal string it sends.
export function moveButton(move, label, onMove, extra = {}) {
  return h("button", {
    type: "button", class: `move ${extra.class || ""}`.trim(), title: extra.title || move,
    "aria-label": extra.aria || null,
    dataset: { move, key: `move:${move}` }, on: { click: () => onMove(move) },
  }, label);
}

// Re-render `root` with `build()` while keeping the focused control focused (by data-key).
// Fields marked `data-keep` (the login, sign-up and "Your name" forms) also keep what was
// typed in them: the lobby re-renders on every broker message, and a password half typed
// must not vanish because a table moved on somewhere.
export function rerender(root, build) {
  const active = document.activeElement;
  const key = active && root.contains(active) ? active.dataset.key : null;
  const scroll = window.scrollY;
  const typed = new Map();
  for (const el of root.querySelectorAll("input[data-keep][data-key]")) if (el.value !== el.defaultValue) typed.set(el.dataset.key, el.value);
  const caret = active && typed.has(key) ? [active.selectionStart, active.selectionEnd] : null;
  root.replaceChildren(...[build()].flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
  for (const [k, v] of typed) {
    const el = root.querySelector(`input[data-keep][data-key="${CSS.escape(k)}"]`);
    if (el) el.value = v;
  }
  if (caret) {
    const el = root.querySelector(`input[data-keep][data-key="${CSS.escape(key)}"]`);
    try { if (el) el.setSelectionRange(caret[0], caret[1]); } catch (err) { /* not a text field */ }
  }
  if (key) {
    const again = root.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
  window.scrollTo(0, scroll);
}

export function section(title, ...children) {
  return h("section", { class: "panel" }, h("h2", {}, title), ...children);
}

// A screen that is one panel (Join the table, New table): its title is the page's one h1, so a
// screen reader's "headings" list starts with what the screen is for (axe: page-has-heading-one).
export function page(title, ...children) {
  return h("section", { class: "panel" }, h("h1", { class: "panel-title" }, title), ...children);
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return "";
  const s = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}
