// Summon the Dragon (referee/games/dragon/SPEC.md): renders the view and offers exactly
// the strings in `legal`.  No rule is computed here: which card may be played, which bid
// is high enough, what a Dragon may stand for -- all of it is read off `legal`.

import { h, moveButton, section } from "../ui.js";
import { seatLabel } from "../words.js";

const SUITS = ["earth", "wind", "fire", "water"];
const RANK_LABEL = { mage: "Mage", warrior: "Warrior", queen: "Q", king: "K", elemental: "Elem." };
const DESIGNATIONS = [
  ["earth", "Earth"], ["wind", "Wind"], ["fire", "Fire"], ["water", "Water"],
  ["high", "High no-trump"], ["low", "Low no-trump"],
];
const OPTION_WORDS = {
  summon: "Summon: take the Dragon from whoever holds it (they get a card back)",
  kitty: "Kitty: take the five kitty cards, then discard back to twelve",
  nohelp: "No help: play the hand as dealt (scores more)",
};

export function cardLabel(card) {
  if (card === "dragon") return "Dragon";
  const [suit, rank] = card.split("-");
  return `${RANK_LABEL[rank] || rank} ${suit}`;
}

function cardFace(card, extra = "") {
  const suit = card === "dragon" ? "dragon" : card.split("-")[0];
  return h("span", { class: `card suit-${suit} ${extra}`.trim() }, cardLabel(card));
}

function team(seat) { return seat % 2; }

function teamName(meta, t) {
  return `${seatLabel(meta, t)} & ${seatLabel(meta, t + 2)}`;
}

function contractText(meta, c) {
  if (!c) return "none yet";
  const d = DESIGNATIONS.find(([k]) => k === c.designation);
  let s = `${seatLabel(meta, c.seat)}: ${c.level} ${d ? d[1] : c.designation}`;
  if (c.option) s += `, ${c.option}`;
  if (c.summoned_from !== null && c.summoned_from !== undefined) {
    s += c.summoned_from === "kitty" ? " (summon answered from the kitty)" : ` (Dragon from ${seatLabel(meta, c.summoned_from)})`;
  }
  return s;
}

function trickCards(meta, cards) {
  return h("ol", { class: "trick" }, cards.map((c) =>
    h("li", {}, h("span", { class: "who" }, seatLabel(meta, c.seat)), cardFace(c.card), c.as ? h("span", { class: "as" }, ` as ${c.as}`) : null)));
}

function handPanel(ctx) {
  const { view, legal, onMove } = ctx;
  const hand = view.hand || [];
  const bySuit = new Map();
  for (const card of hand) {
    const suit = card === "dragon" ? "dragon" : card.split("-")[0];
    if (!bySuit.has(suit)) bySuit.set(suit, []);
    bySuit.get(suit).push(card);
  }
  const groups = [];
  for (const suit of ["dragon", ...SUITS]) {
    const cards = bySuit.get(suit);
    if (!cards) continue;
    const trump = view.trump === suit || (suit === "dragon" && view.trump);
    groups.push(h("div", { class: `suit-group suit-${suit}`, role: "group", "aria-label": `${suit}${trump ? " (trump)" : ""}` },
      h("h3", {}, suit === "dragon" ? "Dragon" : suit[0].toUpperCase() + suit.slice(1), trump ? h("span", { class: "trump-mark" }, " ★ trump") : null),
      h("div", { class: "cards" }, cards.map((card) => cardControl(card, legal, onMove)))));
  }
  return section(`Your hand (${hand.length})`, h("div", { class: "hand" }, groups),
    view.discards && view.discards.length ? h("p", { class: "muted" }, "Your discards: ", view.discards.map(cardLabel).join(", ")) : null);
}

function cardControl(card, legal, onMove) {
  const verbs = ["play", "discard"];
  const exact = verbs.map((v) => `${v} ${card}`).filter((m) => legal.includes(m));
  const declared = legal.filter((m) => m.startsWith(`play ${card} `));   // the Dragon in no-trump
  const suit = card === "dragon" ? "dragon" : card.split("-")[0];
  if (exact.length === 1 && !declared.length) {
    const verb = exact[0].split(" ")[0];
    return moveButton(exact[0], cardLabel(card), onMove, { class: `card suit-${suit} playable`, aria: `${verb} ${cardLabel(card)}` });
  }
  if (declared.length) {
    return h("div", { class: "dragon-choice", role: "group", "aria-label": "play the Dragon as" },
      cardFace(card, "playable"),
      declared.map((m) => moveButton(m, `as ${m.split(" ").slice(2).join(" ")}`, onMove, { class: "small" })));
  }
  return h("span", { class: `card suit-${suit} idle`, "aria-disabled": "true" }, cardLabel(card));
}

