// Summoner Wars (referee/games/summoner_wars/SPEC.md): the 6x8 board, units with life and
// damage, magic, hands, dice.  Select a unit or a card, and the cells that `legal` names as
// its targets light up; click one to send that move.  Every move string's shape (verb,
// source, target cells) is documented in SPEC.md; no rule is computed here.
//
// Cards are drawn as art-free inline SVG frames (like cards.js draws the Dragon's): the
// frame's colour is the faction's, the card's ground is whose side it fights for (yours
// cream, theirs grey-blue, a band on the edge toward its player), cost top left, strength
// (a sword, or a bow for a ranged unit) bottom left, life bottom right with one notch per
// point, the wounds in red.  A Summoner wears a crown and a double frame; a Gate is a
// wall of stone blocks.  Shapes carry the meaning, colours only help.

import { h, moveButton, section } from "../ui.js";
import { has, t as tr } from "../i18n.js";
import { seatLabel } from "../words.js";

const COLS = ["a", "b", "c", "d", "e", "f"];
const NS = "http://www.w3.org/2000/svg";
// Okabe-Ito colours, as in cards.js; a faction not listed here is drawn in slate
const FACTION_COLOURS = { "cinder-vanguard": "#c2410c", tidewardens: "#0062a3" };
const NEAR = "#fff8e6";
const FAR = "#e3e8f0";

function el(tag, attrs = {}, ...kids) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const kid of kids) if (kid) node.append(kid);
  return node;
}

function label(x, y, size, fill, words, extra = {}) {
  const t = el("text", { x, y, "font-size": size, fill, "font-family": "system-ui, sans-serif", "font-weight": 700, ...extra });
  t.textContent = words;
  return t;
}

// data-* attributes for the numbers a card shows (tests read the referee's numbers there)
function facts(obj) {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, String(v)]));
}

export function factionColour(faction) { return FACTION_COLOURS[faction] || "#475569"; }

// A sword (melee) or a bow (ranged), about 14 units tall, at (x, y) its top left.
function attackIcon(kind, x, y, ink) {
  if (kind === "ranged") {
    return el("g", { fill: "none", stroke: ink, "stroke-width": 2, "stroke-linecap": "round" },
      el("path", { d: `M${x + 3} ${y} Q${x + 13} ${y + 7} ${x + 3} ${y + 14}` }),
      el("path", { d: `M${x + 3} ${y} L${x + 3} ${y + 14} M${x} ${y + 7} L${x + 12} ${y + 7} M${x + 9} ${y + 4} L${x + 12} ${y + 7} L${x + 9} ${y + 10}` }));
  }
  return el("g", { fill: "none", stroke: ink, "stroke-width": 2.2, "stroke-linecap": "round" },
    el("path", { d: `M${x + 5} ${y + 9} L${x + 14} ${y} M${x + 2} ${y + 6} L${x + 8} ${y + 12}` }),
    el("path", { d: `M${x + 5} ${y + 9} L${x + 1} ${y + 13}`, "stroke-width": 3 }));
}

function crown(cx, y, ink) {
  return el("path", { d: `M${cx - 13} ${y + 11} L${cx - 13} ${y} L${cx - 6.5} ${y + 6} L${cx} ${y - 2} L${cx + 6.5} ${y + 6} L${cx + 13} ${y} L${cx + 13} ${y + 11} Z`,
    fill: "#d4a017", stroke: ink, "stroke-width": 1.2 });
}

