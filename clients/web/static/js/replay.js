// The replay viewer: a file from `summon replay export` carries, per audience, exactly the
// messages that audience received (its "frames"); stepping through them feeds the same
// store and the same table screen as a live game.  Nothing is recomputed in the browser,
// so a spectator replay can never show more than a spectator saw.

import { h, section } from "./ui.js";
import { Store } from "./link.js";
import { renderTable } from "./table.js";
import { t as tr } from "./i18n.js";
import { seatLabel } from "./words.js";

export class ReplayViewer {
  constructor(refresh) {
    this.refresh = refresh;
    this.file = null;
    this.error = null;
    this.audience = null;
    this.step = 0;
    this.ui = {};
  }

  audiences() {
    if (!this.file) return [];
    // JavaScript lists integer-like keys first: put the spectator first, then seats in order
    const keys = Object.keys(this.file.frames);
    return [...keys.filter((k) => k === "spectator"), ...keys.filter((k) => k !== "spectator").sort((a, b) => Number(a) - Number(b))];
  }

  // The steps of the slider: the table's seqs (each frame says which step it belongs to;
  // a step is every message that one move caused, states, events and meta alike).
  steps() {
    const frames = this.file.frames[this.audience] || [];
    return [...new Set(frames.map((f) => f.seq))].sort((a, b) => a - b);
  }

  async load(fileObject) {
    let data;
    try { data = JSON.parse(await fileObject.text()); } catch (err) {
      this.file = null;
      this.error = tr("replay.cannot-open", { why: err.message });
      this.refresh();
      return;
    }
    this.from = null;
    this.open(data);
  }

  // A replay already in memory: a file's object, or one seat's view the referee sent over
  // MQTT (js/mygames.js: `from` is where the back link goes).
  open(data, from = null) {
    this.from = from;
    try {
      if (data.format !== "summon-replay") throw new Error("this is not a Summon replay file (format is not summon-replay)");
      if (!data.frames || typeof data.frames !== "object") {
        throw new Error("this replay file has no per-audience frames: export it again with a current `summon replay export`");
      }
      this.file = data;
      this.error = null;
      this.audience = this.audiences().includes("spectator") ? "spectator" : this.audiences()[0];
      this.step = 0;
    } catch (err) {
      this.file = null;
      this.error = tr("replay.cannot-open", { why: err.message });
    }
    this.refresh();
  }

  tableAt() {
    const frames = this.file.frames[this.audience] || [];
    const steps = this.steps();
    const upto = steps[Math.min(this.step, steps.length - 1)];
    const store = new Store();
    store.now = () => 0;
    for (const f of frames) if (f.seq <= upto) store.apply(f.topic, f.message);
    return store.table(this.file.table);
  }

  // A seat as the table named it (its meta: a guest's chosen name, "Computer 4"), not
  // "seat 0" or an account code.
  seatName(seat) {
    const frames = Object.values(this.file.frames || {}).flat();
    const meta = (frames.find((f) => f.topic === "public/meta") || {}).message || { players: this.file.players };
    return seatLabel(meta, seat);
  }

  go(step) {
    const n = this.steps().length;
    this.step = Math.max(0, Math.min(n - 1, step));
    this.refresh();
  }

  render() {
    const out = [h("p", {}, this.from === "games"
      ? h("a", { href: "#/games", dataset: { key: "link:games" } }, tr("replay.back-games"))
      : h("a", { href: "#/", dataset: { key: "link:lobby" } }, tr("replay.lobby")))];
    if (this.from !== "games") out.push(section(tr("replay.title"), h("label", {}, `${tr("replay.file")} `,
      h("input", { type: "file", accept: ".json,application/json", dataset: { key: "replay-file" },
        on: { change: (e) => e.target.files[0] && this.load(e.target.files[0]) } }))));
    if (this.error) out.push(h("div", { class: "error", role: "alert" }, this.error));
    if (!this.file) return out;
    const steps = this.steps();
    const controls = h("div", { class: "replay-controls" },
      h("label", {}, `${tr("replay.watch-as")} `, h("select", { dataset: { key: "replay-audience" }, on: { change: (e) => { this.audience = e.target.value; this.step = 0; this.refresh(); } } },
        this.audiences().map((a) => h("option", { value: a, selected: a === this.audience }, a === "spectator" ? tr("replay.watcher") : this.seatName(Number(a)))))),
      h("button", { type: "button", dataset: { key: "replay-first" }, on: { click: () => this.go(0) } }, tr("replay.first")),
      h("button", { type: "button", dataset: { key: "replay-prev" }, on: { click: () => this.go(this.step - 1) } }, tr("replay.back")),
      h("button", { type: "button", dataset: { key: "replay-next" }, on: { click: () => this.go(this.step + 1) } }, tr("replay.next")),
      h("button", { type: "button", dataset: { key: "replay-last" }, on: { click: () => this.go(steps.length - 1) } }, tr("replay.last")),
      h("input", { type: "range", min: 0, max: steps.length - 1, value: this.step, "aria-label": tr("replay.step-label"), dataset: { key: "replay-range" },
        on: { input: (e) => this.go(Number(e.target.value)) } }),
      h("span", { class: "muted", role: "status" }, tr("replay.step", { n: this.step + 1, of: steps.length })));
    out.push(controls);
    out.push(h("div", { class: "replay-table" }, renderTable(this.tableAt(), { onMove: null, ui: this.ui, refresh: this.refresh, now: () => 0, replay: true })));
    return out;
  }
}
