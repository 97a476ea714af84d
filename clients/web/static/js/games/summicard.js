// Summicard (referee/games/summicard/SPEC.md) as a card table: the other players around the
// top, the Boccino, the pot and your move in the middle, you at the bottom with your cards.
// Moves are the `legal` strings, grouped by their first word.  2..100 players: the other
// seats wrap in turn order (the one who plays after you first), not a ring.

import { h, moveButton, section } from "../ui.js";
import { seatLabel } from "../words.js";
import { backSvg, valueCardSvg, valueName, valueText } from "../cards.js";

const face = (v) => (v === null || v === undefined ? null : valueText(v));
const known = (v) => v !== null && v !== undefined;

// One card on the table: its face (or its back), a name for a screen reader, and under a
// face-up card its score (its distance from the Boccino).
function cardOnTable(v, label, score, extra = "") {
  const up = known(v);
  return h("span", { class: `sc-card ${up ? "up" : "down"} ${extra}`.trim(), role: "img",
    "aria-label": up ? `${label}: ${valueName(v)}${known(score) ? `, scores ${score}` : ""}` : `${label}: face down` },
  h("span", { class: "card" }, up ? valueCardSvg(v) : backSvg()),
  h("span", { class: "score-tag" }, up && known(score) ? `scores ${score}` : extra.includes("bomb") ? "Bomb" : "\u00a0"));
}

function moveWords(view) {
  return {
    reveal: view.round >= 4 ? "Reveal your Bomb" : "Reveal your next card",
    exchange: "Exchange it for the shoe's top card", keep: view.phase === "buy" ? "Keep the card you checked" : "Keep it",
    buy: "Buy the shoe's top card (1 chip)", see: view.betting ? `See (match ${view.betting.high})` : "See (match the bet)",
    abandon: "Abandon the hand",
  };
}

