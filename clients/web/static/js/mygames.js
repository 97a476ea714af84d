// "My games" (#/games): my finished tables with their results in family words, my rating
// per game, and each game's replay as my own seat saw it (protocol/README.md "My games").
//
// Everything comes over the page's one MQTT connection, on my own request and reply
// topics: `history` -> `my_games`, `replay` -> `replay_part` x N.  The replay is built by
// the referee from the history with the same code that sent the live messages, so it holds
// only what my seat received; the page puts the parts together and hands them to the
// existing replay viewer (js/replay.js), exactly as if it were a file from
// `summon replay export --seat`.

import { h, page, section } from "./ui.js";
import { has, lang, t as tr } from "./i18n.js";

export class MyGames {
  constructor(refresh) {
    this.refresh = refresh;
    this.user = null;         // whose list this is (a new login asks again)
    this.listId = null;       // request_id of the `history` asked
    this.list = null;         // the `my_games` answer
    this.replayId = null;     // request_id of the `replay` asked
    this.replayTable = null;
    this.parts = [];          // replay_part messages of replayId, by part - 1
    this.onReplay = null;     // (data) => open it in the viewer (app.js)
  }

  // Called by link.js for each `my_games` / `replay_part` on my reply topic.
  receive(m) {
    if (m.type === "my_games" && m.request_id === this.listId) this.list = m;
    else if (m.type === "replay_part" && m.request_id === this.replayId && m.part >= 1 && m.part <= m.parts) {
      this.parts[m.part - 1] = m;
      const got = this.parts.filter(Boolean);
      if (got.length === m.parts && this.parts[0] && this.parts[0].head) {
        const head = this.parts[0].head;
        const key = head.seat === null || head.seat === undefined ? "spectator" : String(head.seat);
        const data = { ...head, frames: { [key]: got.flatMap((p) => p.frames) } };
        this.replayId = null;
        this.parts = [];
        if (this.onReplay) this.onReplay(data);
      }
    } else return false;
    return true;
  }

  ask(link) {
    this.user = link.user;
    this.list = null;
    this.listId = link.request("history", {});
  }

  watch(link, table) {
    this.replayTable = table;
    this.parts = [];
    this.replayId = link.request("replay", { table });
    this.refresh();
  }

  render(store, link, loginForm) {
    const out = [h("p", {}, h("a", { href: "#/", dataset: { key: "link:lobby" } }, tr("replay.lobby")))];
    if (!link || !link.user) return [...out, page(tr("mg.title"), h("p", { class: "muted" }, tr("mg.login-first"))), loginForm];
    if (store.connection.state === "online" && (this.user !== link.user || !this.listId)) this.ask(link);
    const refused = this.listId ? store.replies.get(this.listId) : null;
    const head = h("div", { class: "mg-head" },
      h("button", { type: "button", class: "small", dataset: { key: "mg-refresh" }, on: { click: () => { this.ask(link); this.refresh(); } } }, tr("mg.refresh")));
    if (refused && refused.type === "error") return [...out, page(tr("mg.title"), head, h("p", { class: "error", role: "alert" }, refused.detail))];
    if (!this.list) return [...out, page(tr("mg.title"), head, h("p", { class: "muted", role: "status" }, tr("mg.loading")))];
    const games = this.list.games || [];
    const busy = this.replayId ? replayProgress(this, store) : null;
    out.push(page(tr("mg.title"), head, busy,
      games.length ? h("ul", { class: "my-games" }, games.map((g) => gameRow(g, () => this.watch(link, g.table), this.replayTable === g.table && this.replayId)))
        : h("p", { class: "muted" }, tr("mg.none")),
      this.list.more ? h("p", { class: "muted" }, tr("mg.more", { n: games.length })) : null));
    out.push(section(tr("mg.ratings"), ratings(this.list.ratings || {})));   // under the games: the screen's h1 comes first
    return out;
  }
}

function replayProgress(mg, store) {
  const refused = store.replies.get(mg.replayId);
  if (refused && refused.type === "error") return h("p", { class: "error", role: "alert", dataset: { code: refused.code } }, refused.detail);
  const first = mg.parts.find(Boolean);
  const got = mg.parts.filter(Boolean).length;
  return h("p", { class: "notice", role: "status" }, first ? tr("mg.receiving", { n: got, of: first.parts }) : tr("mg.preparing"));
}

