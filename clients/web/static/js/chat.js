// The chat panel of one table (protocol/README.md "Chat"): the table's seated players write,
// everyone watching reads -- spectators, edge visitors and replays get the same lines,
// read-only.  Everything a player typed is shown as a text node (ui.js `h`), never markup.
//
// What lives where: the lines come from the store (link.js keeps them by `n`, from the live
// `chat_line`s and the retained `chat_log`); the input is one element per table kept across
// re-renders (the page re-renders on every message, and a new input would lose what is being
// typed); muted names are this browser's own choice (localStorage), never sent anywhere.

import { h, section } from "./ui.js";
import { chatErrorWords, seatLabel } from "./words.js";
import { has, lang, t as tr } from "./i18n.js";

export const MAX_CHARS = 300;  // protocol/chat.py MAX_CHARS: longer lines are refused here, in words
export const PRESETS = [       // protocol/chat.py PRESETS (id, phrase)
  ["gl", "Good luck!"], ["wp", "Well played!"], ["thanks", "Thanks!"], ["oops", "Oops!"],
  ["wait", "One moment…"], ["gg", "Good game!"],
];
const MUTE_KEY = "summon.chat.muted";
const SHOWN = 50;
const composers = new Map();   // table id -> {root, input, counter, opts}

export function mutedNames() {
  try { return new Set(JSON.parse(localStorage.getItem(MUTE_KEY) || "[]").filter((x) => typeof x === "string")); }
  catch (err) { return new Set(); }
}

function setMuted(user, on) {
  const names = mutedNames();
  if (on) names.add(user); else names.delete(user);
  try { localStorage.setItem(MUTE_KEY, JSON.stringify([...names].sort())); } catch (err) { /* private mode: not kept */ }
}

// t: the store's table; opts: {user (null: not logged in), seated, send(body) (throws in words), refresh, replay}
export function chatPanel(t, opts) {
  const lines = t.chat ? [...t.chat.values()].sort((a, b) => a.n - b.n) : [];
  const muted = mutedNames();
  const shown = lines.filter((line) => !muted.has(line.user)).slice(-SHOWN);
  const list = shown.length
    // newest first in the DOM (as the event feed; read first by a screen reader), shown at the
    // bottom by the stylesheet's column-reverse, which also keeps the newest in view when it scrolls
    ? h("ol", { class: "chat-lines", reversed: true, "aria-label": tr("chat.lines"), "aria-live": "polite" },
      shown.slice().reverse().map((line) => lineItem(line, { ...opts, meta: t.meta })))
    : h("p", { class: "muted chat-none" }, tr("chat.none"));
  const hiddenBy = [...muted].map((user) => [user, lines.filter((line) => line.user === user).length]).filter(([, n]) => n);
  const mutedNote = hiddenBy.length ? h("p", { class: "chat-muted muted" }, `${tr("chat.muted")} `,
    hiddenBy.map(([user, n]) => h("span", { class: "chat-muted-user" }, `${who(lines.find((l) => l.user === user), t.meta)} ${tr("chat.hidden", { n })} `,
      h("button", { type: "button", class: "small", dataset: { key: `unmute:${user}`, unmute: user },
        on: { click: () => { setMuted(user, false); opts.refresh(); } } }, tr("chat.unmute", { user: who(lines.find((l) => l.user === user), t.meta) })), " "))) : null;
  const over = t.chatError && lines.some((line) => line.user === opts.user && line.got > t.chatError.at);
  const stale = t.chatError && t.chatError.local && t.chatError.code === "client" && composers.has(t.id)
    && [...composers.get(t.id).input.value].length <= MAX_CHARS;   // shortened since: that refusal is over
  if (composers.has(t.id)) composers.get(t.id).shownError = !!t.chatError && !over && !stale;
  const err = t.chatError && !over && !stale && !opts.replay ? h("p", { class: "error chat-error", role: "alert" }, chatErrorWords(t.chatError)) : null;
  let foot;
  if (opts.replay) foot = null;
  else if (opts.user && opts.seated) foot = composer(t, opts);
  else foot = h("p", { class: "muted chat-readonly" }, tr("chat.readonly"));
  return section(tr("chat.title"), list, mutedNote, err, foot);
}

// A line's author as the table calls them: a guest's display name (meta.names), else the account.
function who(line, meta) {
  const seat = Number.isInteger(line.seat) ? line.seat : meta && meta.players ? meta.players.indexOf(line.user) : -1;
  return seat >= 0 && meta && meta.players && meta.players[seat] === line.user ? seatLabel(meta, seat) : line.user;
}

