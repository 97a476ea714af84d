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
import { t as tr } from "../i18n.js";
import { announce } from "../announce.js";
import { playSound } from "../sound.js";
import { sheetName } from "../sheet.js";

const SUITS = ["earth", "wind", "fire", "water"];
// Their words are the catalogues' ("designation.<d>", "option.<o>", "option.<o>.sub").
const DESIGNATIONS = ["earth", "wind", "fire", "water", "high", "low"].map((d) => [d, null]);
const OPTION_WORDS = { summon: 1, kitty: 1, nohelp: 1 };
const optionName = (o) => (OPTION_WORDS[o] ? tr(`option.${o}.short`) : o);
const suitWord = (s) => tr(`suit.${s}`);
const PAUSE_MS = 8000;   // how long a hand's result stays up on its own
const POS = ["bottom", "left", "top", "right"];   // seat (me + i) sits at POS[i]: play goes clockwise

export function cardLabel(card) { return cardName(card); }

function capital(s) { return s[0].toUpperCase() + s.slice(1); }

function designationText(d) { return ["earth", "wind", "fire", "water", "high", "low"].includes(d) ? tr(`designation.${d}`) : d; }

function team(seat) { return seat % 2; }

function teamName(meta, t) {
  return `${seatLabel(meta, t)} & ${seatLabel(meta, t + 2)}`;
}

// "North's side" when I play: "Us"/"Them" read faster at a table than two names.
function sideName(ctx, t) {
  if (ctx.mySeat === null || ctx.mySeat === undefined) return teamName(ctx.meta, t);
  return tr(team(ctx.mySeat) === t ? "dragon.us" : "dragon.them", { team: teamName(ctx.meta, t) });
}

function where(ctx, seat) {
  const me = ctx.mySeat === null || ctx.mySeat === undefined ? 0 : ctx.mySeat;
  return POS[(seat - me + 4) % 4];
}

function contractText(meta, c) {
  if (!c) return tr("dragon.no-contract");
  let s = `${seatLabel(meta, c.seat)}: ${c.level} ${designationText(c.designation)}`;
  if (c.option) s += `, ${optionName(c.option)}`;
  if (c.summoned_from !== null && c.summoned_from !== undefined) {
    s += c.summoned_from === "kitty" ? ` ${tr("dragon.summon-kitty")}` : ` ${tr("dragon.summon-from", { who: seatLabel(meta, c.summoned_from) })}`;
  }
  return s;
}

function cardFace(card, extra = "") {
  return h("span", { class: `card suit-${suitOf(card)} ${extra}`.trim(), role: "img", "aria-label": cardName(card) }, cardSvg(card));
}

function asWords(as) { return as ? ` ${tr("dragon.as", { suit: suitWord(as.split(" ")[0]), hl: tr(`dragon.hl.${as.split(" ")[1]}`) })}` : ""; }

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
    if (view.phase === "over") return tr("why.over");
    return turn.length ? tr("why.wait-for", { who: seatLabel(meta, turn[0]) }) : tr("why.wait");
  }
  if (view.phase === "bidding") return tr("why.bidding");
  if (view.phase === "option") return tr("why.option");
  if (view.phase === "discard") return card === "dragon" ? tr("why.dragon-discard") : tr("why.no-discard");
  if (view.phase !== "play") return tr("why.no-play");
  const led = ledSuit(view);
  if (!led) return tr("why.no-play");
  const hand = view.hand || [];
  const trump = view.trump;
  const hasLed = hand.some((c) => c !== "dragon" && suitOf(c) === led);
  if (trump && led === trump) return tr("why.trump-led", { trump: capital(suitWord(trump)) });
  if (hasLed) return tr("why.follow", { suit: suitWord(led) });
  if (trump) return tr("why.must-trump", { suit: suitWord(led), trump: suitWord(trump) });
  return tr("why.no-play");
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
  const trumpNote = view.trump ? h("span", { class: "trump-note" }, ` · ${tr("dragon.trump")} `, suitIcon(view.trump), ` ${suitWord(view.trump)}`) : null;
  return h("section", { class: "panel my-hand", "aria-label": tr("dragon.hand-label") },
    h("h2", {}, tr("dragon.hand", { n: hand.length }), trumpNote),
    h("div", { class: `hand ${legal.length ? "my-turn" : ""}` }, cards),
    h("p", { class: "why", role: "status", "aria-live": "polite" }, why),
    view.phase === "bidding" && legal.length ? h("p", { class: "hint" }, HINTS.bidding) : null,
    view.discards && view.discards.length ? h("p", { class: "muted" }, `${tr("dragon.put-away")} `, view.discards.map(cardName).join(", ")) : null);
}

