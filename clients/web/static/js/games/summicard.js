// Summicard (referee/games/summicard/SPEC.md) as a card table: the other players around the
// top, the Boccino, the pot and your move in the middle, you at the bottom with your cards.
// Moves are the `legal` strings, grouped by their first word.  2..100 players: the other
// seats wrap in turn order (the one who plays after you first), not a ring.

import { h, moveButton, section } from "../ui.js";
import { seatLabel } from "../words.js";
import { backSvg, valueCardSvg, valueName, valueText } from "../cards.js";
import { t as tr } from "../i18n.js";
import { sheetName } from "../sheet.js";

const face = (v) => (v === null || v === undefined ? null : valueText(v));
const known = (v) => v !== null && v !== undefined;

// One card on the table: its face (or its back), a name for a screen reader, and under a
// face-up card its score (its distance from the Boccino).
function cardOnTable(v, label, score, extra = "") {
  const up = known(v);
  return h("span", { class: `sc-card ${up ? "up" : "down"} ${extra}`.trim(), role: "img",
    "aria-label": up ? `${label}: ${valueName(v)}${known(score) ? `, ${tr("sc.scores", { n: score })}` : ""}` : `${label}: ${tr("sc.face-down")}` },
  h("span", { class: "card" }, up ? valueCardSvg(v) : backSvg()),
  h("span", { class: "score-tag" }, up && known(score) ? tr("sc.scores", { n: score }) : extra.includes("bomb") ? tr("sc.bomb") : "\u00a0"));
}

function moveWords(view) {
  return {
    reveal: view.round >= 4 ? tr("sc.m.reveal-bomb") : tr("sc.m.reveal"),
    exchange: tr("sc.m.exchange"), keep: view.phase === "buy" ? tr("sc.m.keep-checked") : tr("sc.m.keep"),
    buy: tr("sc.m.buy"), see: view.betting ? tr("sc.m.see-n", { n: view.betting.high }) : tr("sc.m.see"),
    abandon: tr("sc.m.abandon"),
  };
}

function phaseHint(ctx) {
  const { view, legal } = ctx;
  const mine = legal.length > 0;
  const own = view.own || {};
  if (view.phase === "exchange" && mine) return tr("sc.hint.exchange");
  if (view.phase === "buy" && mine) {
    return tr("sc.hint.buy", { peek: known(own.peek) ? ` (${valueText(own.peek)})` : "" });
  }
  if (view.phase === "betting" && mine) {
    return tr("sc.hint.betting");
  }
  return null;
}

function movesBox(ctx) {
  const { legal, onMove, view } = ctx;
  if (!legal.length) return null;
  const words = moveWords(view);
  const groups = new Map();
  for (const m of legal) {
    const verb = m.split(" ")[0];
    if (!groups.has(verb)) groups.set(verb, []);
    groups.get(verb).push(m);
  }
  return h("div", { class: "sc-moves", role: "group", "aria-label": tr("sc.your-move-label") },
    h("p", { class: "center-title" }, tr("sc.your-move")),
    h("div", { class: "moves" }, [...groups.entries()].map(([verb, moves]) =>
      moves.length === 1 && moves[0] === verb
        ? moveButton(verb, words[verb] || verb, onMove)
        : amountPicker(ctx, verb, moves))));
}

// A bet or a raise: one amount chosen with − / + (or a slider, or a quick choice: the least,
// the middle, the most), then one button that sends it -- not a row of 19 numbered buttons
// (18 more on a raise).  The amount is kept in ctx.ui between renders; only legal amounts
// can be chosen, and the button names exactly the move it sends.
function amountPicker(ctx, verb, moves) {
  const amounts = moves.map((m) => Number(m.split(" ")[1])).filter(Number.isFinite).sort((a, b) => a - b);
  const key = `sc-${verb}`;
  const n = amounts.includes(ctx.ui[key]) ? ctx.ui[key] : amounts[0];
  const at = amounts.indexOf(n);
  const set = (v) => { ctx.ui[key] = v; ctx.refresh(); };
  const nearest = (v) => amounts.reduce((best, a) => (Math.abs(a - v) < Math.abs(best - v) ? a : best), amounts[0]);
  const low = amounts[0], high = amounts[amounts.length - 1], mid = amounts[Math.floor((amounts.length - 1) / 2)];
  const quick = [...new Set([low, mid, high])];
  const bet = verb === "bet";
  return h("div", { class: "move-group amounts", role: "group", "aria-label": bet ? tr("sc.bet-chips") : tr("sc.raise-chips") },
    h("span", { class: "verb" }, bet ? tr("sc.bet-label") : tr("sc.raise-label")),
    h("span", { class: "stepper" },
      h("button", { type: "button", class: "small step", disabled: at <= 0 ? true : null, "aria-label": tr("sc.less"),
        dataset: { key: `${key}-less` }, on: { click: () => set(amounts[at - 1]) } }, "−"),
      h("input", { type: "range", min: low, max: high, step: 1, value: n, "aria-label": tr("sc.how-many"),
        dataset: { key: `${key}-range` }, on: { change: (e) => set(nearest(Number(e.target.value))) } }),
      h("button", { type: "button", class: "small step", disabled: at >= amounts.length - 1 ? true : null, "aria-label": tr("sc.more"),
        dataset: { key: `${key}-more` }, on: { click: () => set(amounts[at + 1]) } }, "+")),
    h("span", { class: "quick" }, quick.map((v) => h("button", { type: "button", class: `small quick${v === n ? " chosen" : ""}`,
      "aria-pressed": v === n ? "true" : "false", dataset: { key: `${key}-q${v}`, amount: v }, on: { click: () => set(v) } },
      v === high && quick.length > 1 ? tr("sc.most", { n: v }) : String(v)))),
    moveButton(`${verb} ${n}`, tr(bet ? "sc.bet-go" : "sc.raise-go", { n }), ctx.onMove,
      { class: "amount-go", aria: tr(bet ? "sc.bet-n" : "sc.raise-n", { n }) }));
}

