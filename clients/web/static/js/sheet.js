// The score sheet (issue 42): every finished hand (or turn) of the game, as the referee's
// view lists it in `sheet`.  Each game module says what its columns are (`sheet(ctx)`:
// {head: [..], rows: [{cells: [..], mark}]}); this module draws them the same way for
// every game: a fold under the table that is open once the game is over (and in a replay),
// remembered per table while the page is open, and scrolling sideways on a phone rather
// than squeezing a six-player Summicard sheet into 360 px.

import { h } from "./ui.js";
import { t as tr } from "./i18n.js";

// A person's name in a sheet's cell: it may be one word of 24 letters (referee/guests.py), so
// it breaks anywhere (style.css) rather than widen the sheet past a phone's screen; the
// column heads and contracts around it keep breaking between words only.
export const sheetName = (name) => h("span", { class: "sheet-name" }, name);

export function sheetPanel(ctx, game, over) {
  if (!game.sheet || !ctx.view || !Array.isArray(ctx.view.sheet) || !ctx.view.sheet.length) return null;
  const { head, rows, caption, wrap } = game.sheet(ctx);
  const ui = ctx.ui || {};
  const open = ui.sheet !== undefined ? ui.sheet : over || ctx.replay;
  const fold = h("details", { class: "panel score-sheet", open: open ? true : null },
    h("summary", { dataset: { key: "sheet" } }, tr("sheet.title"), " ", h("span", { class: "muted" }, tr("sheet.count", { n: rows.length, turns: ctx.view.game === "summoner-wars" }))),
    h("div", { class: "sheet-scroll" },
      h("table", { class: "sheet" },
        h("caption", { class: "sr-only" }, caption),
        h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, rows.map((r) => h("tr", { class: r.mark || null, dataset: r.data || {} },
          r.cells.map((c, i) => (i === 0 ? h("th", { scope: "row" }, c) : h("td", { class: (wrap || []).includes(i) ? "wrap" : null }, c)))))))));
  fold.addEventListener("toggle", () => { if (ctx.ui) ctx.ui.sheet = fold.open; });
  return fold;
}