// One card, drawn in three layers so that it fits a square cell on a desktop and a taller
// one on a phone: the frame (100x100 units, stretched to the cell: ground, faction border,
// stone blocks, the band toward its player, one notch per point of life with the wounds
// red), a top strip (cost, the summoner's crown or the champion's star) and a bottom strip
// (strength with a sword or a bow, the life left with a heart), both kept in proportion.
// info: {class, cost, strength, attack, life, damage}; faction: its faction id; near: on
// the viewer's side (true/false), or null for a card in hand.
export function unitFrame(info, faction, near) {
  const ink = factionColour(faction);
  const cls = info.class || "";
  const wall = info.strength === undefined && (cls === "gate" || info.life !== undefined);
  const ground = near === false ? FAR : NEAR;
  const line = { "vector-effect": "non-scaling-stroke" };
  const frame = [el("rect", { x: 2, y: 2, width: 96, height: 96, rx: 9, fill: wall ? "#d6d3cb" : ground, stroke: ink, "stroke-width": 3.5, ...line })];
  if (wall) {  // stone blocks, every other row offset by half a block
    for (let r = 0; r < 6; r += 1) {
      const y = 14 + r * 14;
      frame.push(el("line", { x1: 4, y1: y, x2: 96, y2: y, stroke: "#8a857a", "stroke-width": 1.2, ...line }));
      for (let x = r % 2 ? 18 : 32; x < 94; x += 28) frame.push(el("line", { x1: x, y1: y, x2: x, y2: Math.min(y + 14, 96), stroke: "#8a857a", "stroke-width": 1.2, ...line }));
    }
  }
  if (near !== null && near !== undefined) {  // a band on the edge toward its player
    frame.push(el("rect", { x: 6, y: near ? 88 : 5, width: 88, height: 7, rx: 3, fill: ink, class: "side-band" }));
  }
  if (cls === "summoner") frame.push(el("rect", { x: 7, y: 7, width: 86, height: 86, rx: 6, fill: "none", stroke: ink, "stroke-width": 1.5, ...line }));
  if (info.life !== undefined) {  // one notch per point of life down the right edge, the wounds red
    const n = Math.min(info.life, 12);
    const step = 48 / n;
    for (let i = 0; i < n; i += 1) {
      frame.push(el("rect", { x: 89, y: 26 + i * step, width: 5, height: Math.max(1.5, step - 1.2), rx: 1,
        fill: i < (info.damage || 0) ? "#dc2626" : "#c4c0b8", class: i < (info.damage || 0) ? "wound" : "notch" }));
    }
  } else if (cls === "event") {  // an event: a lightning bolt
    frame.push(el("path", { d: "M56 30 L40 54 L50 54 L44 74 L62 48 L52 48 Z", fill: ink }));
  }
  const top = [];
  if (cls === "summoner") top.push(crown(50, 6, ink));
  else if (cls === "champion") top.push(el("path", { d: "M50 3 L53 10 L60 10 L54.5 14.5 L56.5 21.5 L50 17.5 L43.5 21.5 L45.5 14.5 L40 10 L47 10 Z", fill: "#d4a017", stroke: ink, "stroke-width": 1 }));
  if (info.cost !== undefined && cls !== "summoner") {
    top.push(el("circle", { cx: 17, cy: 15, r: 11, fill: "#1e3a8a" }), label(17, 20.5, 15, "#fff", String(info.cost), { "text-anchor": "middle", class: "cost" }));
  }
  const bottom = [];
  if (info.strength !== undefined) {
    bottom.push(attackIcon(info.attack, 7, 2, "#1f2937"), label(23, 15, 17, "#1f2937", String(info.strength), { class: "strength" }));
  }
  if (info.life !== undefined) {
    const left = info.life - (info.damage || 0);
    bottom.push(el("path", { d: "M80 4 C76 -2 68 2 72 9 L80 17 L88 9 C92 2 84 -2 80 4 Z", fill: info.damage ? "#b91c1c" : "#be123c" }),
      label(68, 16, 17, info.damage ? "#b91c1c" : "#1f2937", String(left), { "text-anchor": "end", class: "life" }));
  }
  const svg = (cl, box, kids, extra = {}) => el("svg", { viewBox: box, class: cl, "aria-hidden": "true", focusable: "false", ...extra }, ...kids);
  return [svg("sw-frame", "0 0 100 100", frame, { preserveAspectRatio: "none" }),
    top.length ? svg("sw-top", "0 0 100 28", top) : null,
    bottom.length ? svg(`sw-bottom ${near === true ? "near" : ""}`, "0 0 100 22", bottom) : null];
}