function centre(ctx) {
  const { view } = ctx;
  const pot = known(view.pot) ? h("p", { class: "pot" }, tr("sc.pot", { n: view.pot }),
    view.carry ? ` ${tr("sc.carry", { n: view.carry })}` : "") : null;
  const betting = view.betting ? h("p", { class: "bet-line" }, tr("sc.bet-line", { high: view.betting.high, cap: view.betting.cap })) : null;
  const hint = phaseHint(ctx);
  return h("div", { class: "centre sc-centre" },
    h("div", { class: "boccino-row" },
      h("span", { class: "card boccino", role: "img", "aria-label": tr("sc.boccino-label", { v: valueName(view.boccino) }) }, valueCardSvg(view.boccino, { boccino: true })),
      h("div", {},
        h("p", { class: "boccino-hint hint" }, tr("sc.boccino-hint", { b: valueText(view.boccino), v: valueText(view.boccino <= 11 ? view.boccino + 2 : view.boccino - 2) })),
        h("p", { class: "round-line" }, `${view.hands ? tr("sc.hand-of", { n: view.hand_no, of: view.hands }) : tr("sc.hand", { n: view.hand_no })} · `,
          view.phase === "over" ? tr("sc.over") : view.phase === "betting" ? tr("sc.betting") : view.round >= 4 ? tr("sc.the-bombs") : tr("sc.round", { n: view.round })),
        pot, betting)),
    hint ? h("p", { class: "hint" }, hint) : null,
    movesBox(ctx));
}

function seatBox(ctx, p, where) {
  const { meta, view, mySeat } = ctx;
  const turn = (view.to_move || []).includes(p.seat);
  const me = p.seat === mySeat;
  const name = seatLabel(meta, p.seat);
  const own = me ? view.own || {} : {};
  const chips = view.chips ? view.chips[p.seat] : null;
  const doing = turn ? (me ? tr("table.your-turn") : tr("table.thinking", { who: name, n: 1 }))
    : p.status === "folded" ? tr("sc.folded") : p.status === "out" ? tr("sc.out") : "";
  const bomb = known(p.bomb) ? p.bomb : me && known(own.bomb) ? own.bomb : null;
  const total = known(p.final) ? `${tr("sc.final", { n: p.final })}${p.bust ? ` ${tr("sc.bust-long")}` : ""}`
    : known(p.sum) && (p.cards || []).some(known) ? tr("sc.so-far", { n: p.sum }) : "";
  return h("div", {
    class: `seat sc-seat seat-${where} ${turn ? "to-move" : ""} ${me ? "me" : ""} status-${p.status}`.replace(/\s+/g, " ").trim(),
    dataset: { seat: p.seat }, role: "group", "aria-label": `${name}${me ? ` ${tr("dragon.you")}` : ""}${turn ? `, ${tr("dragon.to-play")}` : ""}`,
  },
  h("div", { class: "name" }, name, me ? ` ${tr("dragon.you")}` : "",
    p.seat === view.dealer ? h("span", { class: "chip dealer", title: tr("dragon.dealer") }, tr("dragon.dealer")) : null,
    known(chips) ? h("span", { class: "chip stack" }, tr("sc.chips", { n: chips })) : null,
    p.bet ? h("span", { class: "chip bet" }, tr("sc.bet", { n: p.bet })) : null),
  h("div", { class: `doing ${turn ? "turn" : ""}` }, doing || "\u00a0"),
  p.status === "out" ? null : h("div", { class: "sc-cards" },
    (p.cards || []).map((c, i) => cardOnTable(c, me ? tr("sc.your-card", { i: i + 1 }) : tr("sc.their-card", { who: name, i: i + 1 }), (p.scores || [])[i])),
    cardOnTable(bomb, me ? (known(p.bomb) ? tr("sc.your-bomb") : tr("sc.your-bomb-secret")) : tr("sc.their-bomb", { who: name }),
      known(p.bomb) ? p.bomb_score : null, `bomb ${me && !known(p.bomb) && known(bomb) ? "secret" : ""}`)),
  h("div", { class: "sc-total" }, total || "\u00a0",
    p.exchanged ? h("span", { class: "muted" }, ` · ${tr("sc.exchanged", { n: p.exchanged })}${known(p.exchanged_card) ? ` ${tr("sc.gave-up", { v: valueText(p.exchanged_card) })}` : ""}`) : null,
    me && known(own.discarded) ? h("span", { class: "muted" }, ` · ${tr("sc.you-gave-up", { v: valueText(own.discarded) })}`) : null),
  ctx.clocks(p.seat));
}

