// Any game the page has no screen for: its view as data, and every legal move as a button.
// This is all a new game needs to be playable in the browser on day one.

import { h, moveButton, section } from "../ui.js";
import { t as tr } from "../i18n.js";

export function render(ctx) {
  const out = [section(tr("generic.view"), h("pre", { class: "view-json" }, JSON.stringify(ctx.view, null, 2)))];
  if (ctx.legal.length) {
    out.unshift(section(tr("sc.your-move"), h("div", { class: "moves" }, ctx.legal.map((m) => moveButton(m, m, ctx.onMove)))));
  }
  return out;
}

// Every event as one line of text: its type, then its fields (seats by player name).
export function eventText(e, meta) {
  const players = (meta && meta.players) || [];
  const value = (k, v) => (k === "seat" || k === "winner") && Number.isInteger(v) && players[v] ? players[v]
    : typeof v === "object" && v !== null ? JSON.stringify(v) : String(v);
  const rest = Object.entries(e).filter(([k]) => k !== "type").map(([k, v]) => `${k} ${value(k, v)}`);
  return rest.length ? `${e.type}: ${rest.join(", ")}` : String(e.type);
}