// {move, source: "cell:c3" | "card:ember-guard.7", targets: [cells]} or null (no source).
export function parseMove(m) {
  const w = m.split(" ");
  switch (w[0]) {
    case "summon": case "build": return { move: m, source: `card:${w[1]}`, targets: [w[2]] };
    case "magic": return { move: m, source: `card:${w[1]}`, targets: [] };
    case "event": return { move: m, source: `card:${w[1]}`, targets: w.slice(2) };
    case "move": { const [a, b] = w[1].split("-"); return { move: m, source: `cell:${a}`, targets: [b] }; }
    case "attack": return { move: m, source: `cell:${w[1]}`, targets: [w[2]] };
    case "ability": return { move: m, source: `cell:${w[1]}`, targets: w.slice(3), ability: w[2] };
    default: return null;
  }
}

// The plain moves' words are the catalogues' ("sw.m.<move>"); a move without one shows as sent.
const WORDS = { get: (m) => (has(`sw.m.${m}`) ? tr(`sw.m.${m}`) : null) };
const phaseWord = (p) => (has(`sw.phase.${p}`) ? tr(`sw.phase.${p}`) : p);

const CELL = (c) => (c ? c.toUpperCase() : c);

// A legal move in words ("Move Ember Guard from B3 to B4"): the cards by name (the board's
// and the hand's), the cells as the board's margins write them.
export function moveWords(move, view) {
  const p = parseMove(move);
  if (!p) return WORDS.get(move) || move;
  const units = new Map((view.board || []).map((u) => [u.cell, u]));
  const hand = view.hand_cards || {};
  const w = move.split(" ");
  const cardName = (inst) => (hand[inst] && hand[inst].name) || cardWords(inst);
  const unitName = (cell) => (units.get(cell) ? units.get(cell).name : CELL(cell));
  switch (w[0]) {
    case "summon": return tr("sw.mv.summon", { card: cardName(w[1]), cell: CELL(w[2]) });
    case "build": return tr("sw.mv.build", { card: cardName(w[1]), cell: CELL(w[2]) });
    case "magic": return tr("sw.mv.magic", { card: cardName(w[1]) });
    case "event": return p.targets.length ? tr("sw.mv.event-on", { card: cardName(w[1]), cells: p.targets.map(CELL).join(", ") })
      : tr("sw.mv.event", { card: cardName(w[1]) });
    case "move": { const [a, b] = w[1].split("-"); return tr("sw.mv.move", { card: unitName(a), from: CELL(a), to: CELL(b) }); }
    case "attack": return tr("sw.mv.attack", { card: unitName(w[1]), from: CELL(w[1]), target: unitName(w[2]), to: CELL(w[2]) });
    case "ability": return tr(p.targets.length ? "sw.mv.ability-on" : "sw.mv.ability",
      { card: unitName(w[1]), from: CELL(w[1]), ability: cardWords(p.ability), cells: p.targets.map(CELL).join(", ") });
    default: return move;
  }
}

function describe(p, view) {
  const verb = p.move.split(" ")[0];
  if (verb === "magic") return tr("sw.discard-magic");
  return moveWords(p.move, view);
}

