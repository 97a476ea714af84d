// Summon the Dragon (referee/games/dragon/SPEC.md) as a card table: you at the bottom with
// your hand, your partner opposite, the opponents left and right, the trick in the middle.
//
// The page offers exactly the strings in `legal`; no rule decides what is sent.  The one
// rule the page repeats is the *reason* a card is not in `legal` (follow suit, then trump:
// referee/games/dragon/rules.py `playable`), read off the view's trick and trump, so that
// touching a dimmed card says why in words instead of doing nothing.

import { h, moveButton, section } from "../ui.js";
import { seatLabel } from "../words.js";
import { backSvg, cardName, cardSvg, suitIcon, suitOf } from "../cards.js";
import { HINTS } from "../howto.js";

const SUITS = ["earth", "wind", "fire", "water"];
const DESIGNATIONS = [
  ["earth", "Earth"], ["wind", "Wind"], ["fire", "Fire"], ["water", "Water"],
  ["high", "High no-trump"], ["low", "Low no-trump"],
];
const DESIGNATION_WORDS = Object.fromEntries(DESIGNATIONS);
const OPTION_WORDS = {
  summon: ["Summon the Dragon", "take it from whoever holds it; they take the kitty"],
  kitty: ["Take the kitty", "five more cards, then put five away"],
  nohelp: ["No help", "play as dealt: 25 more points if you make it"],
};
const PAUSE_MS = 8000;   // how long a hand's result stays up on its own
const POS = ["bottom", "left", "top", "right"];   // seat (me + i) sits at POS[i]: play goes clockwise

export function cardLabel(card) { return cardName(card); }

function capital(s) { return s[0].toUpperCase() + s.slice(1); }

function designationText(d) { return DESIGNATION_WORDS[d] || d; }

function team(seat) { return seat % 2; }

function teamName(meta, t) {
  return `${seatLabel(meta, t)} & ${seatLabel(meta, t + 2)}`;
}

// "North's side" when I play: "Us"/"Them" read faster at a table than two names.
function sideName(ctx, t) {
  if (ctx.mySeat === null || ctx.mySeat === undefined) return teamName(ctx.meta, t);
  return team(ctx.mySeat) === t ? `Us (${teamName(ctx.meta, t)})` : `Them (${teamName(ctx.meta, t)})`;
}

function where(ctx, seat) {
  const me = ctx.mySeat === null || ctx.mySeat === undefined ? 0 : ctx.mySeat;
  return POS[(seat - me + 4) % 4];
}

function contractText(meta, c) {
  if (!c) return "none yet";
  let s = `${seatLabel(meta, c.seat)}: ${c.level} ${designationText(c.designation)}`;
  if (c.option) s += `, ${c.option === "nohelp" ? "no help" : c.option}`;
  if (c.summoned_from !== null && c.summoned_from !== undefined) {
    s += c.summoned_from === "kitty" ? " (summon answered from the kitty)" : ` (Dragon from ${seatLabel(meta, c.summoned_from)})`;
  }
  return s;
}

function cardFace(card, extra = "") {
  return h("span", { class: `card suit-${suitOf(card)} ${extra}`.trim(), role: "img", "aria-label": cardName(card) }, cardSvg(card));
}

function asWords(as) { return as ? ` as ${as.replace(" ", ", ")}` : ""; }

// ---- why a card cannot be played (the rules' words, for the person) ----

function ledSuit(view) {
  const first = (view.trick || [])[0];
  if (!first) return null;
  if (first.card === "dragon") return view.trump || (first.as ? first.as.split(" ")[0] : null);
  return suitOf(first.card);
}

export function whyNot(ctx, card) {
  const { view, meta, legal } = ctx;
  const turn = view.to_move || [];
  if (!legal.length) {
    if (view.phase === "over") return "The game is over.";
    return turn.length ? `Wait: it is ${seatLabel(meta, turn[0])}'s turn.` : "Wait a moment.";
  }
  if (view.phase === "bidding") return "First the bidding: choose a bid or pass.";
  if (view.phase === "option") return "First choose your option: summon, kitty or no help.";
  if (view.phase === "discard") return card === "dragon" ? "The Dragon can never be put away." : "That card cannot be put away now.";
  if (view.phase !== "play") return "That card cannot be played now.";
  const led = ledSuit(view);
  if (!led) return "That card cannot be played now.";
  const hand = view.hand || [];
  const trump = view.trump;
  const hasLed = hand.some((c) => c !== "dragon" && suitOf(c) === led);
  if (trump && led === trump) return `${capital(trump)} is trump and was led: you must play a trump (the Dragon counts as one).`;
  if (hasLed) return `You must follow ${led}.`;
  if (trump) return `You have no ${led}: you must play a trump (${trump}, or the Dragon).`;
  return "That card cannot be played now.";
}

