// Staying signed in on this device (protocol/README.md "Signed-in devices", referee/devices.py).
//
// After a password login with "Keep me signed in on this device" ticked, the page asks the
// referee for a device login: a broker account of its own with exactly this person's rights
// (`<user>~<8 hex>` and a random secret).  It keeps {user, login, secret, label} in
// localStorage "summon.device" -- never the password -- and every new tab of this browser
// (a link to grandma's own table) connects with it at once and builds its topics with
// `user`.  "Log out" signs the device out (the broker deletes it) and forgets it here; the
// account's "Signed-in devices" list signs out any of them.  A kept login the broker
// refuses (signed out elsewhere) is dropped, and the login form says why.

import { h } from "./ui.js";
import { t as tr } from "./i18n.js";
import { errorWords } from "./words.js";

const KEY = "summon.device";

// The kept device login, or null.
export function savedDevice() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || "null");
    return v && typeof v.user === "string" && typeof v.login === "string" && typeof v.secret === "string"
      && v.login.startsWith(`${v.user}~`) ? v : null;
  } catch (err) { return null; }
}

export function saveDevice(cred) {
  try { localStorage.setItem(KEY, JSON.stringify(cred)); } catch (err) { /* private mode: this tab only */ }
}

export function dropDevice() {
  try { localStorage.removeItem(KEY); } catch (err) { /* ignore */ }
}

// A label the person will recognise in the list: the kind of device and the browser.
export function deviceLabel() {
  const ua = navigator.userAgent || "";
  const kind = /iPad|Tablet/i.test(ua) ? tr("device.tablet") : /Mobi|Android|iPhone/i.test(ua) ? tr("device.phone")
    : tr("device.computer");
  const browser = /Edg\//.test(ua) ? "Edge" : /Firefox\//.test(ua) ? "Firefox" : /Chrome\//.test(ua) ? "Chrome"
    : /Safari\//.test(ua) ? "Safari" : "";
  return (browser ? `${kind}, ${browser}` : kind).slice(0, 24);
}

// "Signed-in devices", under "Your account".  state: {asked, list, error, forgetting: Set, stale}
// (kept by app.js per connection); ask(type, fields) sends a request and returns its id.
export function renderDevices(store, state, ask, refresh) {
  for (const id of [state.asked, ...state.forgetting]) {
    const reply = id ? store.replies.get(id) : null;
    if (!reply) continue;
    store.replies.delete(id);
    if (id === state.asked) state.asked = null;
    state.forgetting.delete(id);
    if (reply.type === "device_list") { state.list = reply.devices; state.error = null; }
    else if (reply.type === "error") state.error = reply;
  }
  if (state.error && state.error.code === "device/unsupported") return null;   // a service without device logins
  const mine = savedDevice();
  const rows = (state.list || []).map((d) => h("li", { class: "device", dataset: { login: d.login } },
    h("span", {}, d.label || d.login, mine && mine.login === d.login ? ` ${tr("device.this-one")}` : "",
      d.created ? h("span", { class: "muted" }, ` ${tr("device.since", { when: d.created.replace("T", " ").replace("Z", " UTC") })}`) : null),
    " ",
    h("button", { type: "button", class: "small", dataset: { key: `forget-${d.login}` }, on: { click: () => {
      state.forgetting.add(ask("forget_device", { login: d.login }));
      refresh();
    } } }, tr("device.forget"))));
  return h("div", { class: "devices" },
  h("h3", {}, tr("device.title")),
  h("p", { class: "muted" }, tr("device.intro")),
  state.error ? h("p", { class: "error", role: "alert" }, errorWords(state.error)) : null,
  state.list === null ? h("p", { class: "muted" }, tr("device.loading"))
    : rows.length ? h("ul", { class: "device-list" }, ...rows) : h("p", { class: "muted" }, tr("device.none")));
}
