// One table on screen, for any audience: the seated player (their seat_state, with
// `legal`), a spectator (public_state), or a replay step.  The game-specific part comes
// from games/<web>.js, the module the game's manifest names (see learnGames); this module
// adds what every game shares: who plays, whose turn, clocks, referee notices, the error of
// the last refused move, and the event feed.

import { h, section, formatMs } from "./ui.js";
import { chatPanel } from "./chat.js";
import { errorWords, isComputerSeat, playerNames, reasonWords, refereeEventText, seatLabel, statusWords } from "./words.js";
import * as generic from "./games/generic.js";
import { howtoFold } from "./howto.js";
import { awayChip, awayNotices, awaySince } from "./away.js";
import { has, t as tr } from "./i18n.js";
import { announce } from "./announce.js";
import { sheetPanel } from "./sheet.js";

// A game's own module (its screen, score sheet and event words) is the one its registered
// players name, `hooks.web` (clients/playertype.py: web "x" is games/x.js), as the servers say
// it: config.json's `games` ({game: web}, what `summon web` has registered) and
// referee_status's `games` (each manifest with its players, `hooks` included).  Each is imported once, so a game added in its
// own folder needs no line here; a game without one, or whose module has not arrived or did
// not load, shows the generic screen (the view as data, every legal move a button).
const HOOKS = new Map();     // game name -> its web module's name
const MODULES = new Map();   // web module's name -> the module (null while it loads, or if it failed)

// games: config.json's {game: web} or referee_status's list of manifests; loaded(): called
// when a module arrives after the page first needed it.  The promise: every module asked for.
export function learnGames(games, loaded) {
  const pairs = Array.isArray(games) ? games.map((g) => [g && g.name, g && g.hooks && g.hooks.web]) : Object.entries(games || {});
  const waits = [];
  for (const [name, web] of pairs) {
    if (typeof name !== "string" || typeof web !== "string" || !/^[a-z0-9_-]+$/.test(web)) continue;   // a name, never a path
    HOOKS.set(name, web);
    if (MODULES.has(web)) continue;
    MODULES.set(web, null);
    waits.push(import(`./games/${web}.js`).then((m) => { MODULES.set(web, m); if (loaded) loaded(); },
      (err) => console.warn(`games/${web}.js (the web module of ${name}) did not load; the generic screen shows it`, err)));
  }
  return Promise.all(waits);
}

const gameModule = (name) => MODULES.get(HOOKS.get(name)) || generic;
// A game's title comes from the tables' meta (the referee reads it from the game's manifest);
// each title seen is remembered, so a tournament of the same game shows it too.
const TITLES = new Map();

export function gameName(game, meta) {
  if (meta && meta.title && meta.game === game) TITLES.set(game, meta.title);
  return has(`game.${game}`) ? tr(`game.${game}`) : TITLES.get(game) || game;   // ours first: in the page's language
}