// ---- the hand ----

function handPanel(ctx) {
  const { view, legal, ui } = ctx;
  const hand = view.hand || [];
  const cards = [];
  let last = null;
  for (const card of hand) {
    const suit = suitOf(card);
    cards.push(cardControl(ctx, card, last !== null && last !== suit));
    last = suit;
  }
  const why = ui.why && ui.why.seq === ctx.seq ? ui.why.text : "";
  const trumpNote = view.trump ? h("span", { class: "trump-note" }, " · trump ", suitIcon(view.trump), ` ${view.trump}`) : null;
  return h("section", { class: "panel my-hand", "aria-label": "your hand" },
    h("h2", {}, `Your hand (${hand.length})`, trumpNote),
    h("div", { class: `hand ${legal.length ? "my-turn" : ""}` }, cards),
    h("p", { class: "why", role: "status", "aria-live": "polite" }, why),
    view.discards && view.discards.length ? h("p", { class: "muted" }, "Put away: ", view.discards.map(cardName).join(", ")) : null);
}

function cardControl(ctx, card, gap) {
  const { legal, onMove } = ctx;
  const exact = ["play", "discard"].map((v) => `${v} ${card}`).filter((m) => legal.includes(m));
  const declared = legal.filter((m) => m.startsWith(`play ${card} `));   // the Dragon in no-trump
  const suit = suitOf(card);
  const cls = `card suit-${suit} ${gap ? "suit-start" : ""}`;
  if (exact.length === 1 && !declared.length) {
    const verb = exact[0].split(" ")[0];
    return moveButton(exact[0], cardSvg(card), onMove, { class: `${cls} playable`, aria: cardName(card), title: `${capital(verb)} ${cardName(card)}` });
  }
  if (declared.length) {
    return h("div", { class: "dragon-choice", role: "group", "aria-label": "play the Dragon as" },
      cardFace(card, "playable"),
      h("div", { class: "as-list" }, declared.map((m) => {
        const [s, hl] = m.split(" ").slice(2);
        return moveButton(m, [suitIcon(s), ` ${s} ${hl}`], onMove, { class: "small", aria: `play the Dragon as the ${hl === "high" ? "highest" : "lowest"} ${s}` });
      })));
  }
  // Dimmed only when cards are what you choose now (playing, putting away).
  const cardsNow = ctx.legal.length && (ctx.view.phase === "play" || ctx.view.phase === "discard");
  const dim = cardsNow ? "unplayable" : "idle";
  return h("button", { type: "button", class: `${cls} ${dim}`, "aria-disabled": "true", "aria-label": cardName(card),
    dataset: { key: `card:${card}`, card },
    on: { click: () => { ctx.ui.why = { seq: ctx.seq, text: whyNot(ctx, card) }; ctx.refresh(); } } }, cardSvg(card));
}

// ---- the middle of the table: bidding, the option, the trick ----

function bidLabel(b) {
  if (b === "pass") return "passed";
  const [n, d] = b.split(" ");
  return `bid ${n} ${designationText(d)}`;
}

function biddingBox(ctx) {
  const { meta, view, legal, onMove } = ctx;
  const bids = legal.filter((m) => m.startsWith("bid "));
  const high = [...(view.bids || [])].reverse().find((b) => b.bid !== "pass");
  const out = [h("p", { class: "center-title" }, high ? `Highest bid: ${seatLabel(meta, high.seat)}, ${bidLabel(high.bid).slice(4)}` : "Bidding: no bid yet")];
  if (bids.length || legal.includes("pass")) {
    const levels = [...new Set(bids.map((m) => Number(m.split(" ")[1])))].sort((a, b) => a - b);
    const level = ctx.ui.bidLevel && levels.includes(ctx.ui.bidLevel) ? ctx.ui.bidLevel : levels[0];
    const picker = h("div", { class: "bid-picker" });
    if (levels.length) {
      const select = h("select", { "aria-label": "trick points to bid", dataset: { key: "bid-level" },
        on: { change: (e) => { ctx.ui.bidLevel = Number(e.target.value); ctx.refresh(); } } },
        levels.map((l) => h("option", { value: l, selected: l === level }, `${l} tricks`)));
      picker.append(h("label", {}, "Bid ", select, " with"));
      picker.append(h("div", { class: "designations" }, DESIGNATIONS.map(([d, label]) => {
        const move = `bid ${level} ${d}`;
        const face = [SUITS.includes(d) ? suitIcon(d) : null, ` ${label}`];
        return legal.includes(move) ? moveButton(move, face, onMove, { aria: `bid ${level} ${label}`, title: `${level} tricks, ${SUITS.includes(d) ? `${d} is trump` : label}` })
          : h("button", { type: "button", disabled: true, class: "move" }, face);
      })));
    }
    if (legal.includes("pass")) picker.append(moveButton("pass", "Pass", onMove, { class: "pass" }));
    out.push(picker, h("p", { class: "hint" }, HINTS.bidding));
  }
  return out;
}

