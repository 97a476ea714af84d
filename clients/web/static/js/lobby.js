// The lobby: my tables, live tables to watch, finished ones with results, tournaments with
// their standings, and the referee's status -- all from retained messages
// (`<p>/t/+/public/meta`, `<p>/t/+/seat/<me>/#`, `<p>/tour/#`, `<p>/referee/status`).

import { h, section } from "./ui.js";
import { gameName, resultLine } from "./table.js";
import { rulesLinks } from "./howto.js";
import { playerNames, seatLabel, statusWords } from "./words.js";
import { myGatherings, openTables } from "./gathering.js";
import { notifyControl, yourTurnList } from "./turns.js";
import { has, t as tr } from "./i18n.js";

function tableLink(id, label) {
  return h("a", { href: `#/table/${encodeURIComponent(id)}`, class: "table-link", dataset: { table: id, key: `link:${id}` } }, label);
}

function tableRow(t, me, store = null) {
  const m = t.meta;
  const seat = m && me ? m.players.indexOf(me) : -1;
  const result = m && m.result ? ` · ${resultLine(m)}` : "";
  const down = store && m && m.cell && store.cellDown.has(m.cell.name);
  const cell = m && m.cell && m.cell.name ? ` · ${tr(down ? "lobby.in-cell-down" : "lobby.in-cell", { cell: m.cell.name })}` : "";   // several cells (js/cells.js)
  return h("li", { dataset: { table: t.id, cell: m && m.cell ? m.cell.name : "" } },
    tableLink(t.id, m ? gameName(m.game, m) : tr("lobby.a-table")),
    h("span", { class: "muted" }, m ? ` ${playerNames(m).join(", ")} · ${statusWords(m.status)}${result}${cell}` : ""),
    seat >= 0 && m.status === "playing" ? " " : null,  // "in play seated", not "in playseated" (read aloud, copied)
    seat >= 0 && m.status === "playing" ? h("span", { class: "badge mine" }, turnBadge(t, m, seat)) : null);
}

// "your turn", else whose turn it is ("Grandma's turn"): a family glancing at the lobby sees who
// holds the table up (issue 42); "seated" only while no seat state has arrived yet.
function turnBadge(t, m, seat) {
  const to = t.seat ? t.seat.to_move || [] : null;
  if (!to) return tr("lobby.badge-seated");
  if (to.includes(seat)) return tr("lobby.badge-turn");
  return to.length ? tr("lobby.badge-whose", { who: to.map((s) => seatLabel(m, s)).join(", ") }) : tr("lobby.badge-seated");
}