function biddingPanel(ctx) {
  const { meta, view, legal, onMove } = ctx;
  const history = h("ol", { class: "bids" }, (view.bids || []).map((b) => h("li", {}, `${seatLabel(meta, b.seat)}: ${b.bid}`)));
  const bids = legal.filter((m) => m.startsWith("bid "));
  const children = [history];
  if (bids.length || legal.includes("pass")) {
    const levels = [...new Set(bids.map((m) => Number(m.split(" ")[1])))].sort((a, b) => a - b);
    const level = ctx.ui.bidLevel && levels.includes(ctx.ui.bidLevel) ? ctx.ui.bidLevel : levels[0];
    const picker = h("div", { class: "bid-picker" });
    if (levels.length) {
      const select = h("select", { "aria-label": "tricks to bid", dataset: { key: "bid-level" },
        on: { change: (e) => { ctx.ui.bidLevel = Number(e.target.value); ctx.refresh(); } } },
        levels.map((l) => h("option", { value: l, selected: l === level }, `${l} tricks`)));
      picker.append(h("label", {}, "Bid ", select));
      picker.append(h("div", { class: "designations" }, DESIGNATIONS.map(([d, label]) => {
        const move = `bid ${level} ${d}`;
        return legal.includes(move) ? moveButton(move, `${level} ${label}`, onMove)
          : h("button", { type: "button", disabled: true, class: "move" }, `${level} ${label}`);
      })));
    }
    if (legal.includes("pass")) picker.append(moveButton("pass", "Pass", onMove, { class: "pass" }));
    children.push(picker);
  }
  return section("Bidding", ...children);
}

function optionPanel(ctx) {
  const opts = ["summon", "kitty", "nohelp"].filter((m) => ctx.legal.includes(m));
  if (!opts.length) return null;
  return section("Your option", h("div", { class: "options" },
    opts.map((m) => moveButton(m, OPTION_WORDS[m] || m, ctx.onMove, { class: "wide" }))));
}

function seatsPanel(ctx) {
  const { meta, view, clocks, mySeat } = ctx;
  const turn = new Set(view.to_move || []);
  return h("div", { class: "seats" }, [0, 1, 2, 3].map((s) => {
    const inTrick = (view.trick || []).find((c) => c.seat === s);
    return h("div", { class: `seat ${turn.has(s) ? "to-move" : ""} ${s === mySeat ? "me" : ""} team-${team(s)}`.trim(), dataset: { seat: s } },
      h("div", { class: "name" }, seatLabel(meta, s), s === mySeat ? " (you)" : "", s === view.dealer ? " · dealer" : ""),
      h("div", { class: "muted" }, `${view.hand_sizes ? view.hand_sizes[s] : "?"} cards`, turn.has(s) ? " · to move" : ""),
      clocks(s),
      inTrick ? h("div", { class: "played" }, cardFace(inTrick.card), inTrick.as ? ` as ${inTrick.as}` : "") : null);
  }));
}

function scorePanel(ctx) {
  const { meta, view } = ctx;
  return section("Score",
    h("table", { class: "score" },
      h("thead", {}, h("tr", {}, h("th", {}, "Team"), h("th", {}, "Score"), h("th", {}, "Trick points this hand"))),
      h("tbody", {}, [0, 1].map((t) => h("tr", { dataset: { team: t } },
        h("th", {}, teamName(meta, t)), h("td", { class: "team-score" }, String(view.scores[t])),
        h("td", {}, String((view.trick_points || [0, 0])[t])))))),
    h("p", {}, `Target ${view.target} · hand ${view.hand_no} · tricks played ${view.tricks_played || 0} of 12 · contract: ${contractText(meta, view.contract)}`,
      view.trump ? ` · trump ${view.trump}` : view.contract ? " · no trump" : ""));
}

