// Who is away: the referee lists in `meta.away` every seated player whose presence says
// offline (their tab closed, their phone lost the network), with the Unix time it heard
// it; `meta.house` says whether the computer (the house bot) plays for them meanwhile,
// and `meta.clock.grace` how long it waits before it does.  This module turns that into
// words, on the seat and above the table ("North is away (2 min) — the computer plays
// for them"), and keeps the minutes fresh without a re-render (tickAway).

import { h } from "./ui.js";
import { seatLabel } from "./words.js";
import { t as tr } from "./i18n.js";

export function awaySince(meta, seat) {
  const a = meta && Array.isArray(meta.away) ? meta.away.find((x) => x && x.seat === seat) : null;
  return a && typeof a.since === "number" ? a.since : null;
}

// "less than a minute", "2 min", "1 h 5 min", "3 days"
export function duration(ms) {
  const min = Math.floor(Math.max(0, ms) / 60000);
  if (min < 1) return tr("away.under-minute");
  if (min < 60) return tr("away.min", { min });
  const hours = Math.floor(min / 60);
  if (hours < 48) return min % 60 ? tr("away.h-min", { hours, min: min % 60 }) : tr("away.h", { hours });
  return tr("away.days", { days: Math.floor(hours / 24) });
}

// name "": the short form a seat shows under its own name ("away (2 min) — the computer plays")
function awayText(name, since, house, graceS, nowMs) {
  const gone = nowMs - since * 1000;
  let then;
  if (house) then = name ? tr("away.house-them") : tr("away.house");
  else if (typeof graceS === "number") {
    const left = Math.ceil((graceS * 1000 - gone) / 1000);
    then = left > 0 ? tr("away.takes-over-in", { s: left }) : tr("away.takes-over-now");
  } else then = tr("away.waits");
  return `${name ? tr("away.is-away", { name }) : tr("away.away")} (${duration(gone)}) — ${then}`;
}

function awayEl(tag, cls, meta, seat, short = false) {
  const since = awaySince(meta, seat);
  if (since === null) return null;
  const house = (meta.house || []).includes(seat);
  const grace = meta.clock && typeof meta.clock.grace === "number" ? meta.clock.grace : null;
  const name = short ? "" : seatLabel(meta, seat);
  return h(tag, { class: `${cls} ${house ? "house" : ""}`.trim(),
    dataset: { awaySeat: seat, awaySince: since, awayName: name, awayHouse: house ? "1" : "", awayGrace: grace === null ? "" : grace } },
  awayText(name, since, house, grace, Date.now()));
}

// The chip a game puts on a seat (through ctx.clocks(seat): every game that shows clocks).
export function awayChip(meta, seat, mySeat) {
  return seat === mySeat ? null : awayEl("div", "away-chip", meta, seat, true);
}

// One line per absent player, above the table (every game, and spectators too).
export function awayNotices(meta, mySeat) {
  if (!meta || meta.status !== "playing" || !Array.isArray(meta.away)) return null;
  const lines = meta.away.filter((a) => a && a.seat !== mySeat).map((a) => awayEl("li", "away-line", meta, a.seat)).filter(Boolean);
  return lines.length ? h("ul", { class: "notice away", role: "status" }, lines) : null;
}

// Minutes and the grace countdown move on between messages.
export function tickAway(root) {
  for (const el of root.querySelectorAll("[data-away-since]")) {
    const d = el.dataset;
    el.textContent = awayText(d.awayName, Number(d.awaySince), d.awayHouse === "1",
      d.awayGrace === "" ? null : Number(d.awayGrace), Date.now());
  }
}