function optionBox(ctx) {
  const opts = ["summon", "kitty", "nohelp"].filter((m) => ctx.legal.includes(m));
  const c = ctx.view.contract;
  const out = [h("p", { class: "center-title" }, `Contract: ${contractText(ctx.meta, c)}`)];
  if (!opts.length) {
    out.push(h("p", { class: "muted" }, `${seatLabel(ctx.meta, c.seat)} is choosing the option…`));
    return out;
  }
  out.push(h("div", { class: "options" }, opts.map((m) => moveButton(m, [h("strong", {}, OPTION_WORDS[m][0]), h("span", { class: "sub" }, OPTION_WORDS[m][1])], ctx.onMove, { class: "wide" }))),
    h("p", { class: "hint" }, HINTS.option));
  return out;
}

function discardBox(ctx) {
  const d = ctx.view.discarding;
  const mine = d.seat === ctx.mySeat;
  return [h("p", { class: "center-title" }, `Contract: ${contractText(ctx.meta, ctx.view.contract)}`),
    h("p", { class: mine ? "notice" : "muted" }, mine ? `Put away ${d.remaining} more card${d.remaining > 1 ? "s" : ""}: tap them in your hand.`
      : `${seatLabel(ctx.meta, d.seat)} puts away ${d.remaining} card${d.remaining > 1 ? "s" : ""}…`),
    mine ? h("p", { class: "hint" }, HINTS.discard) : null];
}

// Each played card lies in front of its player; a new one slides in from them, and a
// trick just won slides away to its winner.  `ui.seen` remembers what already moved, so a
// re-render (every message re-renders the page) does not replay the animation.
function trickBox(ctx) {
  const { view, meta, ui } = ctx;
  ui.seen = ui.seen || new Set();
  const hand = view.hand_no;
  const slots = [];
  const trick = view.trick || [];
  let leaving = null;
  if (!trick.length && view.last_trick && view.tricks_played > 0) {
    const key = `won:${hand}:${view.tricks_played}`;
    if (!ui.seen.has(key)) { ui.seen.add(key); leaving = view.last_trick; }
  }
  const shown = leaving ? leaving.cards : trick;
  for (const c of shown) {
    const pos = where(ctx, c.seat);
    const key = `play:${hand}:${view.tricks_played}:${c.seat}`;
    let motion = "";
    if (leaving) motion = `leave-to-${where(ctx, leaving.winner)}`;
    else if (!ui.seen.has(key)) { ui.seen.add(key); motion = `enter-from-${pos}`; }
    slots.push(h("div", { class: `slot slot-${pos} ${motion}`, dataset: { seat: c.seat } },
      cardFace(c.card), h("span", { class: "who" }, seatLabel(meta, c.seat), asWords(c.as))));
  }
  let note = null;
  if (leaving || (!trick.length && view.last_trick)) {
    const lt = view.last_trick;
    note = `${seatLabel(meta, lt.winner)} won the trick${lt.points > 1 ? " (the last trick: 2 points)" : ""}.`;
  } else if (!trick.length && view.phase === "play") {
    const leader = view.leader !== null && view.leader !== undefined ? view.leader : (view.to_move || [])[0];
    note = leader === ctx.mySeat ? "Your lead." : `${seatLabel(meta, leader)} leads.`;
  }
  const first = view.tricks_played === 0 && view.phase === "play" && ctx.legal.length
    ? h("p", { class: "hint" }, trick.length ? HINTS.firstTrick : HINTS.firstLead) : null;
  const last = view.tricks_played === 11 ? h("p", { class: "hint" }, "The last trick counts double.") : null;
  return [h("div", { class: "trick-area", "aria-label": "the trick" }, slots),
    note ? h("p", { class: "center-note", role: "status", "aria-live": "polite" }, note) : null, first, last];
}

function centre(ctx) {
  const { view } = ctx;
  let body;
  if (view.phase === "bidding") body = biddingBox(ctx);
  else if (view.phase === "option") body = optionBox(ctx);
  else if (view.phase === "discard" && view.discarding) body = discardBox(ctx);
  else body = trickBox(ctx);
  return h("div", { class: `centre phase-${view.phase}` }, body);
}

