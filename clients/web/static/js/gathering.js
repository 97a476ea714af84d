// The waiting room of a table that is still gathering its players (GUESTS.md "Create with
// waiting seats"): who sits where, the invite links for its creator to send, "Sit here" on an
// open seat; and the lobby's "Open tables to join" (referee_status.gatherings).
//
// Why the page never starts anything: a gathering starts by itself, on the referee, when its
// last seat is filled; every page watching it then gets the table's usual messages under the
// same id and shows the game instead of this room.

import { h, section } from "./ui.js";
import { t as tr } from "./i18n.js";
import { gameName } from "./table.js";
import { howtoFold } from "./howto.js";

export function inviteUrl(code) {
  return `${location.origin}${location.pathname}#/join/${encodeURIComponent(code)}`;
}

const copied = new Map();   // "table:seat" -> when its link was copied (for "Copied")
// "New link" (the `invites` op with `renew`): "table:seat" -> "pending" | "done". Why a
// creator wants it: a link sent to the wrong person, or forwarded further than meant; the
// referee revokes the old code (and a guest who already sat with it), so only the new one works.
const renewed = new Map();

export function renewState(table, seat, state) {
  if (state) renewed.set(`${table}:${seat}`, state); else renewed.delete(`${table}:${seat}`);
  copied.delete(`${table}:${seat}`);
}

async function copy(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (err) {
    // no clipboard API (plain http on a home network): select it, so a long press copies it
    input.focus();
    input.select();
    return false;
  }
}

function inviteLink(table, seat, code, refresh, onRenew) {
  const url = inviteUrl(code);
  const input = h("input", { type: "text", readonly: true, value: url, class: "invite-url", "aria-label": tr("gather.link-of", { n: seat + 1 }),
    dataset: { key: `invite-url-${seat}`, invite: String(seat) }, on: { focus: (e) => e.target.select() } });
  const share = navigator.share
    ? h("button", { type: "button", class: "small", dataset: { key: `share-${seat}` },
      on: { click: () => navigator.share({ title: tr("gather.share-title"), text: tr("gather.share-text"), url }).catch(() => {}) } }, tr("gather.share"))
    : null;
  return h("div", { class: "invite" }, input, " ",
    h("button", { type: "button", class: "small", dataset: { key: `copy-${seat}` }, on: { click: async () => {
      if (await copy(url, input)) { copied.set(`${table}:${seat}`, Date.now()); refresh(); }
    } } }, copied.has(`${table}:${seat}`) ? tr("gather.copied") : tr("gather.copy")), " ", share, " ",
    onRenew ? h("button", { type: "button", class: "small", dataset: { key: `renew-${seat}`, renew: String(seat) },
      title: tr("gather.renew-why"), disabled: renewed.get(`${table}:${seat}`) === "pending" ? true : null,
      on: { click: () => onRenew(seat) } }, renewed.get(`${table}:${seat}`) === "pending" ? tr("gather.renewing") : tr("gather.renew")) : null,
    renewed.get(`${table}:${seat}`) === "done"
      ? h("p", { class: "muted renewed", role: "status", dataset: { renewed: String(seat) } }, tr("gather.renewed")) : null);
}

// seats still to fill: by invitation, open to people ("open"), open to people and bots ("anyone")
const FREE_KINDS = ["invite", "open", "anyone"];

function seatWords(s, creator) {
  if (s.kind === "computer") return tr("gather.computer", { level: tr(`level.${s.level || "normal"}`) });
  if (s.name) return s.name;
  if (s.kind === "invite") return creator ? tr("gather.waiting-invite") : tr("gather.waiting-invited");
  return tr(s.kind === "anyone" ? "gather.anyone" : "gather.open");
}