function lineItem(line, opts) {
  const mine = opts.user && line.user === opts.user;
  const at = Number.isFinite(line.at) ? new Date(line.at) : null;
  return h("li", { class: `chat-line ${mine ? "mine" : ""}`.trim(), dataset: { n: line.n, user: line.user } },
    h("span", { class: "chat-who" }, who(line, opts.meta)), " ",
    // a preset is said in the reader's language (its id travels with the line); typed text as typed
    h("span", { class: "chat-text" }, line.preset && has(`chat.preset.${line.preset}`) ? tr(`chat.preset.${line.preset}`) : line.text),
    at ? h("time", { class: "chat-at muted", datetime: at.toISOString() }, ` ${at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`) : null,
    mine || opts.replay ? null : h("button", { type: "button", class: "chat-mute small", title: tr("chat.hide", { user: who(line, opts.meta) }),
      "aria-label": tr("chat.mute-who", { user: who(line, opts.meta) }), dataset: { key: `mute:${line.n}`, mute: line.user },
      on: { click: () => { setMuted(line.user, true); opts.refresh(); } } }, tr("chat.mute")));
}

// The input, its counter, the send button and the presets: built once per table.
function composer(t, opts) {
  let c = composers.get(t.id);
  const typed = c && c.lang !== lang() ? c.input.value : null;   // the language switch: words anew, what is typed stays
  if (typed !== null) { composers.delete(t.id); c = null; }
  if (!c) {
    const counter = h("span", { class: "chat-count muted", "aria-live": "off" }, `0/${MAX_CHARS}`);
    const input = h("input", { type: "text", name: "chat", class: "chat-input", autocomplete: "off", enterkeyhint: "send",
      placeholder: tr("chat.placeholder"), "aria-label": tr("chat.input"), dataset: { key: `chat-input:${t.id}` } });
    if (typed) { input.value = typed; counter.textContent = `${[...typed].length}/${MAX_CHARS}`; }
    input.addEventListener("input", () => {
      const n = [...input.value].length;
      counter.textContent = `${n}/${MAX_CHARS}`;
      counter.classList.toggle("over", n > MAX_CHARS);
      if (n <= MAX_CHARS && t.chatError && t.chatError.local && t.chatError.code === "client" && c.shownError) c.opts.refresh();
    });
    const form = h("form", { class: "chat-form", on: { submit: (e) => { e.preventDefault(); send(c, t, { text: input.value }); } } },
      input, h("button", { type: "submit", class: "chat-send", dataset: { key: `chat-send:${t.id}` } }, tr("chat.send")), counter);
    const presets = h("div", { class: "chat-presets", role: "group", "aria-label": tr("chat.presets") },
      PRESETS.map(([id, phrase]) => h("button", { type: "button", class: "small chat-preset", dataset: { key: `preset:${id}`, preset: id },
        on: { click: () => send(c, t, { preset: id }) } }, tr(`chat.preset.${id}`))));
    c = { input, counter, root: h("div", { class: "chat-compose" }, presets, form,
      h("p", { class: "muted chat-public" }, tr("chat.public"))), lang: lang() };
    composers.set(t.id, c);
  }
  c.opts = opts;
  return c.root;
}

// Check in words before anything leaves the page; the referee checks again (and answers in words).
function send(c, t, body) {
  const { opts } = c;
  if (body.text !== undefined) {
    const text = body.text.trim().normalize("NFC");
    const n = [...text].length;
    if (!n) { t.chatError = { code: "chat/empty", detail: "", local: true, at: performance.now() }; opts.refresh(); return; }
    if (n > MAX_CHARS) {
      t.chatError = { code: "client", local: true, at: performance.now(),
        detail: tr("chat.too-long", { n, max: MAX_CHARS }) };
      opts.refresh();
      return;
    }
    body = { text };
  }
  try {
    opts.send(body);
    if (t.chatError && t.chatError.local) t.chatError = null;   // the referee's refusals stay until a line of mine arrives
    if (body.text !== undefined) { c.input.value = ""; c.counter.textContent = `0/${MAX_CHARS}`; c.counter.classList.remove("over"); }
  } catch (err) {
    t.chatError = { code: "client", detail: err.message, local: true, at: performance.now() };
  }
  opts.refresh();
}