function cardControl(ctx, card, gap) {
  const { legal, onMove } = ctx;
  const exact = ["play", "discard"].map((v) => `${v} ${card}`).filter((m) => legal.includes(m));
  const declared = legal.filter((m) => m.startsWith(`play ${card} `));   // the Dragon in no-trump
  const suit = suitOf(card);
  const cls = `card suit-${suit} ${gap ? "suit-start" : ""}`;
  if (exact.length === 1 && !declared.length) {
    const verb = exact[0].split(" ")[0];
    return moveButton(exact[0], cardSvg(card), onMove, { class: `${cls} playable`, aria: cardName(card), title: tr(`dragon.verb.${verb}`, { card: cardName(card) }) });
  }
  if (declared.length) {
    return h("div", { class: "dragon-choice", role: "group", "aria-label": tr("dragon.play-as") },
      cardFace(card, "playable"),
      h("div", { class: "as-list" }, declared.map((m) => {
        const [s, hl] = m.split(" ").slice(2);
        return moveButton(m, [suitIcon(s), ` ${suitWord(s)} ${tr(`dragon.hl.${hl}`)}`], onMove, { class: "small", aria: tr(`dragon.play-as-${hl}`, { suit: suitWord(s) }) });
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
  if (b === "pass") return tr("dragon.passed");
  const [n, d] = b.split(" ");
  return tr("dragon.bid-label", { n, d: designationText(d) });
}

function biddingBox(ctx) {
  const { meta, view, legal, onMove } = ctx;
  const bids = legal.filter((m) => m.startsWith("bid "));
  const high = [...(view.bids || [])].reverse().find((b) => b.bid !== "pass");
  // a bid in the view is "9 earth": its level, then its designation (SPEC.md, `bids`)
  const [highN, highD] = high ? high.bid.split(" ") : [];
  const out = [h("p", { class: "center-title" }, high ? tr("dragon.highest", { who: seatLabel(meta, high.seat), n: highN, d: designationText(highD) }) : tr("dragon.no-bid"))];
  if (bids.length || legal.includes("pass")) {
    const levels = [...new Set(bids.map((m) => Number(m.split(" ")[1])))].sort((a, b) => a - b);
    const level = ctx.ui.bidLevel && levels.includes(ctx.ui.bidLevel) ? ctx.ui.bidLevel : levels[0];
    const picker = h("div", { class: "bid-picker" });
    if (levels.length) {
      const select = h("select", { "aria-label": tr("dragon.bid-select"), dataset: { key: "bid-level" },
        on: { change: (e) => { ctx.ui.bidLevel = Number(e.target.value); ctx.refresh(); } } },
        levels.map((l) => h("option", { value: l, selected: l === level }, tr("dragon.n-tricks", { n: l }))));
      picker.append(h("label", {}, `${tr("dragon.bid")} `, select, ` ${tr("dragon.with")}`));
      picker.append(h("div", { class: "designations" }, DESIGNATIONS.map(([d]) => {
        const label = designationText(d);
        const move = `bid ${level} ${d}`;
        const face = [SUITS.includes(d) ? suitIcon(d) : null, ` ${label}`];
        return legal.includes(move) ? moveButton(move, face, onMove, { aria: tr("dragon.bid-aria", { n: level, d: label }), title: SUITS.includes(d) ? tr("dragon.bid-title-trump", { n: level, suit: suitWord(d) }) : tr("dragon.bid-title", { n: level, d: label }) })
          : h("button", { type: "button", disabled: true, class: "move", "aria-label": tr("dragon.bid-aria", { n: level, d: label }) }, face);
      })));
    }
    if (legal.includes("pass")) picker.append(moveButton("pass", tr("dragon.pass"), onMove, { class: "pass" }));
    out.push(picker);   // its hint goes under the hand (handPanel): on a phone the hand stays on the first screen
  }
  return out;
}

function optionBox(ctx) {
  const opts = ["summon", "kitty", "nohelp"].filter((m) => ctx.legal.includes(m));
  const c = ctx.view.contract;
  const out = [h("p", { class: "center-title" }, tr("dragon.contract", { c: contractText(ctx.meta, c) }))];
  if (!opts.length) {
    out.push(h("p", { class: "muted" }, tr("dragon.choosing", { who: seatLabel(ctx.meta, c.seat) })));
    return out;
  }
  out.push(h("div", { class: "options" }, opts.map((m) => moveButton(m, [h("strong", {}, tr(`option.${m}`)), h("span", { class: "sub" }, tr(`option.${m}.sub`))], ctx.onMove, { class: "wide" }))),
    h("p", { class: "hint" }, HINTS.option));
  return out;
}

function discardBox(ctx) {
  const d = ctx.view.discarding;
  const mine = d.seat === ctx.mySeat;
  return [h("p", { class: "center-title" }, tr("dragon.contract", { c: contractText(ctx.meta, ctx.view.contract) })),
    h("p", { class: mine ? "notice" : "muted" }, mine ? tr("dragon.discard-mine", { n: d.remaining })
      : tr("dragon.discard-other", { who: seatLabel(ctx.meta, d.seat), n: d.remaining })),
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
    note = tr(lt.points > 1 ? "dragon.won-last" : "dragon.won", { who: seatLabel(meta, lt.winner) });
  } else if (!trick.length && view.phase === "play") {
    const leader = view.leader !== null && view.leader !== undefined ? view.leader : (view.to_move || [])[0];
    note = leader === ctx.mySeat ? tr("dragon.your-lead") : tr("dragon.leads", { who: seatLabel(meta, leader) });
  }
  const first = view.tricks_played === 0 && view.phase === "play" && ctx.legal.length
    ? h("p", { class: "hint" }, trick.length ? HINTS.firstTrick : HINTS.firstLead) : null;
  const last = view.tricks_played === 11 ? h("p", { class: "hint" }, tr("dragon.last-double")) : null;
  return [h("div", { class: "trick-area", role: "group", "aria-label": tr("dragon.trick") }, slots),
    note ? h("p", { class: "center-note" }, note) : null, first, last];
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
  const doing = turn ? (me ? tr("table.your-turn") : tr("table.thinking", { who: name, n: 1 }))
    : bidding && bid ? bidLabel(bid.bid) : "";
  const n = view.hand_sizes ? view.hand_sizes[s] : 0;
  const c = view.contract;
  return h("div", {
    class: `seat seat-${where(ctx, s)} ${turn ? "to-move" : ""} ${me ? "me" : ""} team-${team(s)}`.replace(/\s+/g, " ").trim(),
    dataset: { seat: s }, role: "group", "aria-label": `${name}${me ? ` ${tr("dragon.you")}` : ""}${turn ? `, ${tr("dragon.to-play")}` : ""}`,
  },
  h("div", { class: "name" }, name, me ? ` ${tr("dragon.you")}` : "",
    s === view.dealer ? h("span", { class: "chip dealer", title: tr("dragon.dealer") }, tr("dragon.dealer")) : null,
    c && c.seat === s ? h("span", { class: "chip bidder", title: tr("dragon.won-bidding") }, `${c.level} ${designationText(c.designation)}`) : null),
  h("div", { class: `doing ${turn ? "turn" : ""}` }, doing || "\u00a0"),
  me ? null : h("div", { class: "backs", role: "img", "aria-label": tr("dragon.n-cards", { n }) }, Array.from({ length: Math.min(n, 17) }, () => h("span", { class: "back-card" }, backSvg()))),
  clocks(s));
}

// ---- score, hand result, game over ----

function scoreStrip(ctx) {
  const { view } = ctx;
  return h("section", { class: "panel score-strip", "aria-label": tr("dragon.score") },
    h("table", { class: "score" },
      h("thead", {}, h("tr", {}, h("th", {}, tr("dragon.team")), h("th", {}, tr("dragon.score-col")), h("th", {}, tr("dragon.trick-points")))),
      h("tbody", {}, [0, 1].map((t) => h("tr", { dataset: { team: t }, class: ctx.mySeat !== null && team(ctx.mySeat) === t ? "us" : "" },
        h("th", {}, sideName(ctx, t)), h("td", { class: "team-score" }, String(view.scores[t])),
        h("td", { class: "team-tricks" }, String((view.trick_points || [0, 0])[t])))))),
    h("p", { class: "contract-line" }, tr("dragon.contract-line", { target: view.target, hand: view.hand_no, c: contractText(ctx.meta, view.contract) }),
      view.trump ? [` · ${tr("dragon.trump")} `, suitIcon(view.trump), ` ${suitWord(view.trump)}`] : view.contract ? ` · ${tr("dragon.no-trump")}` : ""));
}

function signed(n) { return n > 0 ? `+${n}` : String(n); }

// The end of a hand, held on screen a few seconds (the referee has already dealt the
// next one: this is display only) or until "Next hand".  At the end of the game it stays.
function handEnd(ctx) {
  const { meta, view, ui } = ctx;
  const r = view.last_hand;
  // A hand that ended before the page opened this table is old news (the score sheet lists
  // it): only a hand that ends while the page watches gets the pause panel.
  if (!ctx.replay && ui.handAtArrival === undefined) ui.handAtArrival = r ? r.hand_no : 0;
  if (!r || r.thrown_in) return null;
  const over = view.phase === "over";
  if (!over && !ctx.replay && r.hand_no <= ui.handAtArrival) return null;
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
    h("th", {}, sideName(ctx, t), t === bidTeam ? ` ${tr("dragon.bid-team")}` : ""),
    h("td", { class: "tp" }, String(r.trick_points[t])),
    h("td", { class: "delta" }, signed(r.deltas[t])),
    h("td", { class: "total" }, String(r.scores[t]))));
  const made = r.made ? tr("dragon.made-it") : tr("dragon.were-set");
  const headline = tr("dragon.hand-head", { hand: r.hand_no, team: teamName(meta, bidTeam), made });
  if (!ctx.replay) {
    announce(`hand:${ctx.table}:${r.hand_no}`, `${headline}. ${[0, 1].map((t) => `${teamName(meta, t)} ${signed(r.deltas[t])}, ${r.scores[t]}`).join("; ")}.`);
  }
  return h("section", { class: `panel hand-end ${r.made ? "made" : "set"}`, role: "status", "aria-live": "polite",
    dataset: { hand: r.hand_no, made: String(r.made) } },
  h("h2", {}, headline),
  h("p", {}, tr("dragon.end-bid", { who: seatLabel(meta, r.bidder), n: r.level, d: designationText(r.designation) }),
    r.option ? ` (${optionName(r.option)})` : "",
    ` ${tr("dragon.end-took", { n: r.trick_points[bidTeam] })}`,
    r.made ? "" : ` ${tr("dragon.end-set")}`),
  h("table", { class: "hand-score" },
    h("thead", {}, h("tr", {}, h("th", {}, tr("dragon.team")), h("th", {}, tr("dragon.trick-points")), h("th", {}, tr("dragon.points")), h("th", {}, tr("dragon.score-col")))),
    h("tbody", {}, rows)),
  over ? null : h("button", { type: "button", class: "next-hand", dataset: { key: "next-hand" },
    on: { click: () => { ui.pauseDone = r.hand_no; ctx.refresh(); } } }, tr("dragon.next-hand")));
}

export function resultWords(meta, r) {
  // meta.result.scores repeats each team's score per seat ([ns, ew, ns, ew]): say it once.
  const s = r.scores || [];
  const teams = [0, 1].map((t) => `${teamName(meta, t)} ${s[t]}`);
  const w = r.winners || [];
  const head = w.length ? tr("dragon.win", { team: teamName(meta, team(w[0])) }) : tr("dragon.draw");
  return `${head}: ${teams.join(", ")}`;
}

// Each card the others play and each trick won, said by the live region from the referee's events (a state showing the
// finished trick may never be drawn: the page draws only the newest state of a frame).
// Only events that arrive after the table is open: no history read out on arrival.
function announceTricks(ctx) {
  if (ctx.replay || !ctx.events) return;
  const newest = ctx.events.reduce((m, b) => Math.max(m, b.seq || 0), 0);
  if (ctx.ui.heardUpTo === undefined) { ctx.ui.heardUpTo = newest; return; }
  for (const b of ctx.events) {
    if (!(b.seq > ctx.ui.heardUpTo)) continue;
    b.events.forEach((e, i) => {
      // what the others do, as a player at the table hears it: bids and cards (never "X is thinking")
      if (["bid", "pass", "play"].includes(e.type) && e.seat !== ctx.mySeat) announce(`play:${ctx.table}:${b.seq}:${i}`, eventText(e, ctx.meta));
      if (e.type === "trick") playSound("trick");
      if (e.type === "trick") announce(`trick:${ctx.table}:${b.seq}:${i}`, tr(e.points > 1 ? "dragon.won-last" : "dragon.won", { who: seatLabel(ctx.meta, e.winner) }));
    });
  }
  ctx.ui.heardUpTo = newest;
}

// The score sheet's columns (sheet.js draws it): the contract, made or set, both teams'
// trick points, then each team's score change and running total.
export function sheet(ctx) {
  const { meta, view } = ctx;
  const rows = view.sheet.map((r) => {
    const [n, d] = r.bid ? r.bid.split(" ") : [null, null];
    const bid = r.bid ? [sheetName(seatLabel(meta, r.bidder)), `: ${n} ${designationText(d)}${r.option ? `, ${optionName(r.option)}` : ""}`] : tr("sheet.thrown-in");
    // made or set under the contract, not in a column of its own: five columns fit a phone
    const made = r.made === null ? null : h("span", { class: `outcome ${r.made ? "made" : "set"}` }, r.made ? tr("dragon.made-it") : tr("dragon.were-set"));
    return {
      mark: r.made === null ? "thrown-in" : r.made ? "made" : "set",
      data: { hand: r.hand_no },
      cells: [String(r.hand_no), h("span", {}, h("span", { class: "bid" }, bid), made ? [" ", made] : null), `${r.points[0]}–${r.points[1]}`,
        ...[0, 1].map((t) => h("span", {}, h("strong", { class: "total" }, String(r.scores[t])), h("span", { class: "muted delta" }, `(${signed(r.deltas[t])})`)))],
    };
  });
  return {
    caption: tr("sheet.caption.dragon"),
    wrap: [1, 2],   // the contract may take two lines on a phone: the totals stay in view
    head: [tr("sheet.hand"), tr("sheet.contract"), tr("dragon.trick-points"),
      ...[0, 1].map((t) => [sheetName(seatLabel(meta, t)), " & ", sheetName(seatLabel(meta, t + 2))])],
    rows,
  };
}

export const showsPlayers = true; // the seats around the table name them: no "Players:" line

export function render(ctx) {
  const { meta, view } = ctx;
  const out = [];
  announceTricks(ctx);
  const end = handEnd(ctx);
  if (end) out.push(end);
  out.push(scoreStrip(ctx));
  // The table: the four seats around the middle; my hand right under it, so that on a
  // phone the bidding (in the middle) and the hand are both on the first screen.
  out.push(h("div", { class: "felt" }, [0, 1, 2, 3].map((s) => seatBox(ctx, s)), centre(ctx)));
  if (view.hand) out.push(handPanel(ctx));
  if (view.last_trick) {
    out.push(section(tr("dragon.last-trick"), h("ol", { class: "trick" }, view.last_trick.cards.map((c) =>
      h("li", {}, h("span", { class: "who" }, seatLabel(meta, c.seat)), cardFace(c.card, "small"), c.as ? h("span", { class: "as" }, asWords(c.as)) : null))),
    h("p", {}, tr("dragon.won-by", { who: seatLabel(meta, view.last_trick.winner), n: view.last_trick.points }))));
  }
  if (view.phase !== "bidding" && (view.bids || []).length) {
    out.push(section(tr("dragon.the-bidding"), h("ol", { class: "bids" }, view.bids.map((b) => h("li", {}, `${seatLabel(meta, b.seat)} ${bidLabel(b.bid)}`)))));
  }
  return out;
}

export function eventText(e, meta) {
  const who = (s) => seatLabel(meta, s);
  switch (e.type) {
    case "bid": return tr("ev.bid", { who: who(e.seat), n: e.level, d: designationText(e.designation) });
    case "pass": return tr("ev.pass", { who: who(e.seat) });
    case "contract": return tr("ev.contract", { who: who(e.seat), n: e.level, d: designationText(e.designation) });
    case "option": return tr(e.received ? "ev.option-got" : "ev.option", { who: who(e.seat), choice: optionName(e.choice), cards: (e.received || []).map(cardName).join(", ") });
    case "summon": return tr(e.received ? "ev.summon-got" : "ev.summon", { who: who(e.seat), from: e.from === "kitty" ? tr("dragon.the-kitty") : who(e.from), cards: (e.received || []).map(cardName).join(", ") });
    case "discard": return e.card ? tr("ev.discard-card", { who: who(e.seat), card: cardName(e.card) }) : tr("ev.discard", { who: who(e.seat) });
    case "play": return tr("ev.play", { who: who(e.seat), card: `${cardName(e.card)}${asWords(e.as)}` });
    case "trick": return tr("ev.trick", { who: who(e.winner), n: e.points });
    case "hand_end": return e.thrown_in ? tr("ev.thrown-in")
      : tr(e.made ? "ev.hand-made" : "ev.hand-set", { hand: e.hand_no, a: signed(e.deltas[0]), b: signed(e.deltas[1]), s0: e.scores[0], s1: e.scores[1] });
    case "redeal": return tr("ev.redeal");
    case "deal": return tr("ev.deal", { hand: e.hand_no, who: who(e.dealer) });
    case "game_end": return tr("ev.game-end", { what: e.winner_team === null ? tr("dragon.draw-lc") : tr("dragon.win", { team: teamName(meta, e.winner_team) }), s0: e.scores[0], s1: e.scores[1] });
    default: return null;
  }
}