function phaseHint(ctx) {
  const { view, legal } = ctx;
  const mine = legal.length > 0;
  const own = view.own || {};
  if (view.phase === "exchange" && mine) return "You may swap the card you just revealed for the top of the shoe: once per hand.";
  if (view.phase === "buy" && mine) {
    return `You checked your next card in secret${known(own.peek) ? ` (${valueText(own.peek)})` : ""}: keep shows it, or pay 1 chip for the shoe's top card instead.`;
  }
  if (view.phase === "betting" && mine) {
    return "Only you see your Bomb. Bet if you think your final score will be the lowest above zero; see matches the highest bet, raise adds to it.";
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
  return h("div", { class: "sc-moves", role: "group", "aria-label": "your move" },
    h("p", { class: "center-title" }, "Your move"),
    h("div", { class: "moves" }, [...groups.entries()].map(([verb, moves]) =>
      moves.length === 1 && moves[0] === verb
        ? moveButton(verb, words[verb] || verb, onMove)
        : h("div", { class: "move-group amounts", role: "group", "aria-label": verb === "bet" ? "bet chips" : "raise by chips" },
            h("span", { class: "verb" }, verb === "bet" ? "Bet (chips):" : "Raise by (chips):"),
            moves.map((m) => {
              const n = m.split(" ").slice(1).join(" ");
              return moveButton(m, n, onMove, { class: "small amount", aria: `${verb === "bet" ? "bet" : "raise by"} ${n} chip${n === "1" ? "" : "s"}` });
            })))));
}

function centre(ctx) {
  const { view } = ctx;
  const pot = known(view.pot) ? h("p", { class: "pot" }, `Pot: ${view.pot} chip${view.pot === 1 ? "" : "s"}`,
    view.carry ? ` (${view.carry} carried from an unwon hand)` : "") : null;
  const betting = view.betting ? h("p", { class: "bet-line" }, `Highest bet ${view.betting.high}; whoever is to bet may go up to ${view.betting.cap} in all.`) : null;
  const hint = phaseHint(ctx);
  return h("div", { class: "centre sc-centre" },
    h("div", { class: "boccino-row" },
      h("span", { class: "card boccino", role: "img", "aria-label": `the Boccino: ${valueName(view.boccino)}` }, valueCardSvg(view.boccino, { boccino: true })),
      h("div", {},
        h("p", { class: "boccino-hint hint" }, `Each card scores its distance from the Boccino ${valueText(view.boccino)} `,
          `(a ${valueText(view.boccino <= 11 ? view.boccino + 2 : view.boccino - 2)} scores 2); `,
          "after the Bombs, the lowest total above zero wins."),
        h("p", { class: "round-line" }, `Hand ${view.hand_no}${view.hands ? ` of ${view.hands}` : ""} · `,
          view.phase === "over" ? "over" : view.phase === "betting" ? "betting" : view.round >= 4 ? "the Bombs" : `round ${view.round} of 3`),
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
  const doing = turn ? (me ? "Your turn" : `${name} is thinking…`)
    : p.status === "folded" ? "abandoned this hand" : p.status === "out" ? "out of chips" : "";
  const bomb = known(p.bomb) ? p.bomb : me && known(own.bomb) ? own.bomb : null;
  const total = known(p.final) ? `final ${p.final}${p.bust ? " (bust: below zero)" : ""}`
    : known(p.sum) && (p.cards || []).some(known) ? `total so far ${p.sum}` : "";
  return h("div", {
    class: `seat sc-seat seat-${where} ${turn ? "to-move" : ""} ${me ? "me" : ""} status-${p.status}`.replace(/\s+/g, " ").trim(),
    dataset: { seat: p.seat }, "aria-label": `${name}${me ? " (you)" : ""}${turn ? ", to play" : ""}`,
  },
  h("div", { class: "name" }, name, me ? " (you)" : "",
    p.seat === view.dealer ? h("span", { class: "chip dealer", title: "dealer" }, "dealer") : null,
    known(chips) ? h("span", { class: "chip stack" }, `${chips} chip${chips === 1 ? "" : "s"}`) : null,
    p.bet ? h("span", { class: "chip bet" }, `bet ${p.bet}`) : null),
  h("div", { class: `doing ${turn ? "turn" : ""}` }, doing || "\u00a0"),
  p.status === "out" ? null : h("div", { class: "sc-cards" },
    (p.cards || []).map((c, i) => cardOnTable(c, `${me ? "your" : `${name}'s`} card ${i + 1}`, (p.scores || [])[i])),
    cardOnTable(bomb, me ? (known(p.bomb) ? "your Bomb" : "your Bomb (only you see it)") : `${name}'s Bomb`,
      known(p.bomb) ? p.bomb_score : null, `bomb ${me && !known(p.bomb) && known(bomb) ? "secret" : ""}`)),
  h("div", { class: "sc-total" }, total || "\u00a0",
    p.exchanged ? h("span", { class: "muted" }, ` · exchanged in round ${p.exchanged}${known(p.exchanged_card) ? ` (gave up ${valueText(p.exchanged_card)})` : ""}`) : null,
    me && known(own.discarded) ? h("span", { class: "muted" }, ` · you gave up ${valueText(own.discarded)}`) : null),
  ctx.clocks(p.seat));
}

export function render(ctx) {
  const { meta, view, mySeat } = ctx;
  const out = [];
  if (view.result) {
    out.push(section("Game over", h("p", { class: "game-result" },
      view.result.winners.length ? `Winner: ${view.result.winners.map((s) => seatLabel(meta, s)).join(", ")}` : "No winner",
      view.result.reason === "lowest-positive" ? " (the lowest score above zero)." : view.result.reason === "closest-to-zero" ? " (the score closest to zero)." : view.result.reason === "no-positive-score" ? " (nobody scored above zero)." : ` (${view.result.reason}).`)));
  }
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
    out.push(section("Last hand", h("p", { class: "hand-result" },
      `Hand ${l.hand_no}: `, l.winners && l.winners.length ? `won by ${l.winners.map((s) => seatLabel(meta, s)).join(", ")}` : "no winner",
      l.chips ? ` · chips now: ${l.chips.map((c, s) => `${seatLabel(meta, s)} ${c}`).join(", ")}` : "")));
  }
  return out;
}

export function eventText(e, meta) {
  const who = (s) => seatLabel(meta, s);
  switch (e.type) {
    case "reveal": return `${who(e.seat)} reveals ${face(e.card)} (score ${e.score}, sum ${e.sum}).`;
    case "exchange": return `${who(e.seat)} exchanges ${face(e.old)} for ${face(e.card)}.`;
    case "keep": return `${who(e.seat)} keeps.`;
    case "buy": return `${who(e.seat)} buys ${face(e.card)} (pot ${e.pot}).`;
    case "round": return `Round ${e.round}.`;
    case "look": return e.bomb !== undefined ? `You look at your Bomb: ${face(e.bomb)}.` : "Everyone still in looks at their Bomb.";
    case "betting": return e.opener === null ? "No betting this hand." : `Betting opens with ${who(e.opener)} (up to ${e.cap}).`;
    case "bet": return `${who(e.seat)} bets ${e.amount} (pot ${e.pot}).`;
    case "see": return `${who(e.seat)} sees (pot ${e.pot}).`;
    case "raise": return `${who(e.seat)} raises by ${e.by} to ${e.to} (pot ${e.pot}).`;
    case "abandon": return `${who(e.seat)} abandons.`;
    case "bomb": return `${who(e.seat)}'s Bomb: ${face(e.card)} → final ${e.final}${e.bust ? " (bust)" : ""}.`;
    case "hand_end": return `Hand ${e.hand_no} over: ${e.winners.length ? `${e.winners.map(who).join(", ")} win${e.winners.length > 1 ? "" : "s"}` : "no winner"}.`;
    case "deal": return `Hand ${e.hand_no}: Boccino ${face(e.boccino)}.`;
    case "game_end": return `Game over: ${e.winners.length ? e.winners.map(who).join(", ") : "no winner"}.`;
    default: return null;
  }
}
