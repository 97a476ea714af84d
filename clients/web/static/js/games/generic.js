// Any game the page has no screen for: its view as data, and every legal move as a button.
// This is all a new game needs to be playable in the browser on day one.

import { h, moveButton, section } from "../ui.js";

export function render(ctx) {
  const out = [section("View", h("pre", { class: "view-json" }, JSON.stringify(ctx.view, null, 2)))];
  if (ctx.legal.length) {
    out.unshift(section("Your move", h("div", { class: "moves" }, ctx.legal.map((m) => moveButton(m, m, ctx.onMove)))));
  }
  return out;
}

export function eventText() { return null; }