// A long word in a unit's name may break over two lines, with a hyphen, at a soft hyphen
// placed where a reader would split it ("Tide-caller", "Wave-breaker"): at 11 px a 390 px
// phone's board cell holds about eight letters, and Chromium on Linux has no hyphenation
// dictionary for `hyphens: auto`.  The cell's title, the screen reader's label and the
// "Selected" line below the board carry the full name.
const ENDINGS = ["caller", "breaker", "glass", "sword", "wood", "warden", "slinger", "marshal"];
const VOWELS = new Set("aeiouy");
export function breakable(name) {
  return name.split(" ").map((word) => {
    if (word.length <= 8) return word;
    const lower = word.toLowerCase();
    const end = ENDINGS.find((e) => lower.endsWith(e) && lower.length - e.length >= 3);
    let at = end ? word.length - end.length : -1;
    if (at < 0) {  // else between a vowel and a consonant, nearest the middle
      for (let i = 3; i <= word.length - 3; i += 1) {
        if (VOWELS.has(lower[i - 1]) && !VOWELS.has(lower[i]) && (at < 0 || Math.abs(i - word.length / 2) < Math.abs(at - word.length / 2))) at = i;
      }
    }
    return at > 0 ? `${word.slice(0, at)}\u00ad${word.slice(at)}` : word;
  }).join(" ");
}

function unitWords(meta, u) {
  return `${u.name} (${seatLabel(meta, u.controller)}): ${tr("sw.life", { n: u.life - u.damage, of: u.life })}` +
    `${u.cost !== undefined && u.class !== "summoner" ? `, ${tr("sw.cost", { n: u.cost })}` : ""}` +
    `${u.strength !== undefined ? `, ${tr("sw.strength", { n: u.strength })}` : ""}${u.boost ? `, ${tr("sw.boost", { n: u.boost })}` : ""}`;
}

// The score sheet's columns (sheet.js draws it): per turn, whose it was, then each
// player's magic and the damage on their summoner as the turn ended.
export function sheet(ctx) {
  const { meta, view } = ctx;
  const name = (s) => seatLabel(meta, s);
  return {
    caption: tr("sheet.caption.summoner-wars"),
    head: [tr("sheet.turn"), tr("sheet.player"), ...[0, 1].flatMap((s) => [tr("sheet.magic-of", { who: name(s) }), tr("sheet.damage-of", { who: name(s) })])],
    rows: view.sheet.map((r) => ({
      data: { turn: r.turn },
      cells: [String(r.turn), name(r.seat), String(r.magic[0]), String(r.summoner_damage[0]), String(r.magic[1]), String(r.summoner_damage[1])],
    })),
  };
}

