// Card faces for Summon the Dragon, drawn here as inline SVG: no image from anywhere else.
//
// Why shapes first and colours second: about one man in twelve cannot tell red from green,
// so each element has its own silhouette (earth a block, wind a swirl, fire a peak, water
// waves) and the colours (from the Okabe-Ito palette, chosen to stay apart under the common
// colour-vision deficiencies) only help.  The Dragon is a dark card unlike any other, and an
// Elemental wears a crown of rays around its element, so neither is mistaken at a glance.
// Built with createElementNS and attributes (no markup strings, no inline style: the CSP).

import { t as tr } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";

export const SUITS = ["earth", "wind", "fire", "water"];
export const SUIT_COLOURS = { earth: "#00734d", wind: "#5c5470", fire: "#c2410c", water: "#0062a3" };
// The face ranks' letters and words are the catalogues' ("rank.short.<rank>", "rank.<rank>").
const RANK_WORD = { mage: 1, warrior: 1, queen: 1, king: 1, elemental: 1 };

function el(tag, attrs = {}, ...kids) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const kid of kids) if (kid) node.append(kid);
  return node;
}

export function suitOf(card) { return card === "dragon" ? "dragon" : card.split("-")[0]; }
export function rankOf(card) { return card === "dragon" ? null : card.split("-")[1]; }

// What a screen reader says, and what the page writes in sentences: "7 of fire",
// "the Mage of earth", "the Dragon".
export function cardName(card) {
  if (card === "dragon") return tr("card.dragon");
  const suit = suitOf(card);
  const rank = rankOf(card);
  const of = tr(`suit.of.${suit}`);
  return RANK_WORD[rank] ? tr("card.face", { rank: tr(`rank.the.${rank}`), of }) : tr("card.number", { rank, of });
}

// The element's silhouette, centred on (cx, cy) with half-size r.
export function suitShape(suit, cx, cy, r) {
  const c = SUIT_COLOURS[suit];
  switch (suit) {
    case "earth":   // a solid block
      return el("rect", { x: cx - r * 0.8, y: cy - r * 0.8, width: r * 1.6, height: r * 1.6, rx: r * 0.15, fill: c });
    case "fire":    // a peak: solid triangle pointing up
      return el("path", { d: `M${cx} ${cy - r} L${cx + r} ${cy + r * 0.8} L${cx - r} ${cy + r * 0.8} Z`, fill: c });
    case "water": { // two waves
      const w = (y) => `M${cx - r} ${y} q${r / 2} ${-r / 2} ${r} 0 t${r} 0`;
      return el("path", { d: `${w(cy - r * 0.3)} ${w(cy + r * 0.5)}`, fill: "none", stroke: c, "stroke-width": r * 0.38, "stroke-linecap": "round" });
    }
    case "wind":    // a swirl: an open ring with a tail
      return el("path", { d: `M${cx + r * 0.9} ${cy} A${r * 0.9} ${r * 0.9} 0 1 0 ${cx} ${cy + r * 0.9} L${cx + r * 0.2} ${cy + r * 0.9} M${cx + r * 0.45} ${cy} A${r * 0.45} ${r * 0.45} 0 1 0 ${cx} ${cy + r * 0.45}`,
        fill: "none", stroke: c, "stroke-width": r * 0.3, "stroke-linecap": "round" });
    default: return null;
  }
}

function text(x, y, size, fill, words, extra = {}) {
  const t = el("text", { x, y, "font-size": size, fill, "font-family": "system-ui, sans-serif", "font-weight": 700, ...extra });
  t.textContent = words;
  return t;
}

function dragonFace() {
  return [
    el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#2b1038", stroke: "#d4a017", "stroke-width": 2 }),
    // wings and head, in gold: a shape no element card has
    el("path", { d: "M30 22 L40 14 L37 26 L50 22 L42 36 L52 40 L38 44 L34 58 L30 50 L26 58 L22 44 L8 40 L18 36 L10 22 L23 26 L20 14 Z",
      fill: "#d4a017" }),
    el("circle", { cx: 30, cy: 36, r: 3, fill: "#2b1038" }),
    text(30, 74, 10, "#f5d76e", tr("card.face-dragon"), { "text-anchor": "middle", "letter-spacing": 0.5 }),
    text(5, 13, 11, "#f5d76e", "D"),
  ];
}