// g: the gathering message; opts: {me (username or null), guest (bool), mySeat, invites ({seat: code}|null), onSit(seat), onCancel(), onLeave(), onRenew(seat), refresh, ui}
export function renderGathering(g, opts) {
  const title = gameName(g.game, g);
  if (g.state === "cancelled" || g.state === "expired") {
    return [h("header", { class: "table-head" }, h("h1", {}, title)),
      h("p", { class: "notice", role: "status" }, tr(g.state === "cancelled" ? "gather.cancelled" : "gather.expired")),
      h("p", {}, h("a", { href: "#/" }, tr("join.home")))];
  }
  const creator = opts.me && opts.me === g.creator;
  const seatedHere = opts.mySeat !== null && opts.mySeat !== undefined;
  const left = g.seats.filter((s) => FREE_KINDS.includes(s.kind) && !s.name).length;
  const items = g.seats.map((s) => {
    const free = FREE_KINDS.includes(s.kind) && !s.name;
    const you = seatedHere && s.seat === opts.mySeat ? h("span", { class: "badge mine" }, tr("gather.you")) : null;
    const sit = free && s.kind !== "invite" && opts.me && !opts.guest && !seatedHere && !creator
      ? h("button", { type: "button", class: "move", dataset: { key: `sit-${s.seat}`, sit: String(s.seat) }, on: { click: () => opts.onSit(s.seat) } }, tr("gather.sit"))
      : null;
    const code = free && s.kind === "invite" && creator && opts.invites ? opts.invites[String(s.seat)] : null;
    return h("li", { class: `gather-seat kind-${s.kind} ${free ? "free" : "taken"}`, dataset: { seat: String(s.seat), kind: s.kind } },
      h("span", { class: "gather-who" }, seatWords(s, creator)), " ", you, sit,
      code ? inviteLink(g.table, s.seat, code, opts.refresh, opts.onRenew) : null,
      free && s.kind === "invite" && creator && !code ? h("p", { class: "muted" }, tr("gather.links-coming")) : null);
  });
  const out = [h("header", { class: "table-head" }, h("h1", {}, title)),
    h("p", { class: "gather-status", role: "status", dataset: { left: String(left) } },
      h("span", { class: "badge status-gathering" }, tr("gather.badge")), " ",
      left ? tr("gather.left", { n: left }) : tr("gather.starting")),
    section(tr("gather.title"), h("p", {}, creator ? tr(g.seats.some((s) => s.kind === "invite") ? "gather.intro-mine" : "gather.intro-mine-open")
      : tr("gather.intro", { who: g.creator })),
      h("ol", { class: "gather-seats" }, items),
      creator && g.seats.some((s) => s.kind === "invite" && !s.name) ? h("p", { class: "muted" }, tr("gather.send")) : null,
      h("p", { class: "muted" }, tr("gather.auto"))),
    // while waiting is the time to read the rules; the fold stays open when the table starts (same `ui`)
    howtoFold(g.game, opts.ui)];
  if (creator) {
    out.push(h("p", {}, h("button", { type: "button", class: "small", dataset: { key: "gather-cancel" }, on: { click: () => opts.onCancel() } }, tr("gather.cancel"))));
  } else if (seatedHere && !opts.guest && opts.onLeave) {   // the seat waits for someone else again
    out.push(h("p", {}, h("button", { type: "button", class: "small", dataset: { key: "gather-leave" }, on: { click: () => opts.onLeave() } }, tr("table.leave"))));
  }
  return out;
}

// The lobby's "Open tables to join": gatherings with an open seat, not mine.
export function openTables(store, me, guest, onSit) {
  const list = ((store.referee && store.referee.gatherings) || []).filter((g) => (g.open || []).length && g.creator !== me);
  if (!list.length) return section(tr("lobby.open"), h("p", { class: "muted" }, tr("lobby.none-open")));
  return section(tr("lobby.open"), h("ul", { class: "tables open" }, list.map((g) => h("li", { dataset: { table: g.table } },
    h("strong", {}, g.title || gameName(g.game)), " ",
    h("span", { class: "muted" }, tr("lobby.open-line", { who: g.creator, seated: (g.seated || []).join(", ") || g.creator, n: g.open.length })), " ",
    me && !guest ? h("button", { type: "button", class: "move small", dataset: { key: `sit:${g.table}`, table: g.table }, on: { click: () => onSit(g.table, g.open[0]) } }, tr("gather.sit"))
      : h("span", { class: "muted" }, tr("lobby.log-in-to-sit"))))));
}

// My own gatherings (the creator's), for "Your tables".
export function myGatherings(store, me) {
  return ((store.referee && store.referee.gatherings) || []).filter((g) => me && g.creator === me);
}