// ---- the seats ----

function seatBox(ctx, s) {
  const { meta, view, clocks, mySeat } = ctx;
  const turn = (view.to_move || []).includes(s);
  const me = s === mySeat;
  const name = seatLabel(meta, s);
  const bid = [...(view.bids || [])].reverse().find((b) => b.seat === s);
  const bidding = view.phase === "bidding" || view.phase === "option";
  const doing = turn ? (me ? "Your turn" : `${name} is thinking…`)
    : bidding && bid ? bidLabel(bid.bid) : "";
  const n = view.hand_sizes ? view.hand_sizes[s] : 0;
  const c = view.contract;
  return h("div", {
    class: `seat seat-${where(ctx, s)} ${turn ? "to-move" : ""} ${me ? "me" : ""} team-${team(s)}`.replace(/\s+/g, " ").trim(),
    dataset: { seat: s }, "aria-label": `${name}${me ? " (you)" : ""}${turn ? ", to play" : ""}`,
  },
  h("div", { class: "name" }, name, me ? " (you)" : "",
    s === view.dealer ? h("span", { class: "chip dealer", title: "dealer" }, "dealer") : null,
    c && c.seat === s ? h("span", { class: "chip bidder", title: "won the bidding" }, `${c.level} ${designationText(c.designation)}`) : null),
  h("div", { class: `doing ${turn ? "turn" : ""}` }, doing || "\u00a0"),
  me ? null : h("div", { class: "backs", "aria-label": `${n} cards` }, Array.from({ length: Math.min(n, 17) }, () => h("span", { class: "back-card" }, backSvg()))),
  clocks(s));
}

// ---- score, hand result, game over ----

function scoreStrip(ctx) {
  const { view } = ctx;
  return h("section", { class: "panel score-strip", "aria-label": "score" },
    h("table", { class: "score" },
      h("thead", {}, h("tr", {}, h("th", {}, "Team"), h("th", {}, "Score"), h("th", {}, "Trick points"))),
      h("tbody", {}, [0, 1].map((t) => h("tr", { dataset: { team: t }, class: ctx.mySeat !== null && team(ctx.mySeat) === t ? "us" : "" },
        h("th", {}, sideName(ctx, t)), h("td", { class: "team-score" }, String(view.scores[t])),
        h("td", { class: "team-tricks" }, String((view.trick_points || [0, 0])[t])))))),
    h("p", { class: "contract-line" }, `Playing to ${view.target} · hand ${view.hand_no} · contract: ${contractText(ctx.meta, view.contract)}`,
      view.trump ? [" · trump ", suitIcon(view.trump), ` ${view.trump}`] : view.contract ? " · no trump" : ""));
}

function signed(n) { return n > 0 ? `+${n}` : String(n); }

// The end of a hand, held on screen a few seconds (the referee has already dealt the
// next one: this is display only) or until "Next hand".  At the end of the game it stays.
function handEnd(ctx) {
  const { meta, view, ui } = ctx;
  const r = view.last_hand;
  if (!r || r.thrown_in) return null;
  const over = view.phase === "over";
  if (!over) {
    if (ui.pauseDone === r.hand_no) return null;
    if (ui.pauseHand !== r.hand_no) {
      ui.pauseHand = r.hand_no;
      ui.pauseUntil = Date.now() + PAUSE_MS;
      setTimeout(() => ctx.refresh(), PAUSE_MS + 50);
    }
    if (Date.now() >= ui.pauseUntil) { ui.pauseDone = r.hand_no; return null; }
  }
  const bidTeam = team(r.bidder);
  const rows = [0, 1].map((t) => h("tr", { dataset: { team: t } },
    h("th", {}, sideName(ctx, t), t === bidTeam ? " (bid)" : ""),
    h("td", { class: "tp" }, String(r.trick_points[t])),
    h("td", { class: "delta" }, signed(r.deltas[t])),
    h("td", { class: "total" }, String(r.scores[t]))));
  const made = r.made ? "made it" : "were set";
  return h("section", { class: `panel hand-end ${r.made ? "made" : "set"}`, role: "status", "aria-live": "polite",
    dataset: { hand: r.hand_no, made: String(r.made) } },
  h("h2", {}, `Hand ${r.hand_no}: ${teamName(meta, bidTeam)} ${made}`),
  h("p", {}, `${seatLabel(meta, r.bidder)} bid ${r.level} ${designationText(r.designation)}`,
    r.option ? ` (${r.option === "nohelp" ? "no help" : r.option})` : "",
    ` and the team took ${r.trick_points[bidTeam]} of the 13 trick points.`,
    r.made ? "" : " Going set costs 10 per trick bid and 5 per trick short."),
  h("table", { class: "hand-score" },
    h("thead", {}, h("tr", {}, h("th", {}, "Team"), h("th", {}, "Trick points"), h("th", {}, "Points"), h("th", {}, "Score"))),
    h("tbody", {}, rows)),
  over ? null : h("button", { type: "button", class: "next-hand", dataset: { key: "next-hand" },
    on: { click: () => { ui.pauseDone = r.hand_no; ctx.refresh(); } } }, "Next hand"));
}