// t: the store's table record; opts: {onMove(move) | null, onReclaim, now, ui, refresh, replay,
// chat: {user, send(body)} (the chat panel, chat.js; a replay shows its chat read-only)}
export function renderTable(t, opts) {
  const state = t.seat || t.pub;
  const meta = t.meta;
  const head = h("header", { class: "table-head" },
    h("h1", {}, gameName((state || meta || {}).game || "", meta)));
  if (!state) {
    return [head, h("p", { class: "waiting", role: "status" },
      meta ? tr("table.waiting-state") : tr("table.waiting-table", { id: t.id }))];
  }
  const view = state.view || {};
  const mySeat = t.seat ? t.seat.seat : null;
  const playing = state.status === "playing";
  const legal = t.seat && playing && (t.seat.to_move || []).includes(mySeat) && opts.onMove ? t.seat.legal || [] : [];
  const game = gameModule(state.game);
  const started = t.seat ? t.seatAt : t.pubAt;
  const clocks = (seat) => [clockSpan(state.clock, seat, started, opts.now), opts.replay ? null : awayChip(meta, seat, mySeat)];
  const ctx = {
    meta, view, legal, mySeat, events: t.events, ui: opts.ui, refresh: opts.refresh, clocks, seq: state.seq, table: t.id, replay: !!opts.replay,
    onMove: (move) => opts.onMove(t.id, state.seq, move),
  };
  const players = meta ? meta.players : [];
  const turn = (state.to_move || []).map((s) => seatLabel(meta, s));
  // not a live region: "X is thinking…" four times a trick is noise; the page's one live
  // region (announce.js) says your turn, the others' cards and each trick instead
  const status = h("div", { class: "status-line", dataset: { seq: state.seq, status: state.status } },
    h("span", { class: `badge status-${state.status}` }, statusWords(state.status)),
    playing ? h("span", { class: `turn ${legal.length ? "mine" : ""}` },
      legal.length ? tr("table.your-turn") : turn.length ? tr("table.thinking", { who: turn.join(", "), n: turn.length }) : "") : null,
    mySeat !== null ? h("span", { class: "muted" }, ` · ${tr("table.you-are", { who: seatLabel(meta, mySeat) })}`) : h("span", { class: "muted" }, ` · ${tr("table.watching")}`));
  // Said once per turn by the page's one live region (announce.js), however often the page re-renders.
  if (legal.length && !opts.replay) announce(`turn:${t.id}:${state.epoch || 0}:${state.seq}`, tr("table.your-turn"));
  const out = [head, status];
  const iLeft = mySeat !== null && meta && (meta.left || []).includes(mySeat);
  if (iLeft && playing) out.push(h("p", { class: "notice left", role: "status" }, tr("table.left-mine")));
  else if (meta && meta.house && mySeat !== null && meta.house.includes(mySeat) && playing) {
    out.push(h("div", { class: "notice house" }, `${tr("table.house-mine")} `,
      h("button", { type: "button", class: "move", dataset: { key: "reclaim" }, on: { click: () => opts.onReclaim(t.id) } }, tr("table.reclaim"))));
  }
  if (playing && mySeat !== null && !iLeft && !opts.replay && opts.onHandOver) out.push(...handOver(t, state, meta, mySeat, opts));
  if (t.notice && !opts.replay) out.push(h("p", { class: "notice", role: "status" }, t.notice));
  const away = opts.replay ? null : awayNotices(meta, mySeat);
  // people the computer stands in for (a computer's own seat needs no notice)
  const othersHouse = meta && meta.house ? meta.house.filter((s) => s !== mySeat && awaySince(meta, s) === null && !isComputerSeat(meta, s)) : [];
  if (away) out.push(away);
  if (othersHouse.length && playing) {
    out.push(h("p", { class: "notice" }, tr("ev.autoplay", { who: othersHouse.map((s) => seatLabel(meta, s)).join(", ") })));
  }
  if (t.error && !opts.replay) out.push(h("div", { class: "error", role: "alert" }, errorWords(t.error)));
  if (meta && meta.result && !playing) out.push(resultPanel(meta));
  if (meta && meta.status === "finished" && mySeat !== null && opts.onRematch && !opts.replay) out.push(playAgain(t.id, meta, mySeat, opts));
  // the score sheet: right under the game-over panel once the game is over, else under the table
  const sheet = readable(() => sheetPanel(ctx, game, !playing), () => null, t.id);
  if (!playing) out.push(sheet);
  out.push(h("div", { class: `game game-${state.game}` }, readable(() => game.render(ctx), () => generic.render(ctx), t.id)));
  if (playing) out.push(sheet);
  out.push(howtoFold(state.game, opts.ui));
  if (opts.chat || opts.replay) {
    out.push(chatPanel(t, { ...(opts.chat || {}), seated: mySeat !== null, replay: !!opts.replay, refresh: opts.refresh }));
  }
  out.push(feedPanel(t, meta, game));
  if (players.length && !game.showsPlayers) out.push(h("p", { class: "muted" }, tr("table.players", { players: playerNames(meta).join(", ") })));
  if (playing && mySeat !== null && !iLeft && !opts.replay && opts.onLeave) out.push(leaveControl(t.id, opts));
  out.push(detailsFold(t, state, mySeat, opts.ui));
  return out;
}