function handResult(meta, r) {
  if (!r) return null;
  if (r.thrown_in) return h("p", { class: "hand-result" }, `Hand ${r.hand_no}: everyone passed; dealt again.`);
  return h("p", { class: "hand-result" },
    `Hand ${r.hand_no}: ${seatLabel(meta, r.bidder)} bid ${r.level} ${r.designation}${r.option ? `, ${r.option}` : ""} — `,
    h("strong", {}, r.made ? "made" : "set"),
    ` (tricks ${r.trick_points[0]}–${r.trick_points[1]}; points ${signed(r.deltas[0])} / ${signed(r.deltas[1])}; score ${r.scores[0]}–${r.scores[1]})`);
}

function signed(n) { return n > 0 ? `+${n}` : String(n); }

export const showsPlayers = true; // the seats around the table name them: no "Players:" line

export function render(ctx) {
  const { meta, view } = ctx;
  const out = [scorePanel(ctx), seatsPanel(ctx)];
  if (view.result) {
    const r = view.result;
    out.unshift(section("Game over", h("p", { class: "game-result" },
      r.winner_team === null ? "A draw." : `${teamName(meta, r.winner_team)} win`,
      ` ${r.scores[0]}–${r.scores[1]} (${r.reason}).`)));
  }
  // What the player acts on comes first (a phone shows little at once): the trick, the
  // bidding or option step, the hand; then the last trick and the last hand.
  if (view.phase === "play" || view.phase === "over") {
    out.push(section("Trick in progress", (view.trick || []).length ? trickCards(meta, view.trick) : h("p", { class: "muted" }, view.phase === "play" ? "No card played yet." : "—")));
  }
  if (view.phase === "bidding" || view.phase === "option") out.push(biddingPanel(ctx));
  const option = optionPanel(ctx);
  if (option) out.push(option);
  if (view.discarding) out.push(h("p", { class: "notice" }, `${seatLabel(meta, view.discarding.seat)} discards ${view.discarding.remaining} more card(s).`));
  if (view.hand) out.push(handPanel(ctx));
  if (view.last_trick) {
    out.push(section("Last trick", trickCards(meta, view.last_trick.cards),
      h("p", {}, `won by ${seatLabel(meta, view.last_trick.winner)} (${view.last_trick.points} point${view.last_trick.points > 1 ? "s" : ""})`)));
  }
  if (view.phase !== "bidding" && view.phase !== "option" && (view.bids || []).length) out.push(biddingPanel(ctx));
  if (view.last_hand) out.push(section("Last hand", handResult(meta, view.last_hand)));
  return out;
}

export function eventText(e, meta) {
  const who = (s) => seatLabel(meta, s);
  switch (e.type) {
    case "bid": return `${who(e.seat)} bids ${e.level} ${e.designation}.`;
    case "pass": return `${who(e.seat)} passes.`;
    case "contract": return `${who(e.seat)} wins the bidding: ${e.level} ${e.designation}.`;
    case "option": return `${who(e.seat)} chooses ${e.choice}${e.received ? ` and receives ${e.received.map(cardLabel).join(", ")}` : ""}.`;
    case "summon": return `${who(e.seat)} summons the Dragon from ${e.from === "kitty" ? "the kitty" : who(e.from)}${e.received ? `; you receive ${e.received.map(cardLabel).join(", ")}` : ""}.`;
    case "discard": return `${who(e.seat)} discards${e.card ? ` ${cardLabel(e.card)}` : " a card"}.`;
    case "play": return `${who(e.seat)} plays ${cardLabel(e.card)}${e.as ? ` as ${e.as}` : ""}.`;
    case "trick": return `${who(e.winner)} wins the trick (${e.points} point${e.points > 1 ? "s" : ""}).`;
    case "hand_end": return e.thrown_in ? "All passed: the hand is thrown in."
      : `Hand ${e.hand_no} ${e.made ? "made" : "set"}: points ${signed(e.deltas[0])} / ${signed(e.deltas[1])}, score ${e.scores[0]}–${e.scores[1]}.`;
    case "redeal": return "The cards are dealt again.";
    case "deal": return `Hand ${e.hand_no} is dealt (dealer ${who(e.dealer)}).`;
    case "game_end": return `Game over: ${e.winner_team === null ? "a draw" : `${teamName(meta, e.winner_team)} win`} ${e.scores[0]}–${e.scores[1]}.`;
    default: return null;
  }
}