export function resultWords(meta, r) {
  // meta.result.scores repeats each team's score per seat ([ns, ew, ns, ew]): say it once.
  const s = r.scores || [];
  const teams = [0, 1].map((t) => `${teamName(meta, t)} ${s[t]}`);
  const w = r.winners || [];
  const head = w.length ? `${teamName(meta, team(w[0]))} win` : "A draw";
  return `${head}: ${teams.join(", ")}`;
}

export const showsPlayers = true; // the seats around the table name them: no "Players:" line

export function render(ctx) {
  const { meta, view } = ctx;
  const out = [];
  if (view.result) {
    const r = view.result;
    out.push(section("Game over", h("p", { class: "game-result" },
      r.winner_team === null ? "A draw: " : `${teamName(meta, r.winner_team)} win: `,
      `${teamName(meta, 0)} ${r.scores[0]}, ${teamName(meta, 1)} ${r.scores[1]}.`)));
  }
  const end = handEnd(ctx);
  if (end) out.push(end);
  out.push(scoreStrip(ctx));
  // The table: the four seats around the middle; my hand right under it, so that on a
  // phone the bidding (in the middle) and the hand are both on the first screen.
  out.push(h("div", { class: "felt" }, [0, 1, 2, 3].map((s) => seatBox(ctx, s)), centre(ctx)));
  if (view.hand) out.push(handPanel(ctx));
  if (view.last_trick) {
    out.push(section("Last trick", h("ol", { class: "trick" }, view.last_trick.cards.map((c) =>
      h("li", {}, h("span", { class: "who" }, seatLabel(meta, c.seat)), cardFace(c.card, "small"), c.as ? h("span", { class: "as" }, asWords(c.as)) : null))),
    h("p", {}, `won by ${seatLabel(meta, view.last_trick.winner)} (${view.last_trick.points} point${view.last_trick.points > 1 ? "s" : ""})`)));
  }
  if (view.phase !== "bidding" && (view.bids || []).length) {
    out.push(section("The bidding", h("ol", { class: "bids" }, view.bids.map((b) => h("li", {}, `${seatLabel(meta, b.seat)} ${bidLabel(b.bid)}`)))));
  }
  return out;
}

export function eventText(e, meta) {
  const who = (s) => seatLabel(meta, s);
  switch (e.type) {
    case "bid": return `${who(e.seat)} bids ${e.level} ${designationText(e.designation)}.`;
    case "pass": return `${who(e.seat)} passes.`;
    case "contract": return `${who(e.seat)} wins the bidding: ${e.level} ${designationText(e.designation)}.`;
    case "option": return `${who(e.seat)} chooses ${e.choice === "nohelp" ? "no help" : e.choice}${e.received ? ` and receives ${e.received.map(cardName).join(", ")}` : ""}.`;
    case "summon": return `${who(e.seat)} summons the Dragon from ${e.from === "kitty" ? "the kitty" : who(e.from)}${e.received ? `; you receive ${e.received.map(cardName).join(", ")}` : ""}.`;
    case "discard": return `${who(e.seat)} puts away${e.card ? ` ${cardName(e.card)}` : " a card"}.`;
    case "play": return `${who(e.seat)} plays ${cardName(e.card)}${asWords(e.as)}.`;
    case "trick": return `${who(e.winner)} wins the trick (${e.points} point${e.points > 1 ? "s" : ""}).`;
    case "hand_end": return e.thrown_in ? "All passed: the hand is thrown in."
      : `Hand ${e.hand_no} ${e.made ? "made" : "set"}: points ${signed(e.deltas[0])} / ${signed(e.deltas[1])}, score ${e.scores[0]}–${e.scores[1]}.`;
    case "redeal": return "The cards are dealt again.";
    case "deal": return `Hand ${e.hand_no} is dealt (dealer ${who(e.dealer)}).`;
    case "game_end": return `Game over: ${e.winner_team === null ? "a draw" : `${teamName(meta, e.winner_team)} win`} ${e.scores[0]}–${e.scores[1]}.`;
    default: return null;
  }
}