// "Leave table", asked twice: the second question says what happens (referee/seatchange.py).
function leaveControl(id, opts) {
  const ui = opts.ui || {};
  if (ui.leaving !== id) {
    return h("p", { class: "leave" }, h("button", { type: "button", class: "small", dataset: { key: "leave" },
      on: { click: () => { ui.leaving = id; opts.refresh(); } } }, tr("table.leave")));
  }
  return h("div", { class: "notice leave-confirm", role: "alertdialog", "aria-label": tr("table.leave") },
    h("p", {}, tr("table.leave-confirm")),
    h("button", { type: "button", class: "move", dataset: { key: "leave-yes" }, on: { click: () => { ui.leaving = null; opts.onLeave(id); } } }, tr("table.leave-yes")),
    " ",
    h("button", { type: "button", dataset: { key: "leave-no" }, on: { click: () => { ui.leaving = null; opts.refresh(); } } }, tr("table.leave-no")));
}

// The seats waiting for a person who has not moved for the grace (referee/seatchange.py: the
// table's per-move limit, else 180 s; or the clock already played for them): the host -- or,
// at a table without one, any other person -- may let the computer play there.  The page
// counts from when it got the state that started the turn; the referee has the last word.
const HAND_OVER_GRACE_MS = 180000;
let idleTimer = null;

function handOver(t, state, meta, mySeat, opts) {
  if (!meta) return [];
  const me = meta.players[mySeat];
  if (meta.host ? meta.host !== me : false) return [];
  const grace = meta.clock && meta.clock.move ? meta.clock.move * 1000 : HAND_OVER_GRACE_MS;
  const since = t.seat ? t.seatAt : t.pubAt;
  const out = [];
  let next = null;
  for (const s of state.to_move || []) {
    if (s === mySeat || (meta.house || []).includes(s) || isComputerSeat(meta, s)) continue;
    const timedOut = state.clock && state.clock.timeouts && state.clock.timeouts[s] >= 1;
    const due = timedOut ? 0 : grace - (opts.now() - since);
    if (due > 0) { next = next === null ? due : Math.min(next, due); continue; }
    out.push(h("p", { class: "hand-over" }, h("button", { type: "button", class: "small", dataset: { key: "hand-over", seat: s },
      on: { click: () => opts.onHandOver(t.id, s) } }, tr("table.hand-over", { who: seatLabel(meta, s) }))));
  }
  clearTimeout(idleTimer);
  if (next !== null && opts.refresh) idleTimer = setTimeout(opts.refresh, next + 50);
  return out;
}

// The game's own part of a state (its `view`, its events) is game-specific, so valid.js
// checks only that it is a map: a game module that cannot read it falls back to the
// generic screen (the view as data, every legal move a button) and says so in the log,
// instead of breaking the page.
function readable(build, fallback, table) {
  try { return build(); } catch (err) {
    console.warn(`table ${table}: could not show a part of its state the usual way`, err);
    return fallback();
  }
}

// A finished table's result in words, once per team or player (the lobby says it too).
export function resultLine(meta) {
  const r = meta.result;
  const game = gameModule(meta.game);
  const words = game.resultWords ? game.resultWords(meta, r) : null;
  if (words) return `${words} (${reasonWords(r.reason)}).`;
  const winners = (r.winners || []).map((s) => seatLabel(meta, s));
  const scores = (r.scores || []).map((v, s) => `${seatLabel(meta, s)} ${v}`);
  return `${winners.length ? tr("result.won-by", { who: winners.join(tr("and")) }) : tr("result.no-winner")}: ${scores.join(", ")} (${reasonWords(r.reason)}).`;
}

// The one game-over panel (each game's module says no result of its own: the same sentence
// under "Result" and "Game over" read twice, issue 42 item 6).
function resultPanel(meta) {
  return section(tr("result.title"), h("p", { class: "final-result", dataset: { scores: JSON.stringify(meta.result.scores) } }, resultLine(meta)));
}