export function render(ctx) {
  const { meta, view, legal, onMove, mySeat, ui } = ctx;
  const parsed = legal.map(parseMove);
  const sources = new Set(parsed.filter(Boolean).map((p) => p.source));
  const selected = ui.swSelected && sources.has(ui.swSelected) ? ui.swSelected : null;
  const fromSelected = parsed.filter((p) => p && p.source === selected);
  const targets = new Set(fromSelected.map((p) => p.targets[0]).filter(Boolean));
  const select = (key) => { ui.swSelected = ui.swSelected === key ? null : key; ui.swChoices = null; ctx.refresh(); };
  const clickTarget = (cell) => {
    const matching = fromSelected.filter((p) => p.targets[0] === cell);
    if (matching.length === 1 && matching[0].targets.length === 1) { ui.swSelected = null; onMove(matching[0].move); return; }
    ui.swChoices = matching.map((p) => p.move); ctx.refresh();
  };
  const units = new Map((view.board || []).map((u) => [u.cell, u]));
  const factionOf = (seat) => ((view.players || [])[seat] || {}).faction;
  const me = mySeat === 1 ? 1 : 0;   // a watcher sees seat 0's side at the bottom
  const flip = mySeat === 1;
  const rows = flip ? [1, 2, 3, 4, 5, 6, 7, 8] : [8, 7, 6, 5, 4, 3, 2, 1];
  const cols = flip ? [...COLS].reverse() : COLS;
  const grid = h("div", { class: "board", role: "grid", "aria-label": "battlefield" }, rows.map((r) =>
    h("div", { class: "row", role: "row" }, cols.map((c) => {
      const cell = `${c}${r}`;
      const u = units.get(cell);
      const key = `cell:${cell}`;
      const isTarget = targets.has(cell);
      const isSource = sources.has(key);
      const label = u ? `${CELL(cell)}: ${unitWords(meta, u)}` : `${CELL(cell)}: ${tr("sw.empty")}`;
      const content = u ? [unitFrame(u, factionOf(u.owner), u.controller === me),
        h("span", { class: "unit-name" }, breakable(u.name)),
        u.boost ? h("span", { class: "unit-boost" }, `+${u.boost}`) : null,
        h("span", { class: "unit-coord", "aria-hidden": "true" }, CELL(cell))] : [h("span", { class: "coord" }, CELL(cell))];
      const side = u ? (u.controller === me ? "near" : "far") : "";
      const cls = `cell ${u ? `unit ${side} owner-${u.controller} class-${u.class}` : ""} ${isTarget ? "target" : ""} ${selected === key ? "selected" : ""} ${isSource ? "source" : ""}`;
      const data = facts(u ? { cell, key: `cell:${cell}`, life: u.life, damage: u.damage, strength: u.strength, cost: u.cost } : { cell, key: `cell:${cell}` });
      if (isTarget || isSource) {
        return h("button", { type: "button", role: "gridcell", class: cls, "aria-label": `${label}${isTarget ? ` — ${tr("sw.target")}` : ""}`, title: u ? u.name : null,
          dataset: data, on: { click: () => (isTarget ? clickTarget(cell) : select(key)) } }, content);
      }
      delete data.key;
      return h("div", { role: "gridcell", class: cls, "aria-label": label, title: u ? u.name : null, dataset: data }, content);
    }))));
  const out = [];
  out.push(section(tr("sw.turn-head", { n: view.turn, who: seatLabel(meta, view.active), phase: phaseWord(view.phase) }),
    h("div", { class: "sw-players" }, (view.players || []).map((p) => h("div", { class: `sw-player owner-${p.seat} ${p.seat === me ? "near" : "far"}`, dataset: { seat: p.seat } },
      el("svg", { viewBox: "0 0 12 12", class: "swatch", "aria-hidden": "true" }, el("rect", { x: 1, y: 1, width: 10, height: 10, rx: 2, fill: factionColour(p.faction) })), h("strong", {}, seatLabel(meta, p.seat)), ` · ${factionWords(p)}`,
      h("div", {}, tr("sw.piles", { magic: p.magic, hand: p.hand, draw: p.draw_pile, discard: p.discard_pile })),
      p.active && p.active.length ? h("div", { class: "muted" }, `${tr("sw.active")} ${p.active.join(", ")}`) : null))),
    view.pending ? h("p", { class: "notice" }, tr("sw.pending", { who: seatLabel(meta, view.pending.seat), kind: has(`sw.kind.${view.pending.kind}`) ? tr(`sw.kind.${view.pending.kind}`) : view.pending.kind })) : null,
    lastRoll(ctx)));
  const picked = selected && selected.startsWith("cell:") ? units.get(selected.slice(5)) : null;
  out.push(section(tr("sw.battlefield"), grid,
    h("p", { class: "sw-selected", role: "status" }, picked ? tr("sw.selected", { u: unitWords(meta, picked) }) :
      legal.length ? tr("sw.touch") : "\u00a0")));
  if (view.hand) out.push(handPanel(ctx, sources, selected, select));
  const choices = [];
  if (ui.swChoices && ui.swChoices.length) {
    choices.push(h("div", { class: "choices", role: "group", "aria-label": tr("sw.choose-label") },
      h("span", {}, `${tr("sw.choose")} `), ui.swChoices.filter((m) => legal.includes(m)).map((m) => moveButton(m, moveWords(m, view), onMove))));
  }
  if (selected) {
    const untargeted = fromSelected.filter((p) => !p.targets.length);
    if (untargeted.length) choices.push(h("div", { class: "choices" }, untargeted.map((p) => moveButton(p.move, describe(p, view), onMove))));
    if (targets.size) choices.push(h("p", { class: "muted" }, `${tr("sw.targets")} ${[...targets].map(CELL).join(", ")}`));
  }
  const plain = legal.filter((m, i) => !parsed[i]);
  if (plain.length || choices.length) {
    out.push(section(tr("sc.your-move"), ...choices, h("div", { class: "moves" }, plain.map((m) => moveButton(m, WORDS.get(m) || m, onMove)))));
  }
  if (legal.length) {
    out.push(h("details", { class: "all-moves" }, h("summary", {}, tr("sw.all-moves", { n: legal.length })),
      h("div", { class: "moves" }, legal.map((m) => moveButton(m, moveWords(m, view), onMove, { class: "small", title: moveWords(m, view) })))));
  }
  return out;
}