// opts: {onSit(table, seat)} (an open seat of "Open tables to join")
export function renderLobby(store, link, loginForm, refresh = () => {}, opts = {}) {
  const me = link ? link.user : null;
  if (link && link.guest) return guestLobby(store, link, loginForm);
  const tables = [...store.tables.values()].filter((t) => t.meta);
  const mine = me ? tables.filter((t) => t.meta.players.includes(me) && t.meta.status === "playing") : [];
  const live = tables.filter((t) => t.meta.status === "playing" && !mine.includes(t));
  const done = tables.filter((t) => t.meta.status !== "playing");
  const ref = store.referee;
  const refLine = (r) => (r ? (r.status === "online" ? tr("lobby.referee-online", { n: r.tables }) : tr("lobby.referee", { status: r.status })) : tr("lobby.no-referee"));
  const perCell = store.cellStatus && store.cellStatus.size   // the lobby edge: one referee status per cell
    ? h("ul", { class: "cell-status" }, [...store.cellStatus].sort().map(([name, r]) =>
      store.cellDown.has(name)   // its bridges say "0": its last status may still say online
        ? h("li", { class: "ref-offline cell-down", dataset: { cell: name } }, tr("lobby.cell-down", { cell: name }))
        : h("li", { class: `ref-${r.status}`, dataset: { cell: name } }, `${tr("lobby.cell", { cell: name })} · ${refLine(r)}`)))
    : null;
  const out = [
    h("h1", { class: "lobby-title" }, tr("lobby.h1")),
    perCell || h("p", { class: `referee ${ref ? `ref-${ref.status}` : ""}`, role: "status" }, refLine(ref)),
    loginForm,
    rulesLinks(),
  ];
  if (me) out.push(h("p", {}, h("a", { href: "#/new", class: "button new-table-link", dataset: { key: "link:new" } }, tr("lobby.new-table")),
    " ", h("a", { href: "#/games", class: "button my-games-link", dataset: { key: "link:games" } }, tr("lobby.my-games"))));
  if (me) {
    const turns = yourTurnList(store, me, tableRow);
    out.push(section(tr("lobby.your-turn"), turns || h("p", { class: "muted" }, tr("lobby.none-waiting")), notifyControl(refresh)));
  }
  const gathering = myGatherings(store, me);
  if (me) out.push(section(tr("lobby.your-tables"), mine.length || gathering.length ? h("ul", { class: "tables mine" },
    gathering.map((g) => h("li", { dataset: { table: g.table } }, tableLink(g.table, g.title || gameName(g.game)),
      h("span", { class: "muted" }, ` ${tr("lobby.gathering-line", { n: (g.open || []).length + (g.waiting || 0) })}`))),
    mine.map((t) => tableRow(t, me, store)))
    : h("p", { class: "muted" }, tr("lobby.not-at-table"))));
  out.push(openTables(store, me, false, opts.onSit || (() => {})));
  out.push(section(tr("lobby.live"), live.length ? h("ul", { class: "tables live" }, live.map((t) => tableRow(t, me, store)))
    : h("p", { class: "muted" }, tr("lobby.none-live"))));
  out.push(section(tr("lobby.finished"), done.length ? h("ul", { class: "tables done" }, done.slice(-50).reverse().map((t) => tableRow(t, me, store)))
    : h("p", { class: "muted" }, tr("lobby.none-finished"))));
  out.push(section(tr("lobby.tournaments"), store.tours.size ? [...store.tours.entries()].map(([topic, t]) => tournament(t, topic, store, link, me, refresh))
    : h("p", { class: "muted" }, tr("lobby.none-tournament"))));
  const board = botBoard(ref);
  if (board) out.push(board);
  out.push(h("p", {}, h("a", { href: "#/replay", dataset: { key: "link:replay" } }, tr("lobby.replay"))));
  return out;
}

// The bot leaderboard (referee_status.bot_ratings, protocol/README.md): per game, the bot
// accounts best first by ordinal (mu - 3 sigma); shown once some bot account has a rated game.
function botBoard(ref) {
  const games = ref && ref.bot_ratings ? Object.entries(ref.bot_ratings).filter(([, rows]) => rows.length) : [];
  if (!games.length) return null;
  const fmt = (x) => (typeof x === "number" ? String(Math.round(x * 10) / 10) : "?");
  return section(tr("board.title"), h("p", { class: "muted" }, tr("board.intro")),
    ...games.map(([game, rows]) => h("article", { class: "bot-board", dataset: { game } },
      h("h3", {}, gameName(game)),
      h("div", { class: "scroll" }, h("table", { class: "standings" },
        h("thead", {}, h("tr", {}, ["#", "bot", "rating", "games"].map((c) => h("th", {}, c === "#" ? c : tr(`board.${c}`))))),
        h("tbody", {}, rows.map((r, i) => h("tr", { dataset: { user: r.user } },
          h("td", {}, String(i + 1)), h("td", {}, tr("seat.bot", { name: r.user })), h("td", {}, fmt(r.ordinal)),
          h("td", {}, String(r.games))))))))));
}