// "Play again": one click each; computer seats accept by themselves (referee/playertables.py).
function playAgain(id, meta, mySeat, opts) {
  const asked = meta.rematch || [];
  const computer = (s) => (meta.bots || []).includes(meta.players[s]) && (meta.house || []).includes(s);
  const waiting = meta.players.map((_, s) => s).filter((s) => !computer(s) && !asked.includes(s)).map((s) => seatLabel(meta, s));
  if (meta.next) return h("p", { class: "notice", role: "status" }, tr("table.next-starting"));
  return h("div", { class: "play-again" }, asked.includes(mySeat)
    ? h("p", { role: "status" }, tr("table.waiting-again", { who: waiting.join(", ") }))
    : h("button", { type: "button", class: "move", dataset: { key: "rematch" }, on: { click: () => opts.onRematch(id) } }, tr("table.play-again")),
    asked.length && !asked.includes(mySeat) ? h("p", { class: "muted" }, tr("table.would-like", { who: asked.filter((s) => !computer(s)).map((s) => seatLabel(meta, s)).join(", ") })) : null);
}

// What a curious person (or an operator) may want, kept out of the main view.
function detailsFold(t, state, mySeat, ui) {
  const fold = h("details", { class: "details", open: ui && ui.details ? true : null },
    h("summary", { dataset: { key: "details" } }, tr("details")),
    h("ul", { class: "details-list" },
      h("li", {}, tr("details.table", { id: t.id })),
      h("li", {}, tr("details.move", { seq: state.seq })),
      h("li", {}, mySeat !== null ? tr("details.seat", { seat: mySeat }) : tr("details.no-seat")),
      t.meta && t.meta.players ? h("li", {}, `${tr("details.seats")} ${t.meta.players.map((p, i) => `${i} ${p}`).join(", ")}`) : null));
  fold.addEventListener("toggle", () => { if (ui) ui.details = fold.open; });
  return fold;
}

function clockSpan(clock, seat, started, now) {
  if (!clock || !clock.remaining_ms) return null;
  const running = (clock.running || []).includes(seat);
  const left = clock.remaining_ms[seat] - (running ? now() - started : 0);
  const bank = clock.bank_ms && clock.bank_ms[seat] !== null ? ` · ${tr("clock.bank")} ${formatMs(clock.bank_ms[seat] - (running && clock.move_ms === null ? now() - started : 0))}` : "";
  return h("div", { class: `clock ${running ? "running" : ""}`, dataset: running ? { clockLeft: clock.remaining_ms[seat], clockSince: started } : {} },
    h("span", { class: "left" }, `${tr("clock.clock")} ${formatMs(left)}`), bank);
}

// The feed: newest first; referee notices (house bot, timeouts, reclaim) in every game.
function feedPanel(t, meta, game) {
  const lines = [];
  for (const batch of t.events.slice().reverse()) {
    for (const e of batch.events.slice().reverse()) {
      if (e.type === "autoplay" && isComputerSeat(meta, e.seat)) continue;  // a computer playing its own seat is no news
      const text = readable(() => refereeEventText(e, meta) || game.eventText(e, meta), () => e.type, t.id);
      if (text) lines.push(h("li", { class: `ev ev-${e.type}` }, text));
      if (lines.length >= 30) break;
    }
    if (lines.length >= 30) break;
  }
  return section(tr("feed.title"), lines.length ? h("ul", { class: "feed", tabindex: "0" }, lines) : h("p", { class: "muted" }, tr("feed.nothing")));
}

// Clocks tick without re-rendering (a re-render between mousedown and mouseup eats a click).
export function tickClocks(root, now) {
  for (const el of root.querySelectorAll("[data-clock-left]")) {
    const left = Number(el.dataset.clockLeft) - (now() - Number(el.dataset.clockSince));
    el.querySelector(".left").textContent = `${tr("clock.clock")} ${formatMs(left)}`;
  }
}
