// Summicard (referee/games/summicard/SPEC.md): face-down cards, the Boccino, exchanges,
// chips and the pot.  Moves are the `legal` strings, grouped by their first word.

import { h, moveButton, section } from "../ui.js";
import { seatLabel } from "../words.js";

const FACE = { 1: "A", 11: "J", 12: "Q", 13: "K" };
const face = (v) => (v === null || v === undefined ? null : FACE[v] || String(v));

function cardBox(v, label) {
  return v === null || v === undefined
    ? h("span", { class: "card back", title: "face down", "aria-label": `${label}: face down` }, "▮")
    : h("span", { class: "card", "aria-label": `${label}: ${face(v)}` }, face(v));
}

const WORDS = {
  reveal: "Reveal your next card", exchange: "Exchange it for the shoe's top card", keep: "Keep",
  buy: "Buy the top card (1 chip)", see: "See (match the bet)", abandon: "Abandon the hand",
};

function movesPanel(ctx) {
  const { legal, onMove } = ctx;
  if (!legal.length) return null;
  const groups = new Map();
  for (const m of legal) {
    const verb = m.split(" ")[0];
    if (!groups.has(verb)) groups.set(verb, []);
    groups.get(verb).push(m);
  }
  return section("Your move", h("div", { class: "moves" }, [...groups.entries()].map(([verb, moves]) =>
    moves.length === 1 && moves[0] === verb
      ? moveButton(verb, WORDS[verb] || verb, onMove)
      : h("div", { class: "move-group", role: "group", "aria-label": verb },
          h("span", { class: "verb" }, verb === "bet" ? "Bet" : verb === "raise" ? "Raise by" : verb),
          moves.map((m) => moveButton(m, m.split(" ").slice(1).join(" "), onMove, { class: "small", aria: m }))))));
}

export function render(ctx) {
  const { meta, view, mySeat } = ctx;
  const turn = new Set(view.to_move || []);
  const out = [];
  if (view.result) {
    out.push(section("Game over", h("p", { class: "game-result" },
      view.result.winners.length ? `Winner: ${view.result.winners.map((s) => seatLabel(meta, s)).join(", ")}` : "No winner",
      ` (${view.result.reason}).`)));
  }
  out.push(section("Table", h("p", { class: "boccino" }, "Boccino ", h("span", { class: "card big" }, face(view.boccino))),
    h("p", {}, `Hand ${view.hand_no}${view.hands ? ` of ${view.hands}` : ""} · round ${view.round} · ${view.phase}`,
      view.pot !== null && view.pot !== undefined ? ` · pot ${view.pot}${view.carry ? ` (carried ${view.carry})` : ""}` : ""),
    view.betting ? h("p", {}, `Betting: highest bet ${view.betting.high}; the player to move may bet up to ${view.betting.cap} in all`) : null));
  const chips = view.chips;
  out.push(section("Players", h("div", { class: "scroll" }, h("table", { class: "players" },
    h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", {}, "Main cards"), h("th", {}, "Bomb"), h("th", {}, "Sum"),
      h("th", {}, "Final"), chips ? h("th", {}, "Chips") : null, chips ? h("th", {}, "Bet") : null)),
    h("tbody", {}, view.players.map((p) => h("tr", { class: `${turn.has(p.seat) ? "to-move" : ""} ${p.seat === mySeat ? "me" : ""} status-${p.status}`.trim(), dataset: { seat: p.seat } },
      h("th", {}, seatLabel(meta, p.seat), p.seat === mySeat ? " (you)" : "", turn.has(p.seat) ? " ◀" : "", p.status !== "in" ? ` (${p.status})` : ""),
      h("td", {}, (p.cards || []).map((c, i) => cardBox(c, `card ${i + 1}`)), p.exchanged ? h("span", { class: "muted" }, ` exchanged in round ${p.exchanged}`) : null),
      h("td", {}, p.status === "out" ? "" : cardBox(p.bomb, "bomb")),
      h("td", {}, p.sum === null || p.sum === undefined ? "" : String(p.sum)),
      h("td", {}, p.final === null || p.final === undefined ? "" : `${p.final}${p.bust ? " (bust)" : ""}`),
      chips ? h("td", {}, String(chips[p.seat])) : null,
      chips ? h("td", {}, String(p.bet || 0)) : null)))))));
  if (view.own) {
    const o = view.own;
    out.push(section("Only you can see", h("p", {},
      "Your Bomb: ", o.bomb === null ? "not looked at yet" : cardBox(o.bomb, "your bomb"),
      o.peek !== null && o.peek !== undefined ? h("span", {}, " · the card you are checking: ", cardBox(o.peek, "checking")) : null,
      o.discarded !== null && o.discarded !== undefined ? h("span", {}, " · you gave up: ", cardBox(o.discarded, "gave up")) : null)));
  }
  const moves = movesPanel(ctx);
  if (moves) out.push(moves);
  if (view.last_hand) {
    const l = view.last_hand;
    out.push(section("Last hand", h("p", { class: "hand-result" },
      `Hand ${l.hand_no}: `, l.winners && l.winners.length ? `won by ${l.winners.map((s) => seatLabel(meta, s)).join(", ")}` : "no winner",
      l.chips ? ` · chips ${l.chips.join(" / ")}` : "")));
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