// A guest's account sees only its own table: the lobby is a way back to it.
function guestLobby(store, link, loginForm) {
  const tables = [...link.watching];
  return [h("h1", { class: "lobby-title" }, tr("lobby.h1")), loginForm, section(tr("lobby.your-tables"), h("ul", { class: "tables mine" }, tables.map((id) => {
    const t = store.table(id);
    return h("li", { dataset: { table: id } }, tableLink(id, t.meta ? gameName(t.meta.game, t.meta) : t.gathering ? gameName(t.gathering.game, t.gathering) : tr("lobby.a-table")));
  }))), h("p", { class: "muted" }, tr("lobby.guest-note"))];
}

// Open entry (docs/tournaments.md): while a tournament's entries are open, who has entered
// and until when; a signed-in account enters or withdraws on its own connection (the
// `entry` request: the broker's login is the entrant) and reads the answer in words.
const entryAsked = new Map();   // tournament topic -> the request_id of our last entry request
function entryPart(t, topic, store, link, me, refresh) {
  if (t.status !== "entry") return null;
  const until = t.entry_until ? new Date(t.entry_until * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }) : "";
  const entrants = t.entrants || [];
  const director = topic.split("/").slice(-2)[0];
  const asked = entryAsked.get(topic);
  const answer = asked && store.replies ? store.replies.get(asked) : null;
  const inField = me && entrants.includes(me);
  const ask = (action) => { entryAsked.set(topic, link.request("entry", { director, tournament: t.tournament, action })); refresh(); };
  return h("div", { class: "entry" },
    h("p", {}, tr("tour.entry-open", { until, n: entrants.length })),
    entrants.length ? h("p", { class: "muted entrants" }, `${tr("tour.entrants")}: ${entrants.join(", ")}`) : null,
    me && link && !link.guest ? h("button", { type: "button", class: "small", dataset: { key: `entry:${topic}` },
      on: { click: () => ask(inField ? "withdraw" : "enter") } }, tr(inField ? "tour.withdraw" : "tour.enter")) : null,
    answer ? h("p", { class: answer.type === "error" ? "error" : "muted", role: "status" },
      answer.type === "error" ? answer.detail : tr(answer.action === "withdraw" ? "tour.withdrew" : "tour.entered")) : null);
}

function tournament(t, topic = "", store = null, link = null, me = null, refresh = () => {}) {
  return h("article", { class: "tournament", dataset: { tournament: t.tournament } },
    h("h3", {}, t.name || t.tournament),
    h("p", { class: "muted" }, `${gameName(t.game)} · ${t.format} · ${has(`tour.status-${t.status}`) ? tr(`tour.status-${t.status}`) : t.status} · ${tr("tour.round", { round: t.round, rounds: t.rounds })}`),
    entryPart(t, topic, store || {}, link, me, refresh),
    h("div", { class: "scroll" }, h("table", { class: "standings" },
      h("thead", {}, h("tr", {}, ["#", "entrant", "points", "played", "w", "d", "l", "net"].map((c) => h("th", {}, c === "#" ? c : tr(`tour.${c}`))))),
      h("tbody", {}, (t.standings || []).map((r) => h("tr", {},
        h("td", {}, String(r.rank)), h("td", {}, r.entrant, r.withdrawn ? ` ${tr("tour.withdrawn")}` : ""), h("td", {}, String(r.points)),
        h("td", {}, String(r.played)), h("td", {}, String(r.wins)), h("td", {}, String(r.draws)), h("td", {}, String(r.losses)),
        h("td", {}, String(r.net))))))),
    (t.pairings || []).length ? h("ul", { class: "pairings" }, t.pairings.map((p) => h("li", {},
      p.table ? tableLink(p.table, p.sides.join(` ${tr("tour.vs")} `)) : p.sides.join(` ${tr("tour.vs")} `),
      h("span", { class: "muted" }, ` · ${p.status}${p.scores ? ` · ${p.scores.join(" / ")}` : ""}`)))) : null);
}