// A rating says little after one or two games ("-1.5, give or take 8.2" after a first game
// read as a verdict): the page shows it from RATED_AFTER games on, and says how many to go.
export const RATED_AFTER = 5;

function ratings(all) {
  const games = Object.entries(all);
  if (!games.length) return h("p", { class: "muted" }, tr("mg.no-rating"));
  return h("ul", { class: "ratings" }, games.map(([name, r]) => h("li", { dataset: { game: name } },
    h("strong", {}, `${r.title || name}:`), " ",
    r.games < RATED_AFTER
      ? h("span", { class: "rating muted" }, tr("mg.rating-soon", { after: RATED_AFTER, n: r.games }))
      : [h("span", { class: "rating" }, tr("mg.rating", { r: fmt(r.ordinal), n: r.games })), " ",
        h("span", { class: "muted" }, tr("mg.rating-detail"))])));
}

const fmt = (x) => (typeof x === "number" ? String(Math.round(x)) : "?");

// A seat's name for people: mine is "you", a computer seat says its level -- or, for a
// game played before its bot's level changed (the referee then sends the bot's own name,
// e.g. "random"), just "Computer 2": a bot's name is our word, not the family's.
function who(g, seat) {
  if (seat === g.seat) return tr("mg.you");
  const level = (g.computer || {})[String(seat)];
  if (level && has(`level.${level}`)) return tr("mg.computer", { n: seat + 1, level: tr(`level.${level}`) });
  if (level) return tr("mg.computer-plain", { n: seat + 1 });
  // a guest's account is a code (g-23376efac3bca638): the name they chose is who they were
  const shown = (g.names || {})[String(seat)];
  if (!shown && (g.bots || []).includes(seat)) return tr("seat.bot", { name: g.players[seat] });   // a bot account (js/bots.js)
  return shown || g.players[seat];
}

const list = (names) => (names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")}${tr("and")}${names[names.length - 1]}`);

// "You and dad won 152 to 98": the result from my side, in words.
export function resultWords(g) {
  const r = g.result || {};
  const we = list([tr("mg.you-cap"), ...(r.partners || []).map((s) => who(g, s))]);
  const others = r.others || [];
  const mine = r.score;
  if ((r.sides || 2) <= 2) {
    const theirs = others.length ? others[0].score : null;
    const key = r.outcome === "won" ? "mg.won" : r.outcome === "lost" ? "mg.lost" : "mg.drew";
    return tr(key, { we, plural: (r.partners || []).length > 0, a: mine, b: theirs });
  }
  if (r.outcome === "won") return tr("mg.won-many", { we, plural: (r.partners || []).length > 0, a: mine, n: r.sides });
  return tr("mg.place", { we, plural: (r.partners || []).length > 0, place: r.place, n: r.sides, a: mine });
}

function whoPlayed(g) {
  const r = g.result || {};
  const partners = (r.partners || []).map((s) => who(g, s));
  const against = (r.others || []).flatMap((o) => o.seats.map((s) => who(g, s)));
  return partners.length ? tr("mg.with-against", { with: list(partners), against: list(against) }) : tr("mg.against", { against: list(against) });
}

function when(unix) {
  try {
    return new Date(unix * 1000).toLocaleString(lang(), { day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit" });
  } catch (err) { return new Date(unix * 1000).toISOString(); }
}

function gameRow(g, onWatch, waiting) {
  return h("li", { class: `my-game outcome-${(g.result || {}).outcome || "none"}`, dataset: { table: g.table } },
    h("div", { class: "mg-line" }, h("strong", {}, g.title || g.game), " ", h("span", { class: "muted" }, when(g.finished))),
    h("p", { class: "mg-result", dataset: { key: `result:${g.table}` } }, resultWords(g)),
    h("p", { class: "muted" }, whoPlayed(g), g.rated ? null : ` · ${tr("mg.not-rated")}`),
    h("button", { type: "button", class: "small", disabled: waiting ? true : null, dataset: { key: `watch:${g.table}`, table: g.table }, on: { click: onWatch } },
      tr("mg.watch")),
    h("details", { class: "details" }, h("summary", {}, tr("details")), h("span", { class: "muted" }, tr("details.table", { id: g.table }))));
}
