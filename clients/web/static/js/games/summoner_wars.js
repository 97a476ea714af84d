// Summoner Wars (referee/games/summoner_wars/SPEC.md): the 6x8 board, units with life and
// damage, magic, hands, dice.  Select a unit or a card, and the cells that `legal` names as
// its targets light up; click one to send that move.  Every move string's shape (verb,
// source, target cells) is documented in SPEC.md; no rule is computed here.

import { h, moveButton, section } from "../ui.js";
import { has, t as tr } from "../i18n.js";
import { seatLabel } from "../words.js";

const COLS = ["a", "b", "c", "d", "e", "f"];

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

function describe(p) {
  const verb = p.move.split(" ")[0];
  if (verb === "ability") return `${p.ability}${p.targets.length ? ` → ${p.targets.join(", ")}` : ""}`;
  if (verb === "magic") return tr("sw.discard-magic");
  return p.move;
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
      const label = u ? `${cell}: ${u.name} (${seatLabel(meta, u.controller)}), ${tr("sw.life", { n: u.life - u.damage, of: u.life })}` : `${cell}: ${tr("sw.empty")}`;
      const content = u ? [h("span", { class: "unit-name" }, breakable(u.name)),
        h("span", { class: "unit-stats" }, `${u.life - u.damage}/${u.life}`, u.strength !== undefined ? ` ⚔${u.strength}` : "", u.boost ? ` +${u.boost}` : "")] : [h("span", { class: "coord" }, cell)];
      const cls = `cell ${u ? `unit owner-${u.controller} class-${u.class}` : ""} ${isTarget ? "target" : ""} ${selected === key ? "selected" : ""} ${isSource ? "source" : ""}`;
      if (isTarget || isSource) {
        return h("button", { type: "button", role: "gridcell", class: cls, "aria-label": `${label}${isTarget ? ` — ${tr("sw.target")}` : ""}`, title: u ? u.name : null,
          dataset: { cell, key: `cell:${cell}` }, on: { click: () => (isTarget ? clickTarget(cell) : select(key)) } }, content);
      }
      return h("div", { role: "gridcell", class: cls, "aria-label": label, title: u ? u.name : null, dataset: { cell } }, content);
    }))));
  const out = [];
  out.push(section(tr("sw.turn-head", { n: view.turn, who: seatLabel(meta, view.active), phase: phaseWord(view.phase) }),
    h("div", { class: "sw-players" }, (view.players || []).map((p) => h("div", { class: `sw-player owner-${p.seat}`, dataset: { seat: p.seat } },
      h("strong", {}, seatLabel(meta, p.seat)), ` · ${p.faction || ""}`,
      h("div", {}, tr("sw.piles", { magic: p.magic, hand: p.hand, draw: p.draw_pile, discard: p.discard_pile })),
      p.active && p.active.length ? h("div", { class: "muted" }, `${tr("sw.active")} ${p.active.join(", ")}`) : null))),
    view.pending ? h("p", { class: "notice" }, tr("sw.pending", { who: seatLabel(meta, view.pending.seat), kind: view.pending.kind })) : null,
    lastRoll(ctx)));
  const picked = selected && selected.startsWith("cell:") ? units.get(selected.slice(5)) : null;
  out.push(section(tr("sw.battlefield"), grid,
    h("p", { class: "sw-selected", role: "status" }, picked ? tr("sw.selected", { u: unitWords(meta, picked) }) :
      legal.length ? tr("sw.touch") : "\u00a0")));
  if (view.hand) out.push(handPanel(ctx, sources, selected, select));
  const choices = [];
  if (ui.swChoices && ui.swChoices.length) {
    choices.push(h("div", { class: "choices", role: "group", "aria-label": tr("sw.choose-label") },
      h("span", {}, `${tr("sw.choose")} `), ui.swChoices.filter((m) => legal.includes(m)).map((m) => moveButton(m, m, onMove))));
  }
  if (selected) {
    const untargeted = fromSelected.filter((p) => !p.targets.length);
    if (untargeted.length) choices.push(h("div", { class: "choices" }, untargeted.map((p) => moveButton(p.move, describe(p), onMove))));
    if (targets.size) choices.push(h("p", { class: "muted" }, `${tr("sw.targets")} ${[...targets].join(", ")}`));
  }
  const plain = legal.filter((m, i) => !parsed[i]);
  if (plain.length || choices.length) {
    out.push(section(tr("sc.your-move"), ...choices, h("div", { class: "moves" }, plain.map((m) => moveButton(m, WORDS.get(m) || m, onMove)))));
  }
  if (legal.length) {
    out.push(h("details", { class: "all-moves" }, h("summary", {}, tr("sw.all-moves", { n: legal.length })),
      h("div", { class: "moves" }, legal.map((m) => moveButton(m, m, onMove, { class: "small" })))));
  }
  return out;
}