// A card in hand in words, for the screen reader and the tooltip: "Ember Guard, common
// unit: cost 1, strength 2 (melee), life 3".
function handWords(c, inst) {
  const kind = has(`sw.class.${c.class}`) ? tr(`sw.class.${c.class}`) : c.class || "";
  const facts = [c.cost !== undefined ? tr("sw.cost", { n: c.cost }) : null,
    c.strength !== undefined ? `${tr("sw.strength", { n: c.strength })}${c.attack ? ` (${tr(`sw.attack.${c.attack}`)})` : ""}` : null,
    c.life !== undefined ? tr("sw.life-of", { n: c.life }) : null].filter(Boolean);
  return `${c.name || cardWords(inst)}${kind ? `, ${kind}` : ""}: ${facts.join(", ")}`;
}

function handPanel(ctx, sources, selected, select) {
  const { view } = ctx;
  const cards = view.hand_cards || {};
  const faction = ((view.players || [])[view.seat] || {}).faction;
  return section(tr("dragon.hand", { n: view.hand.length }), h("div", { class: "sw-hand" }, view.hand.map((inst) => {
    const c = cards[inst] || {};
    const key = `card:${inst}`;
    const words = handWords(c, inst);
    const face = [unitFrame(c, faction, null), h("span", { class: "unit-name" }, breakable(c.name || cardWords(inst)))];
    const data = facts({ card: inst, cost: c.cost, strength: c.strength, life: c.life });
    if (!sources.has(key)) return h("span", { class: `sw-card idle class-${c.class}`, "aria-label": words, title: words, role: "img", dataset: data }, face);
    return h("button", { type: "button", class: `sw-card playable class-${c.class} ${selected === key ? "selected" : ""}`, "aria-label": words, title: words,
      "aria-pressed": selected === key ? "true" : "false", dataset: { ...data, key }, on: { click: () => select(key) } }, face);
  })));
}

function factionWords(p) {
  return p.faction_name || cardWords(p.faction || "");
}

// A die face: a sword for melee, a bow for ranged, a star for special, nothing for blank;
// `hit` (green, a tick) or not (grey) when the attacker's kind of attack is known.
export function dieFace(face, hit) {
  const symbols = face.split("+");
  const kids = [el("rect", { x: 1.5, y: 1.5, width: 29, height: 29, rx: 6, fill: hit ? "#dcfce7" : "#f3f4f6", stroke: hit ? "#15803d" : "#9ca3af", "stroke-width": 2 })];
  const at = symbols.length > 1 ? [[4, 3], [15, 15]] : [[9, 8]];
  symbols.forEach((sym, i) => {
    const [x, y] = at[i] || at[0];
    if (sym === "melee" || sym === "ranged") kids.push(attackIcon(sym, x, y, "#1f2937"));
    else if (sym === "special") kids.push(el("path", { d: `M${x + 7} ${y} L${x + 9} ${y + 5} L${x + 14} ${y + 5} L${x + 10} ${y + 8.5} L${x + 11.5} ${y + 14} L${x + 7} ${y + 10.5} L${x + 2.5} ${y + 14} L${x + 4} ${y + 8.5} L${x} ${y + 5} L${x + 5} ${y + 5} Z`, fill: "#7c3aed" }));
  });
  if (hit) kids.push(el("path", { d: "M21 26 L24 29 L30 21", fill: "none", stroke: "#15803d", "stroke-width": 2.5, "stroke-linecap": "round" }));
  return el("svg", { viewBox: "0 0 32 32", class: "die-face", "aria-hidden": "true", focusable: "false" }, ...kids);
}