function elementFace(suit, rank) {
  const c = SUIT_COLOURS[suit];
  const short = RANK_WORD[rank] ? tr(`rank.short.${rank}`) : rank;
  const kids = [
    el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#fffdf8", stroke: c, "stroke-width": 2 }),
    text(5, 17, 15, c, short),
    suitShape(suit, 11, 26, 5),
  ];
  if (rank === "elemental") {
    // a crown of rays around a big element: the strongest card of its suit
    for (let i = 0; i < 12; i += 1) {
      const a = (i * Math.PI) / 6;
      kids.push(el("line", { x1: 32 + Math.cos(a) * 14, y1: 48 + Math.sin(a) * 14, x2: 32 + Math.cos(a) * 21, y2: 48 + Math.sin(a) * 21,
        stroke: c, "stroke-width": 2.2, "stroke-linecap": "round" }));
    }
    kids.push(suitShape(suit, 32, 48, 10));
    const word = tr("rank.elemental").toUpperCase();
    kids.push(text(30, 79, word.length > 9 ? 6.5 : 8, c, word, { "text-anchor": "middle" }));
  } else if (RANK_WORD[rank]) {
    kids.push(el("rect", { x: 14, y: 32, width: 36, height: 40, rx: 4, fill: "none", stroke: c, "stroke-width": 1.2, "stroke-dasharray": "3 2" }));
    kids.push(suitShape(suit, 32, 46, 9));
    kids.push(text(32, 68, 8, c, tr(`rank.${rank}`).toUpperCase(), { "text-anchor": "middle" }));
  } else {
    kids.push(suitShape(suit, 34, 52, 15));
  }
  return kids;
}

// The card as an SVG image (aria-hidden: the control that holds it carries the name).
export function cardSvg(card) {
  const kids = card === "dragon" ? dragonFace() : elementFace(suitOf(card), rankOf(card));
  return el("svg", { viewBox: "0 0 60 84", class: "face", "aria-hidden": "true", focusable: "false" }, ...kids);
}

export function backSvg() {
  return el("svg", { viewBox: "0 0 60 84", class: "face", "aria-hidden": "true", focusable: "false" },
    el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#35508a", stroke: "#1e2f55", "stroke-width": 2 }),
    el("rect", { x: 7, y: 7, width: 46, height: 70, rx: 4, fill: "none", stroke: "#9fb3e0", "stroke-width": 1.5 }),
    el("path", { d: "M30 24 L40 42 L30 60 L20 42 Z", fill: "#9fb3e0" }));
}

// A small inline element symbol for sentences ("Trump: ▲ fire").
export function suitIcon(suit) {
  return el("svg", { viewBox: "0 0 20 20", class: `suit-icon suit-${suit}`, "aria-hidden": "true", focusable: "false" }, suitShape(suit, 10, 10, 7.5));
}

// ---- Summicard's cards: a value 1..13 and no suit (referee/games/summicard/cards.py) ----
// Drawn in one neutral ink, since suits do not exist there: a Dragon element colour would
// suggest a meaning the card has not.  The Boccino (the card every score is measured from)
// is gold with a ball, so it is never mistaken for a player's card.

// Their letters and words are the catalogues' ("value.short.<v>", "value.<v>").
const VALUE_WORD = { 1: 1, 11: 1, 12: 1, 13: 1 };

export function valueText(v) { return VALUE_WORD[v] ? tr(`value.short.${v}`) : String(v); }
export function valueName(v) { return VALUE_WORD[v] ? `${tr(`value.${v}`)} (${v})` : String(v); }

export function valueCardSvg(v, { boccino = false } = {}) {
  const ink = boccino ? "#5a3b00" : "#1f2937";
  const t = valueText(v);
  const kids = [
    el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: boccino ? "#f7d774" : "#fffdf8", stroke: boccino ? "#a16207" : "#6b7280", "stroke-width": 2 }),
    text(5, 16, 13, ink, t),
    text(32, 56, t.length > 1 ? 26 : 30, ink, t, { "text-anchor": "middle" }),
  ];
  if (boccino) kids.push(el("circle", { cx: 48, cy: 14, r: 6, fill: "#fffdf8", stroke: ink, "stroke-width": 1.5 }),
    text(30, 77, 8, ink, tr("summicard.boccino").toUpperCase(), { "text-anchor": "middle" }));
  return el("svg", { viewBox: "0 0 60 84", class: "face", "aria-hidden": "true", focusable: "false" }, ...kids);
}
