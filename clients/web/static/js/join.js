// Invite links and sign-up (docs/web.md "Guests and sign-up", GUESTS.md): a person with no
// account opens <page>/#/join/<code>, types a name, and plays; or makes an account here.
//
// Why the code leaves the address bar at once (history.replaceState): it is a key to a seat.
// A fragment never reaches a server, but the address bar is seen over a shoulder, synced to
// other devices and kept in history; from here on it lives in this page's memory only.
//
// What the browser keeps: the guest credential the referee made for this invite, in
// localStorage "summon.guests" under the SHA-256 of the code (not the code), so reopening
// the same link on this device gives the same seat back -- also after the tab was closed.
// It dies with the table: the referee deletes the guest, and a refused log-in forgets it.

import { h, page } from "./ui.js";
import { has, t as tr } from "./i18n.js";
import { errorWords } from "./words.js";
import { sha256hex } from "./sha256.js";

const KEY = "summon.guests";
const ACTIVE = "summon.guest.active";   // sessionStorage: this tab's guest, for a reload
export const NAME_MAX = 24;

// A refusal of "Your name" or the sign-up form: our own words when we have them (the
// referee's detail says the same, in English only, and twice the words confuse a newcomer);
// an unknown code keeps the referee's detail.
function refusal(err) {
  return has(`err.${err.code}`) ? tr(`err.${err.code}`) : errorWords(err);
}

// The invite this tab is joining with: in memory only.  ``from``: who invited, to what
// ({by, game, title}, POST api/invitation: what the table's public waiting room shows anyone),
// asked once per code; null until answered, and when it could not be.
export const invite = { code: null, key: null, name: "", pending: false, error: null, from: null, asked: false };

// Take the code out of the address (#/join/<code> -> #/join); true when there was one.
export function takeInvite() {
  const m = location.hash.match(/^#\/join\/([^/?#]+)$/);
  if (!m) return false;
  let code;
  try { code = decodeURIComponent(m[1]); } catch (err) { code = m[1]; }
  history.replaceState(null, "", "#/join");
  Object.assign(invite, { code, key: null, pending: false, error: null, from: null, asked: false });
  return true;
}

function all() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch (err) { return {}; }
}

function keep(map) {
  try { localStorage.setItem(KEY, JSON.stringify(map)); } catch (err) { /* private mode: for this tab only */ }
}

export async function inviteKey() {
  if (!invite.key && invite.code) invite.key = await sha256hex(invite.code);
  return invite.key;
}

export function savedGuest(key) {
  const c = key ? all()[key] : null;
  return c && typeof c.user === "string" && typeof c.password === "string" ? c : null;
}

export function saveGuest(key, cred) {
  const map = all();
  map[key] = cred;
  keep(map);
  try { sessionStorage.setItem(ACTIVE, key); } catch (err) { /* ignore */ }
}

// The guest this tab played as before a reload (its credential still kept), or null.
export function activeGuest() {
  let key = null;
  try { key = sessionStorage.getItem(ACTIVE); } catch (err) { /* ignore */ }
  const cred = savedGuest(key);
  return cred ? { key, cred } : null;
}

export function forgetGuest(key) {
  const map = all();
  delete map[key];
  keep(map);
  try { if (sessionStorage.getItem(ACTIVE) === key) sessionStorage.removeItem(ACTIVE); } catch (err) { /* ignore */ }
}

// A rematch moved the guest to the next table: reopening the link goes there.
export function moveGuest(key, table) {
  const map = all();
  if (map[key] && map[key].table !== table) { map[key].table = table; keep(map); }
}

// POST a JSON body to this page's own server; the answer's JSON, or {error, detail} in words.
export async function postJson(path, body) {
  let res;
  try {
    res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      cache: "no-store", credentials: "same-origin", referrerPolicy: "no-referrer" });
  } catch (err) {
    return { ok: false, error: { code: "web/unreachable", detail: "" } };
  }
  let data = null;
  try { data = await res.json(); } catch (err) { /* not JSON: a proxy's page */ }
  if (res.ok && data) return { ok: true, data };
  return { ok: false, error: { code: (data && data.error) || "web/failed", detail: (data && data.detail) || String(res.status) } };
}

