// The New table form (#/new), built from what the referee publishes: each game's manifest
// and computer levels in `referee_status.games` (protocol/README.md, "Players' tables").
//
// Why from the referee and not written here: a game added to the referee (its manifest)
// gets its form with its options, the rulebook defaults and its computer levels without a
// line of this page changing.  The form sends one `create` on our request topic; on
// `created` the page opens the table, on an error it says why in the referee's words.

import { has, t as tr } from "./i18n.js";
import { h, page } from "./ui.js";
import { errorWords } from "./words.js";

// Clock presets (referee/clock.py, seconds; referee/presets.py says why 45 s).  Every
// preset lets the house bot stand in for someone gone 45 s (a closed tab never stalls the
// table) and hands the seat back on return.  Casual adds a minute a move; turn-based days
// a move, the house bot playing a timed-out turn.
const DAY = 86400;
const AWAY_GRACE = 45;
const QUICK_GRACE = 10;   // "quick": someone who leaves is played for after 10 s (a short evening game)
// "relaxed" (referee/clock.py RELAXED_MOVE_S): 5 minutes a move, then the computer plays
// that move; the default as soon as another person sits at the table, so someone who
// leaves the page open and walks away cannot stall the others for ever (issue 42, item 2).
const RELAXED_MOVE = 300;
export function clockOf(preset, days) {
  if (preset === "quick") return { grace: QUICK_GRACE };
  if (preset === "casual") return { move: 60, on_timeout: "house", max_timeouts: 2, grace: AWAY_GRACE };
  if (preset === "relaxed") return { move: RELAXED_MOVE, on_timeout: "house", max_timeouts: 2, grace: AWAY_GRACE };
  if (preset === "turn") return { move: Math.max(1, Math.min(7, days)) * DAY, on_timeout: "house", max_timeouts: 2 };
  return { grace: AWAY_GRACE };
}

// clock: the preset chosen, or null for the default of the seats chosen (clockChoice)
const draft = { game: null, options: {}, seats: null, who: [], accounts: [], clock: null, days: 1, pending: null, error: null };

function clockChoice() {
  if (draft.clock) return draft.clock;
  const others = draft.who.slice(0, draft.seats).some((w) => w === "invite" || w === "open" || w === "anyone" || w === "account");
  return others ? "relaxed" : "none";
}

function gameOf(store) {
  const games = (store.referee && store.referee.games) || [];
  const game = games.find((g) => g.name === draft.game) || games.find((g) => g.name === "dragon") || games[0] || null;
  if (game && draft.game !== game.name) reset(game);
  return { games, game };
}

function reset(game) {
  draft.game = game.name;
  draft.options = {};
  draft.seats = game.min_seats;
  const normal = (game.levels || []).find((l) => l.level === "normal" && l.available) ? "normal" : "easy";
  draft.who = Array.from({ length: game.max_seats }, (_, i) => (i === 0 ? "me" : `computer:${normal}`));
  draft.accounts = Array.from({ length: game.max_seats }, () => "");
}

function optionField(gameName, o, refresh) {
  const value = o.name in draft.options ? draft.options[o.name] : o.default;
  const set = (v) => { draft.options[o.name] = v; refresh(); };
  const key = `nt-opt-${o.name}`;
  let input;
  if (o.type === "int") {
    input = h("input", { type: "number", min: o.low, max: o.high, value, dataset: { key }, name: o.name,
      on: { change: (e) => set(Number(e.target.value)) } });
  } else if (o.type === "bool") {
    input = h("input", { type: "checkbox", checked: value ? true : null, dataset: { key }, name: o.name,
      on: { change: (e) => set(e.target.checked) } });
  } else if (o.type === "choice") {
    input = h("select", { dataset: { key }, name: o.name, on: { change: (e) => set(o.choices.find((c) => String(c) === e.target.value)) } },
      o.choices.map((c) => h("option", { value: String(c), selected: c === value ? true : null }, choiceWords(gameName, o, c))));
  } else if (o.type === "any" && (o.presets || []).length) {   // a deck: one of the game's preset factions
    input = h("select", { dataset: { key }, name: o.name, on: { change: (e) => set(e.target.value) } },
      o.presets.map((c) => h("option", { value: String(c), selected: c === value ? true : null }, choiceWords(gameName, o, c))));
  } else return null;   // "any": the game checks it; the rulebook default stands
  // a preset (a faction) is a choice the rulebook leaves to the players: no "the rulebook says"
  return h("label", { class: "nt-option" }, `${optionWords(gameName, o)} `, input,
    o.type === "any" ? null : h("span", { class: "muted" }, ` ${tr("nt.rulebook", { v: choiceWords(gameName, o, o.default) })}`));
}

