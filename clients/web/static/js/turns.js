// "Your turn", wherever it is: across every table that seats me (the referee sends my
// seat_state of each on `<p>/t/+/seat/<me>/#`), in the lobby, in the tab's title
// ("(1) Your turn — Summon") and, while the page is in the background, as a browser
// notification (Notifications API) -- if the person asked for it with the button the
// lobby shows (the permission request needs a click: browsers refuse it otherwise).
//
// A turn is a table and the seq of the state that gave it: it is notified once, and never
// after the person saw it (the page visible while it was their turn); both lists are kept in
// localStorage, so a reload or the referee's republished states after a restart (same seq)
// do not notify again.  Runs from the store's listener, not from render: a page in the
// background gets no animation frames, and the title must still change there.

import { h } from "./ui.js";
import { gameName } from "./table.js";
import { seatLabel } from "./words.js";
import { t as tr } from "./i18n.js";
import { playSound } from "./sound.js";

const KEEP = 300;
const SEEN_KEY = "summon.turns.seen";

function load() {
  try { return new Set(JSON.parse(localStorage.getItem(SEEN_KEY) || "[]")); } catch (err) { return new Set(); }
}

const seen = load();   // turn keys notified or seen

function remember(key) {
  if (seen.has(key)) return;
  seen.add(key);
  while (seen.size > KEEP) seen.delete(seen.values().next().value);
  try { localStorage.setItem(SEEN_KEY, JSON.stringify([...seen])); } catch (err) { /* private mode */ }
}

// Tables in play where one of my seats is to move now.
export function myTurns(store, me) {
  if (!me) return [];
  const out = [];
  for (const t of store.tables.values()) {
    const s = t.seat;
    if (!s || s.status !== "playing" || !(s.to_move || []).includes(s.seat)) continue;
    if (t.meta && t.meta.status !== "playing") continue;
    if (t.meta && t.meta.players && t.meta.players[s.seat] !== me) continue;
    out.push(t);
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

const key = (t) => `${t.id}:${t.seat.seq}`;

// On a table's screen the tab says whose turn it is there: "Your turn — Summon", "Grandma's
// turn — Summon" (a tab in the background tells the family who they wait for); null
// elsewhere, or when nobody is to move (the lobby's count of my turns is the title then).
export function tableTitle(store, me) {
  const m = /^#\/table\/([^/]+)$/.exec(location.hash);
  const t = m ? store.tables.get(decodeURIComponent(m[1])) : null;
  const s = t ? t.seat || t.pub : null;
  if (!s || s.status !== "playing" || (t.meta && t.meta.status !== "playing")) return null;
  const to = s.to_move || [];
  const mine = t.seat && to.includes(t.seat.seat) && !(t.meta && t.meta.players && t.meta.players[t.seat.seat] !== me)
    && !(t.meta && (t.meta.left || []).includes(t.seat.seat));
  if (mine) return tr("turns.title-mine");
  return to.length ? tr("turns.title-of", { who: to.map((seat) => seatLabel(t.meta, seat)).join(tr("and")) }) : null;
}

export function notifySupported() { return typeof window.Notification === "function"; }

// Called on every store change and on visibilitychange.
export function updateTurns(store, link) {
  const me = link ? link.user : null;
  const turns = myTurns(store, me);
  document.title = tableTitle(store, me) || (turns.length ? tr("turns.title", { n: turns.length }) : "Summon");
  const hidden = document.visibilityState === "hidden";
  for (const t of turns) {
    const k = key(t);
    if (seen.has(k)) continue;
    remember(k);
    playSound("turn");   // only if the person turned sound on (sound.js)
    if (!hidden || !notifySupported() || Notification.permission !== "granted") continue;  // visible: seen
    try {
      const game = t.meta ? gameName(t.meta.game, t.meta) : tr("lobby.a-table");
      const n = new Notification(tr("turns.note-title"), { body: tr("turns.note-body", { game }), tag: `summon-turn-${t.id}` });
      n.onclick = () => { window.focus(); location.hash = `#/table/${encodeURIComponent(t.id)}`; n.close(); };
    } catch (err) { console.warn("could not show a notification", err); }
  }
}

// The lobby's button (or what it says instead).
export function notifyControl(refresh) {
  if (!notifySupported()) return h("p", { class: "muted notify" }, tr("turns.no-notify"));
  const p = Notification.permission;
  if (p === "granted") return h("p", { class: "muted notify notify-on" }, tr("turns.notify-on"));
  if (p === "denied") return h("p", { class: "muted notify" }, tr("turns.notify-blocked"));
  return h("button", { type: "button", class: "notify-ask", dataset: { key: "notify" }, on: { click: () => {
    Notification.requestPermission().then(refresh, refresh);
  } } }, tr("turns.notify-ask"));
}

// "Your turn" at the top of the lobby: every table waiting for me.
export function yourTurnList(store, me, row) {
  const turns = myTurns(store, me);
  return turns.length ? h("ul", { class: "tables your-turn" }, turns.map((t) => row(t, me))) : null;
}
