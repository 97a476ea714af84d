// "Your bots": bot accounts a person registers from the page (protocol/README.md "Bot
// accounts", referee/botaccounts.py).
//
// A signed-in person names a bot; the referee makes an account of role bot that this person
// owns and answers with its password ONCE.  The page shows it in a box until "I have copied
// it" (then forgets it: it is kept nowhere, the broker has only its hash), with the three
// settings every bot reads (SUMMON_BROKER, SUMMON_USER, SUMMON_PASSWORD).  The list gives
// each bot "New password" (the old one stops working) and "Delete" (the broker drops it).
// Tables mark a bot account's seat with "(bot)" (js/words.js seatLabel, from meta.bots).

import { h } from "./ui.js";
import { t as tr } from "./i18n.js";
import { errorWords } from "./words.js";

// A fresh state for one connection (kept by app.js).
export function botState(link) {
  return { link, asked: null, list: null, error: null, pending: new Set(), shown: null, stale: true, name: "" };
}

// state: see botState; ask(type, fields) sends a request and returns its id; broker: this
// page's own broker (config.json's); botsBroker: config.json's bots_broker, the address bots
// connect to (summon web --bots-broker), shown as a ready SUMMON_BROKER= line when the
// operator gave one, else the words that say to ask the operator.
export function renderBots(store, state, ask, refresh, broker, botsBroker = "") {
  for (const id of [state.asked, ...state.pending]) {
    const reply = id ? store.replies.get(id) : null;
    if (!reply) continue;
    store.replies.delete(id);
    if (id === state.asked) state.asked = null;
    state.pending.delete(id);
    if (reply.type === "bot_list") { state.list = reply.bots; state.error = null; }
    else if (reply.type === "bot_account") {
      state.shown = { user: reply.user, password: reply.password };
      state.error = null;
      const list = state.list || [];   // the list gains a new one (the referee's own word: it made it)
      if (!list.some((b) => b.user === reply.user)) state.list = [...list, { user: reply.user, created: new Date().toISOString().slice(0, 16) + "Z" }];
    } else if (reply.type === "error") state.error = reply;
  }
  const code = state.error ? state.error.code : "";
  if (code === "bot/unsupported" && state.list === null) return null;   // a service without them
  if (code === "auth/forbidden" && state.list === null) return null;    // a bot's or a guest's own account
  const rows = (state.list || []).map((b) => h("li", { class: "bot", dataset: { user: b.user } },
    h("span", {}, `${b.user} `, h("span", { class: "badge-bot" }, tr("bots.mark")),
      b.created ? h("span", { class: "muted" }, ` ${tr("device.since", { when: b.created.replace("T", " ").replace("Z", " UTC") })}`) : null),
    " ",
    h("span", { class: "bot-actions" },
      h("button", { type: "button", class: "small", dataset: { key: `renew-${b.user}` }, on: { click: () => {
        state.pending.add(ask("renew_bot", { user: b.user }));
        refresh();
      } } }, tr("bots.renew")), " ",
      h("button", { type: "button", class: "small", dataset: { key: `forget-bot-${b.user}` }, on: { click: () => {
        if (state.shown && state.shown.user === b.user) state.shown = null;
        state.pending.add(ask("forget_bot", { user: b.user }));
        refresh();
      } } }, tr("bots.forget")))));
  const shown = state.shown ? h("div", { class: "bot-secret notice", role: "status", dataset: { key: "bot-secret" } },
    h("p", {}, h("strong", {}, tr("bots.once", { user: state.shown.user }))),
    h("pre", { class: "bot-env" }, `${botsBroker ? `SUMMON_BROKER=${botsBroker}\n` : ""}SUMMON_USER=${state.shown.user}\n`
      + `SUMMON_PASSWORD=${state.shown.password}`),
    h("p", { class: "muted" }, botsBroker ? tr("bots.env") : tr("bots.broker", { broker: broker || "" })),
    h("button", { type: "button", class: "small", dataset: { key: "bot-copied" }, on: { click: () => {
      state.shown = null;
      refresh();
    } } }, tr("bots.copied"))) : null;
  const form = h("form", { class: "bot-new", on: { submit: (e) => {
    e.preventDefault();
    const name = String(new FormData(e.target).get("botname") || "").trim();
    if (!name) return;
    state.name = "";
    state.pending.add(ask("bot", { name }));
    refresh();
  } } },
  h("label", {}, `${tr("bots.name")} `, h("input", { name: "botname", required: true, pattern: "[A-Za-z0-9_\\-]{1,64}",
    value: state.name, dataset: { key: "bot-name" }, on: { input: (e) => { state.name = e.target.value; } } })),
  " ", h("button", { type: "submit", dataset: { key: "bot-register" } }, tr("bots.register")));
  return h("div", { class: "bots" },
    h("h3", {}, tr("bots.title")),
    h("p", { class: "muted" }, tr("bots.intro")),
    state.error ? h("p", { class: "error", role: "alert", dataset: { key: "bot-error" } }, errorWords(state.error)) : null,
    shown,
    state.list === null ? h("p", { class: "muted" }, tr("device.loading"))
      : rows.length ? h("ul", { class: "bot-list" }, ...rows) : h("p", { class: "muted" }, tr("bots.none")),
    form);
}