// An option and its values as a sentence ("When all four players pass: the dealer must
// bid"), not the manifest's wire words (`stick-dealer`, `true`); a game or option the
// catalogue does not know yet falls back to the manifest's `doc` and the value itself.
function optionWords(gameName, o) {
  const key = `opt.${gameName}.${o.name}`;
  return has(key) ? tr(key) : o.doc;
}

function choiceWords(gameName, o, c) {
  if (o.type === "bool") return tr(c ? "opt.yes" : "opt.no");
  const key = `opt.${gameName}.${o.name}.${c}`;
  if (has(key)) return tr(key);
  // a preset's id in words: "cinder-vanguard" -> "Cinder Vanguard" (its name in the game's data)
  if (o.type === "any" && typeof c === "string") return c.split("-").map((w) => (w ? w[0].toUpperCase() + w.slice(1) : w)).join(" ");
  return String(c);
}

// opts.guests: this page's server can turn an invite into a guest (config.json `guests`)
function seatField(game, i, me, refresh, opts = {}) {
  const levels = game.levels || [];
  const choice = draft.who[i];
  const select = h("select", { dataset: { key: `nt-seat-${i}` }, "aria-label": tr("nt.player", { n: i + 1 }),
    on: { change: (e) => { draft.who[i] = e.target.value; refresh(); } } },
    h("option", { value: "me", selected: choice === "me" ? true : null }, tr("nt.me", { me })),
    opts.guests ? h("option", { value: "invite", selected: choice === "invite" ? true : null }, tr("nt.invite")) : null,
    h("option", { value: "open", selected: choice === "open" ? true : null }, tr("nt.open")),
    h("option", { value: "anyone", selected: choice === "anyone" ? true : null }, tr("nt.anyone")),
    h("option", { value: "account", selected: choice === "account" ? true : null }, tr("nt.account")),
    levels.map((l) => h("option", { value: `computer:${l.level}`, disabled: l.available ? null : true,
      selected: choice === `computer:${l.level}` ? true : null },
      tr("nt.computer", { level: tr(`level.${l.level}`) }) + (l.available ? "" : ` ${tr("nt.not-yet")}`))));
  const account = choice === "account"
    ? h("input", { placeholder: tr("nt.account-placeholder"), value: draft.accounts[i], dataset: { key: `nt-account-${i}` },
      pattern: "[A-Za-z0-9_.\\-]{1,64}", on: { input: (e) => { draft.accounts[i] = e.target.value; } } })
    : null;
  const team = (game.teams || []).findIndex((t) => t.includes(i));
  return h("li", {}, (team >= 0 ? tr("nt.player-team", { n: i + 1, team: team + 1 }) : tr("nt.player", { n: i + 1 })) + ": ", select, account);
}

// What the form sends: players by seat ("" for a computer or waiting seat), {seat: level}
// and {seat: "invite" | "open" | "anyone"} (a table that waits for those seats before it starts;
// "anyone": a person or a bot account may take it, "open": people only).
export function requestOf(game, me) {
  const players = [], computer = {}, waiting = {};
  for (let i = 0; i < draft.seats; i++) {
    const who = draft.who[i];
    if (who === "me") players.push(me);
    else if (who === "account") players.push(draft.accounts[i].trim());
    else if (who === "invite" || who === "open" || who === "anyone") { players.push(""); waiting[String(i)] = who; }
    else { players.push(""); computer[String(i)] = who.slice("computer:".length); }
  }
  const req = { game: game.name, players, config: { ...draft.options }, clock: clockOf(clockChoice(), draft.days), computer };
  if (Object.keys(waiting).length) req.waiting = waiting;
  return req;
}