// The score sheet's columns (sheet.js draws it): per hand, each player's final score as
// shown at the end (a star for the winners) and, when betting, the chips won and held.
export function sheet(ctx) {
  const { meta, view } = ctx;
  const seats = (meta && meta.players ? meta.players : view.players || []).map((_, s) => s);
  const rows = view.sheet.map((r) => ({
    data: { hand: r.hand_no },
    cells: [String(r.hand_no), ...seats.map((s) => {
      const won = (r.winners || []).includes(s);
      const f = r.finals[s];
      return h("span", { class: won ? "winner" : null },
        f === null || f === undefined ? "—" : String(f), won ? h("span", { "aria-label": tr("sheet.won") }, " ★") : null,
        r.chips ? h("span", { class: "muted chipline" }, `${r.won[s] ? `+${r.won[s]} → ` : ""}${tr("sheet.chips", { n: r.chips[s] })}`) : null);
    })],
  }));
  return { caption: tr("sheet.caption.summicard"), head: [tr("sheet.hand"), ...seats.map((s) => sheetName(seatLabel(meta, s)))], rows };
}

export function render(ctx) {
  const { meta, view, mySeat } = ctx;
  const out = [];
  // The others in turn order, starting with the one who plays after me.
  const players = view.players || [];
  const at = players.findIndex((p) => p.seat === mySeat);
  const others = at < 0 ? players : [...players.slice(at + 1), ...players.slice(0, at)];
  const me = at < 0 ? null : players[at];
  out.push(h("div", { class: "felt sc-felt" },
    h("div", { class: "sc-others" }, others.map((p) => seatBox(ctx, p, "top"))),
    centre(ctx),
    me ? seatBox(ctx, me, "bottom") : null));
  if (view.last_hand) {
    const l = view.last_hand;
    out.push(section(tr("sc.last-hand"), h("p", { class: "hand-result" },
      `${tr("sc.hand", { n: l.hand_no })}: `, l.winners && l.winners.length ? tr("sc.won-by", { who: l.winners.map((s) => seatLabel(meta, s)).join(", ") }) : tr("sc.no-winner"),
      l.chips ? ` · ${tr("sc.chips-now")} ${l.chips.map((c, s) => `${seatLabel(meta, s)} ${c}`).join(", ")}` : "")));
  }
  return out;
}

export function eventText(e, meta) {
  const who = (s) => seatLabel(meta, s);
  switch (e.type) {
    case "reveal": return tr("sc.ev.reveal", { who: who(e.seat), card: face(e.card), score: e.score, sum: e.sum });
    case "exchange": return tr("sc.ev.exchange", { who: who(e.seat), old: face(e.old), card: face(e.card) });
    case "keep": return tr("sc.ev.keep", { who: who(e.seat) });
    case "buy": return tr("sc.ev.buy", { who: who(e.seat), card: face(e.card), pot: e.pot });
    case "round": return tr("sc.ev.round", { n: e.round });
    case "look": return e.bomb !== undefined ? tr("sc.ev.look-mine", { card: face(e.bomb) }) : tr("sc.ev.look");
    case "betting": return e.opener === null ? tr("sc.ev.no-betting") : tr("sc.ev.betting", { who: who(e.opener), cap: e.cap });
    case "bet": return tr("sc.ev.bet", { who: who(e.seat), n: e.amount, pot: e.pot });
    case "see": return tr("sc.ev.see", { who: who(e.seat), pot: e.pot });
    case "raise": return tr("sc.ev.raise", { who: who(e.seat), by: e.by, to: e.to, pot: e.pot });
    case "abandon": return tr("sc.ev.abandon", { who: who(e.seat) });
    case "bomb": return tr("sc.ev.bomb", { who: who(e.seat), card: face(e.card), final: e.final, bust: e.bust ? ` ${tr("sc.bust")}` : "" });
    case "hand_end": return tr("sc.ev.hand-end", { hand: e.hand_no, who: e.winners.map(who).join(", "), n: e.winners.length });
    case "deal": return tr("sc.ev.deal", { hand: e.hand_no, card: face(e.boccino) });
    case "game_end": return tr("sc.ev.game-end", { who: e.winners.length ? e.winners.map(who).join(", ") : tr("sc.no-winner") });
    default: return null;
  }
}