// The "Your name" screen. opts: {config, onJoined(key, cred), refresh}
export function renderJoin(opts) {
  if (!opts.config.guests || !opts.config.broker) {
    return [page(tr("join.title"), h("p", { class: "notice" }, tr("join.off")))];
  }
  if (!invite.code) {
    return [page(tr("join.title"), h("p", { class: "notice" }, tr("join.no-code")),
      h("p", {}, h("a", { href: "#/", dataset: { key: "join-home" } }, tr("join.home"))))];
  }
  // Who invited, to what: the first line once it is known (a failure keeps the plain words).
  // Asked only once the saved-guest lookup has answered "none" (app.js joinInvite: the key is
  // a SHA-256, computed asynchronously): a render before that -- a game module arriving asks
  // for one -- would ask the server about a link this device already used, and a used code is
  // refused (403 guest/bad-invite) while the kept guest gets the seat back.
  if (!invite.asked && invite.key && !savedGuest(invite.key)) {
    invite.asked = true;
    const code = invite.code;
    postJson("api/invitation", { invite: code }).then((answer) => {
      if (!answer.ok || invite.code !== code || !answer.data || typeof answer.data.by !== "string") return;
      invite.from = { by: answer.data.by, game: String(answer.data.game || ""), title: String(answer.data.title || "") };
      opts.refresh();
    });
  }
  const problem = invite.error ? h("p", { class: "error", role: "alert" }, refusal(invite.error)) : null;
  if (invite.error && invite.error.code === "guest/bad-invite") {   // the code is dead: no name would help
    return [page(tr("join.title"), problem, h("p", {}, h("a", { href: "#/", dataset: { key: "join-home" } }, tr("join.home"))))];
  }
  const form = h("form", { class: "join", on: { submit: async (e) => {
    e.preventDefault();
    if (invite.pending) return;
    const name = String(new FormData(e.target).get("name") || "").trim();
    invite.name = name;
    if (!name) { invite.error = { code: "guest/bad-name", detail: "" }; opts.refresh(); return; }
    invite.pending = true;
    invite.error = null;
    opts.refresh();
    const key = await inviteKey();
    const answer = await postJson("api/guest", { invite: invite.code, name });
    invite.pending = false;
    if (answer.ok) {
      const cred = { user: answer.data.user, password: answer.data.password, table: answer.data.table,
        seat: answer.data.seat, name: answer.data.name || name };
      saveGuest(key, cred);
      opts.onJoined(key, cred);
    } else invite.error = answer.error;
    opts.refresh();
  } } },
    h("label", {}, `${tr("join.name")} `, h("input", { name: "name", required: true, maxlength: NAME_MAX, autocomplete: "nickname",
      value: invite.name, dataset: { key: "join-name", keep: "" }, "aria-describedby": "join-note" })),
    h("button", { type: "submit", class: "move", dataset: { key: "join-go" }, disabled: invite.pending ? true : null },
      invite.pending ? tr("join.joining") : tr("join.go")),
    h("p", { class: "muted", id: "join-note" }, tr("join.note")),
    h("p", { class: "muted" }, tr("join.rules")));
  const from = invite.from;
  if (!from) return [page(tr("join.title"), h("p", {}, tr("join.intro")), problem, form)];
  const game = has(`game.${from.game}`) ? tr(`game.${from.game}`) : from.title || from.game;   // ours: in the page's language
  return [page(tr("join.invited", { by: from.by, game }), h("p", { class: "join-intro" }, tr("join.intro-known")), problem, form)];
}

// "New here? Make an account" under the login form. opts: {config, onMade(user, password), refresh}
const signup = { open: false, pending: false, error: null, user: "" };
export function signupForm(opts) {
  const mode = opts.config.signup;
  if (mode !== "open" && mode !== "code") return null;
  const problem = signup.error ? h("p", { class: "error", role: "alert" }, refusal(signup.error)) : null;
  const form = h("form", { class: "signup", autocomplete: "on", on: { submit: async (e) => {
    e.preventDefault();
    if (signup.pending) return;
    const f = new FormData(e.target);
    const body = { user: String(f.get("user") || "").trim(), password: String(f.get("password") || "") };
    if (mode === "code") body.code = String(f.get("code") || "").trim();
    signup.user = body.user;
    signup.pending = true;
    signup.error = null;
    opts.refresh();
    const answer = await postJson("api/signup", body);
    signup.pending = false;
    if (answer.ok) { signup.open = false; opts.onMade(answer.data.user || body.user, body.password); } else signup.error = answer.error;
    opts.refresh();
  } } },
    h("label", {}, `${tr("signup.user")} `, h("input", { name: "user", required: true, autocomplete: "username", value: signup.user,
      pattern: "[A-Za-z0-9_\\-]{1,64}", title: tr("signup.user-rule"), dataset: { key: "su-user", keep: "" } })),
    h("label", {}, `${tr("signup.password")} `, h("input", { name: "password", type: "password", required: true, minlength: 8,
      autocomplete: "new-password", dataset: { key: "su-password", keep: "" } })),
    h("p", { class: "muted" }, tr("signup.rules")),
    mode === "code" ? h("label", {}, `${tr("signup.code")} `, h("input", { name: "code", required: true, autocomplete: "off",
      dataset: { key: "su-code", keep: "" }, "aria-describedby": "su-code-hint" })) : null,
    mode === "code" ? h("p", { class: "muted", id: "su-code-hint" }, tr("signup.code-hint")) : null,
    h("button", { type: "submit", dataset: { key: "su-go" }, disabled: signup.pending ? true : null },
      signup.pending ? tr("signup.making") : tr("signup.go")));
  // The state is set on the click itself, not only on `toggle` (which fires later): a lobby
  // re-rendered in between would otherwise rebuild the fold shut under the person's finger.
  const fold = h("details", { class: "signup-fold", open: signup.open || signup.error ? true : null },
    h("summary", { dataset: { key: "su-open" }, on: { click: () => { signup.open = !fold.open; } } }, tr("signup.title")), problem, form);
  fold.addEventListener("toggle", () => { if (fold.isConnected) signup.open = fold.open; });
  return fold;
}