function handPanel(ctx, sources, selected, select) {
  const { view } = ctx;
  const cards = view.hand_cards || {};
  return section(tr("dragon.hand", { n: view.hand.length }), h("div", { class: "cards sw-hand" }, view.hand.map((inst) => {
    const c = cards[inst] || {};
    const key = `card:${inst}`;
    const text = [h("strong", {}, c.name || inst), h("span", { class: "muted" },
      ` ${c.class || ""}${c.cost !== undefined ? ` · ${tr("sw.cost", { n: c.cost })}` : ""}${c.strength !== undefined ? ` · ⚔${c.strength}` : ""}${c.life !== undefined ? ` · ♥${c.life}` : ""}`)];
    if (!sources.has(key)) return h("span", { class: "card sw-card idle", "aria-disabled": "true" }, text);
    return h("button", { type: "button", class: `card sw-card playable ${selected === key ? "selected" : ""}`,
      dataset: { card: inst, key }, on: { click: () => select(key) } }, text);
  })));
}

function lastRoll(ctx) {
  for (let i = ctx.events.length - 1; i >= 0; i--) {
    const rolls = ctx.events[i].events.filter((e) => e.type === "attack" || e.type === "reroll");
    if (rolls.length) {
      const e = rolls[rolls.length - 1];
      return h("p", { class: "dice" }, `${tr("sw.last-roll", { from: e.from, to: e.to ? ` → ${e.to}` : "" })} `,
        (e.dice || []).map((d) => h("span", { class: `die ${d === "miss" || d === "blank" ? "miss" : "hit"}` }, d)));
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
    case "summon": return tr("sw.ev.summon", { who: who(e.seat), name: e.name, cell: e.cell });
    case "build": return tr("sw.ev.build", { who: who(e.seat), name: e.name, cell: e.cell });
    case "move": return tr("sw.ev.move", { card: cardWords(e.card), from: e.from, to: e.to });
    case "attack": return tr("sw.ev.attack", { card: cardWords(e.attacker), target: cardWords(e.target), from: e.from, to: e.to, dice: (e.dice || []).join(", ") });
    case "damage": return tr("sw.ev.damage", { card: cardWords(e.card), cell: e.cell, n: e.amount });
    case "destroy": return tr("sw.ev.destroy", { card: cardWords(e.card), cell: e.cell });
    case "magic": return tr(e.change >= 0 ? "sw.ev.gains" : "sw.ev.spends", { who: who(e.seat), n: Math.abs(e.change), magic: e.magic });
    case "event": return tr("sw.ev.event", { who: who(e.seat), name: e.name });
    case "draw": return tr("sw.ev.draw", { who: who(e.seat), n: e.count });
    case "game_end": return tr("sw.ev.game-end", { what: e.winner === null ? tr("dragon.draw-lc") : tr("sw.wins", { who: who(e.winner) }), reason: e.reason });
    default: return null;
  }
}