function lastRoll(ctx) {
  for (let i = ctx.events.length - 1; i >= 0; i--) {
    const batch = ctx.events[i].events;
    const at = batch.map((e) => e.type === "attack" || e.type === "reroll").lastIndexOf(true);
    if (at >= 0) {
      const e = batch[at];
      // the attacker's kind of attack: the unit still on its cell, else the attack before a re-roll
      const unit = (ctx.view.board || []).find((u) => u.cell === e.from);
      const kind = unit && unit.attack;
      const dmg = batch.slice(at + 1).find((d) => d.type === "damage" && d.cell === (e.to || d.cell));
      const hits = dmg ? dmg.amount : null;
      return h("div", { class: "dice" }, h("span", {}, `${tr("sw.last-roll", { from: CELL(e.from), to: e.to ? ` → ${CELL(e.to)}` : "" })} `),
        (e.dice || []).map((d) => {
          const hit = kind ? d.split("+").includes(kind) : false;
          const words = `${d.split("+").map((x) => (has(`sw.face.${x}`) ? tr(`sw.face.${x}`) : x)).join(" + ")}${kind ? ` (${tr(hit ? "sw.hit" : "sw.miss")})` : ""}`;
          return h("span", { class: `die ${hit ? "hit" : "miss"}`, role: "img", "aria-label": words, title: words, dataset: { face: d } }, dieFace(d, hit));
        }),
        hits !== null ? h("span", { class: "muted" }, ` ${tr("sw.hits", { n: hits })}`) : null);
    }
  }
  return null;
}

// "ember-archer.3" -> "Ember Archer": the log speaks of cards by name, not by id.
export function cardWords(id) {
  if (typeof id !== "string") return String(id);
  return id.replace(/\.\d+$/, "").split("-").map((w) => (w ? w[0].toUpperCase() + w.slice(1) : w)).join(" ");
}

export function eventText(e, meta) {
  const who = (s) => seatLabel(meta, s);
  switch (e.type) {
    case "turn": return tr("sw.ev.turn", { n: e.turn, who: who(e.seat) });
    case "phase": return tr("sw.ev.phase", { who: who(e.seat), phase: phaseWord(e.phase) });
    case "summon": return tr("sw.ev.summon", { who: who(e.seat), name: e.name, cell: CELL(e.cell) });
    case "build": return tr("sw.ev.build", { who: who(e.seat), name: e.name, cell: CELL(e.cell) });
    case "move": return tr("sw.ev.move", { card: cardWords(e.card), from: CELL(e.from), to: CELL(e.to) });
    case "attack": return tr("sw.ev.attack", { card: cardWords(e.attacker), target: cardWords(e.target), from: CELL(e.from), to: CELL(e.to), dice: (e.dice || []).map((d) => d.split("+").map((x) => (has(`sw.face.${x}`) ? tr(`sw.face.${x}`) : x)).join("+")).join(", ") });
    case "damage": return tr("sw.ev.damage", { card: cardWords(e.card), cell: CELL(e.cell), n: e.amount });
    case "destroy": return tr("sw.ev.destroy", { card: cardWords(e.card), cell: CELL(e.cell) });
    case "magic": return tr(e.change >= 0 ? "sw.ev.gains" : "sw.ev.spends", { who: who(e.seat), n: Math.abs(e.change), magic: e.magic });
    case "event": return tr("sw.ev.event", { who: who(e.seat), name: e.name });
    case "draw": return tr("sw.ev.draw", { who: who(e.seat), n: e.count });
    case "game_end": return tr("sw.ev.game-end", { what: e.winner === null ? tr("dragon.draw-lc") : tr("sw.wins", { who: who(e.winner) }), reason: e.reason });
    default: return null;
  }
}