// config: config.json (its `guests` says whether invite links can be redeemed here);
// send(type, fields, anyCell): the request's id -- where it goes is app.js's (js/cells.js
// `place`: a table without waiting seats may go to another cell, see there).
export function renderNewTable(store, link, refresh, config = {}, send = (type, fields) => link.request(type, fields)) {
  const me = link && link.user;
  if (!me) return [page(tr("nt.title"), h("p", {}, tr("nt.login")))];
  const { games, game } = gameOf(store);
  if (!game) return [page(tr("nt.title"), h("p", { class: "muted", role: "status" }, tr("nt.waiting-games")))];
  const reply = draft.pending ? store.replies.get(draft.pending) : null;
  if (reply) draft.pending = null;
  if (reply && reply.type === "created") setTimeout(() => { location.hash = `#/table/${encodeURIComponent(reply.table)}`; }, 0);
  if (reply && reply.type === "error") draft.error = reply;
  const levelsNote = (game.levels || []).filter((l) => !l.available).map((l) => tr("nt.level-note", { level: tr(`level.${l.level}`), note: l.note }));
  const seatCount = game.min_seats === game.max_seats ? null
    : h("label", {}, `${tr("nt.players")} `, h("select", { dataset: { key: "nt-seats" }, on: { change: (e) => { draft.seats = Number(e.target.value); refresh(); } } },
      Array.from({ length: game.max_seats - game.min_seats + 1 }, (_, k) => game.min_seats + k)
        .map((n) => h("option", { value: n, selected: n === draft.seats ? true : null }, String(n)))));
  const form = h("form", { class: "new-table", on: { submit: (e) => {
    e.preventDefault();
    draft.error = null;
    const req = requestOf(game, me);
    // waiting seats (invite links, open seats) stay in the home cell: its gateway redeems the
    // invites, and its lobby lists the open seats (gatherings are not on the lobby edge)
    try { draft.pending = send("create", req, !req.waiting); } catch (err) { draft.error = { code: "page.no-cell", message: err.message }; }
    refresh();
  } } },
    h("label", {}, `${tr("nt.game")} `, h("select", { dataset: { key: "nt-game" }, on: { change: (e) => { reset(games.find((g) => g.name === e.target.value)); refresh(); } } },
      games.map((g) => h("option", { value: g.name, selected: g.name === game.name ? true : null }, g.title)))),
    h("fieldset", {}, h("legend", {}, tr("nt.rules")), game.options.map((o) => optionField(game.name, o, refresh))),
    h("fieldset", {}, h("legend", {}, tr("nt.clock")),
      h("select", { dataset: { key: "nt-clock" }, "aria-label": tr("nt.clock"), on: { change: (e) => { draft.clock = e.target.value; refresh(); } } },
        [["none", tr("nt.clock-none")], ["quick", tr("nt.clock-quick")], ["relaxed", tr("nt.clock-relaxed")], ["casual", tr("nt.clock-casual")], ["turn", tr("nt.clock-turn")]]
          .map(([v, label]) => h("option", { value: v, selected: clockChoice() === v ? true : null }, label))),
      clockChoice() === "turn" ? h("label", {}, ` ${tr("nt.days")} `, h("input", { type: "number", min: 1, max: 7, value: draft.days,
        dataset: { key: "nt-days" }, on: { change: (e) => { draft.days = Number(e.target.value); } } })) : null),
    h("fieldset", {}, h("legend", {}, tr("nt.players")), seatCount,
      h("ol", { class: "nt-seats" }, Array.from({ length: draft.seats }, (_, i) => seatField(game, i, me, refresh, { guests: !!config.guests }))),
      levelsNote.length ? h("p", { class: "muted" }, levelsNote.join(" ")) : null),
    h("button", { type: "submit", class: "move", dataset: { key: "nt-start" }, disabled: draft.pending ? true : null },
      draft.pending ? tr("nt.starting") : tr("nt.start")));
  const problem = draft.error ? h("div", { class: "error", role: "alert" }, errorWords(draft.error)) : null;
  return [page(tr("nt.title"), problem, form)];
}
