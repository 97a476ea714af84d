// The Summon web client: a thin client of protocol v1 over MQTT over WebSockets.
//
// Screens: the lobby (#/), one table (#/table/<id>: play if you are seated, else watch),
// the replay viewer (#/replay).  Settings come from config.json beside this page (written
// by `summon web`, or by whoever hosts the files); the query string may set `prefix` and
// `user` (?prefix=...&user=...) but never a broker: the page sends a password only to the
// broker its own config.json names, so a link cannot point the login at a stranger's
// broker while the address bar shows this site.  A password is never read from or put
// into a URL and never stored: it lives in this page's memory for reconnects only.
//
// Guests (#/join/<code>, js/join.js): the invite code leaves the address bar at once; the
// guest credential the referee made for it is kept in localStorage under the code's
// SHA-256, so reopening the link on this device gives the seat back.
//
// Staying signed in (js/device.js): after a password login with "Keep me signed in on this
// device", the page keeps a device login the referee made (never the password), and a new
// tab -- grandma re-opening her own table from a link -- connects with it at once.

import { h, page, rerender, section } from "./ui.js";
import { errorWords, seatLabel } from "./words.js";
import { Link, Store } from "./link.js";
import { Cells } from "./cells.js";
import { renderLobby } from "./lobby.js";
import { learnGames, renderTable, tickClocks } from "./table.js";
import { ReplayViewer } from "./replay.js";
import { rulesPage } from "./howto.js";
import { updateTurns } from "./turns.js";
import { soundSwitch } from "./sound.js";
import { tickAway } from "./away.js";
import { renderNewTable } from "./newtable.js";
import { MyGames } from "./mygames.js";
import { silence } from "./announce.js";
import { LANG_NAMES, lang, setLang, t as tr } from "./i18n.js";
import { activeGuest, forgetGuest, invite, inviteKey, moveGuest, renderJoin, savedGuest, signupForm, takeInvite } from "./join.js";
import { renderGathering, renewState } from "./gathering.js";
import { deviceLabel, dropDevice, renderDevices, saveDevice, savedDevice } from "./device.js";
import { botState, renderBots } from "./bots.js";

const DEFAULTS = { broker: "", edge: "", prefix: "summon/v1", user: "", login: "password", guests: false, signup: "none" };
const root = document.getElementById("app");
const store = new Store();
const ui = {};            // per-screen UI choices (selected unit, bid level...), kept across renders
let config = { ...DEFAULTS };
let link = null;
let cells = null;         // the other cells' connections (js/cells.js), when config.json lists cells
let watched = null;
let scheduled = false;
let guest = null;         // {key, cred: {user, password, table, seat, name}} while playing as a guest
let ended = null;         // words shown on #/join when a kept guest credential was refused
let keepMe = true;        // the login form's "Keep me signed in on this device"
let deviceAsk = null;     // {request} while a device login is being asked for, after a password login
let deviceEnded = null;   // words shown above the login form when the kept device login was refused
let devices = { link: null };   // "Signed-in devices" (js/device.js), for the current connection
let bots = { link: null };      // "Your bots" (js/bots.js), for the current connection
const sitting = { request: null, table: null };
const askedInvites = new Set();
const renewing = new Map();   // request_id of an `invites` renew -> {table, seat}
const seatAsks = new Map();   // request_id of a `leave` / `hand_over` -> {table, who}: its answer shows at the table
const replay = new ReplayViewer(() => render());
// My games (#/games): its answers arrive through the store; a replay opens in the viewer
const myGames = new MyGames(() => render());
store.history = myGames;
myGames.onReplay = (data) => { replay.open(data, "games"); location.hash = "#/replay"; };

async function loadConfig() {
  try {
    const res = await fetch("config.json", { cache: "no-store" });
    if (res.ok) Object.assign(config, await res.json());
  } catch (err) { /* no config.json: defaults and the query string */ }
  const q = new URLSearchParams(location.search);
  for (const key of ["prefix", "user"]) if (q.get(key)) config[key] = q.get(key);
  const notices = [];
  // A broker named in the address is never used (nor pre-filled): only config.json's.
  const foreign = ["broker", "edge"].filter((key) => q.get(key) && q.get(key) !== config[key]).map((key) => q.get(key));
  if (foreign.length) {
    notices.push(`${tr("login.foreign", { brokers: foreign.join(", ") })} ` +
      (config.broker ? tr("login.only-to", { broker: config.broker }) : tr("login.no-broker")) +
      ` ${tr("login.phishing")}`);
  }
  if (q.has("password")) {  // never accept a password from a URL (it lands in history and logs)
    notices.push(tr("login.url-password"));
  }
  if (foreign.length || q.has("password")) {
    for (const key of ["broker", "edge", "password"]) q.delete(key);
    const rest = q.toString();
    history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : "") + location.hash);
  }
  store.notice = notices.join(" ");
  cells = new Cells(store, config);
  await learnGames(config.games, schedule);   // each game's web module, before the first table shows
}

// The connection that carries `table`'s moves and requests: its cell's (js/cells.js), else the home one.
const via = (table) => (cells ? cells.linkFor(table, link) : link);

// Timings for benchmarks/web_page.py (performance.now(): ms since the URL was opened).
const marks = (window.__marks = { ready: null, connect: null, firstState: null, firstSeat: null });   // firstSeat: benchmarks/web_invite.py

function connect(opts) {
  marks.connect = performance.now();
  marks.firstState = null;
  marks.firstSeat = null;
  if (link) link.close();
  store.tables.clear();
  store.tours.clear();
  store.referee = null;
  link = new Link(store, { prefix: config.prefix, ...opts }).connect();
  if (cells) cells.reset(link);   // the other cells' connections follow this one's account
  window.summon = { store, link, cells };   // for the browser tests and curious people in devtools
  if (watched) link.watch(watched);
  if (opts.username && !opts.guest) try { localStorage.setItem("summon.user", opts.user || opts.username); } catch (err) { /* private mode */ }
}

// Sign in with the device login this browser keeps (js/device.js): the person's own rights.
function connectDevice(d) {
  connect({ url: config.broker, username: d.login, password: d.secret, user: d.user, device: true });
}

// After a password login with "Keep me signed in": ask once for a device login, and keep it.
function keepDevice() {
  if (!deviceAsk || !link || !link.user || link.guest || link.opts.device || store.connection.state !== "online") return;
  if (!deviceAsk.request) {
    deviceAsk.request = link.request("device", { label: deviceLabel() });
    return;
  }
  const reply = store.replies.get(deviceAsk.request);
  if (!reply) return;
  store.replies.delete(deviceAsk.request);
  deviceAsk = null;
  if (reply.type !== "device_account" || reply.user !== link.user) return;   // refused (a service without them): the password it is
  const old = savedDevice();
  if (old && old.user === link.user && old.login !== reply.login) link.request("forget_device", { login: old.login });
  saveDevice({ user: reply.user, login: reply.login, secret: reply.secret, label: reply.label });
  devices.stale = true;
}

// The account's "Signed-in devices" (a list the referee keeps; asked once per connection).
function deviceList() {
  if (devices.link !== link) devices = { link, asked: null, list: null, error: null, forgetting: new Set(), stale: true };
  if (devices.stale && !devices.asked && store.connection.state === "online") {
    devices.stale = false;
    devices.asked = link.request("devices", {});
  }
  return renderDevices(store, devices, (type, fields) => link.request(type, fields), render);
}

// The account's "Your bots" (bot accounts it registered; asked once per connection and after each new one).
function botList() {
  if (bots.link !== link) bots = botState(link);
  if (bots.stale && !bots.asked && store.connection.state === "online") {
    bots.stale = false;
    bots.asked = link.request("bots", {});
  }
  return renderBots(store, bots, (type, fields) => link.request(type, fields), render, config.broker, config.bots_broker || "");
}

// Play as the guest `cred` (made for the invite whose hash is `key`) at its table.
function connectGuest(key, cred) {
  guest = { key, cred };
  ended = null;
  try { sessionStorage.setItem("summon.guest.active", key); } catch (err) { /* ignore */ }
  watched = null;
  connect({ url: config.broker, username: cred.user, password: cred.password, guest: { name: cred.name } });
  link.watch(cred.table);
  location.hash = `#/table/${encodeURIComponent(cred.table)}`;
}

// An invite link was opened: reconnect as the guest this device already made for it, or ask a name.
async function joinInvite() {
  const key = await inviteKey();
  const cred = savedGuest(key);
  if (cred && config.broker) connectGuest(key, cred);
  render();
}

function loginForm() {
  const c = store.connection;
  // Family words first ("Logged in as north"); the broker's address stays in a fold.
  const plain = c.state === "online" && link ? (link.guest ? tr("login.as-guest", { name: link.guest.name })
    : link.user ? tr("login.as", { user: link.user }) : tr("login.watching")) : c.detail || tr("login.not-connected");
  const status = h("p", { class: `connection conn-${c.state}`, role: "status" }, plain,
    c.state === "online" && c.detail ? h("details", { class: "conn-details" }, h("summary", {}, tr("details")), c.detail) : null);
  if (link && link.user && c.state !== "error") {
    return section(tr("login.connection"), status, h("button", { type: "button", dataset: { key: "logout" }, on: { click: () => {
      if (guest) { try { sessionStorage.removeItem("summon.guest.active"); } catch (err) { /* ignore */ } guest = null; }
      const kept = savedDevice();   // logging out signs this device out: the broker forgets its login
      if (kept && !link.guest && kept.user === link.user) {
        try { link.request("forget_device", { login: kept.login }); } catch (err) { /* not connected: it stays in the list */ }
        dropDevice();
      }
      if (config.edge) connect({ url: config.edge });   // back to watching without an account
      else { link.close(); link = null; if (cells) cells.reset(null); store.connection = { state: "idle", detail: tr("login.logged-out") }; }
      location.hash = "#/";
      render();
    } } }, link.guest ? tr("login.leave") : tr("login.logout")), link.guest ? null : deviceList(),
    link.guest ? null : botList());
  }
  let saved = "";
  try { saved = localStorage.getItem("summon.user") || ""; } catch (err) { /* ignore */ }
  // The password goes to config.json's broker and nowhere else (see loadConfig).
  const form = !config.broker
    ? h("p", { class: "no-login" }, tr("login.off"))
    : h("form", { class: "login", autocomplete: "on", on: { submit: (e) => {
      e.preventDefault();
      const f = new FormData(e.target);
      deviceEnded = null;
      deviceAsk = f.get("keep") === "on" ? { request: null } : null;
      connect({ url: config.broker, username: String(f.get("username")), password: String(f.get("password")) });
    } } },
    h("details", { class: "login-details" }, h("summary", {}, tr("login.where")),
      h("p", { class: "login-broker muted" }, tr("login.broker", { broker: config.broker }))),
    h("label", {}, `${tr("login.username")} `, h("input", { name: "username", required: true, autocomplete: "username", value: config.user || saved, pattern: "[A-Za-z0-9_.\\-]{1,64}", dataset: { key: "f-user", keep: "" } })),
    h("label", {}, `${tr("login.password")} `, h("input", { name: "password", type: "password", autocomplete: "current-password", dataset: { key: "f-password", keep: "" } })),
    h("label", { class: "keep" }, h("input", { type: "checkbox", name: "keep", checked: keepMe, dataset: { key: "f-keep" },
      on: { change: (e) => { keepMe = e.target.checked; } } }), ` ${tr("login.keep")}`),
    h("button", { type: "submit", dataset: { key: "f-login" } }, tr("login.submit")));
  const watching = link && !link.user && c.state === "online";
  const spectate = (config.edge || config.broker) && !watching
    ? h("button", { type: "button", dataset: { key: "spectate" }, on: { click: () => connect({ url: config.edge || config.broker }) } },
      config.edge ? tr("login.watch") : tr("login.spectate"))
    : null;
  const signup = config.broker && config.guests ? signupForm({ config, refresh: render,
    onMade: (username, password) => {   // a new account stays signed in here too, unless unticked above
      deviceAsk = keepMe ? { request: null } : null;
      connect({ url: config.broker, username, password });
    } }) : null;
  const revoked = deviceEnded ? h("p", { class: "notice", role: "status", dataset: { key: "device-ended" } }, deviceEnded) : null;
  return section(tr("login.connection"), revoked, status, store.notice ? h("p", { class: "notice" }, store.notice) : null, form, signup, spectate);
}

function onMove(table, seq, move) {
  try {
    via(table).move(table, seq, move);
    const t = store.table(table);
    ui.sent = { table, seq, move, epoch: t.seat ? t.seat.epoch || 0 : 0 };
  } catch (err) {
    store.table(table).error = { code: "client", detail: err.message };
  }
  render();
}

function route() {
  const hash = location.hash || "#/";
  const m = hash.match(/^#\/table\/(.+)$/);
  const table = m ? decodeURIComponent(m[1]) : null;
  if (table !== watched) {
    if (watched && link) link.unwatch(watched);
    if (watched && cells) cells.unwatch(watched);
    watched = table;
    for (const key of Object.keys(ui)) delete ui[key];
    if (table && link) link.watch(table);
  }
  if (hash === "#/join" || hash.startsWith("#/join/")) return "join";
  if (hash.startsWith("#/rules/")) return "rules";
  if (hash === "#/new") return "new";
  if (hash === "#/games") return "games";
  return hash.startsWith("#/replay") ? "replay" : table ? "table" : "lobby";
}

let learned = null;        // the referee_status.games whose web modules were asked for

function render() {
  scheduled = false;
  if (store.referee && store.referee.games && store.referee.games !== learned) {   // a game config.json did not name
    learned = store.referee.games;
    learnGames(learned, schedule);
  }
  if (guest && link && link.refusedGuest) {   // the kept credential no longer opens anything: forget it
    forgetGuest(guest.key);
    guest = null;
    ended = tr("join.ended");
    link.close();
    link = null;
    store.connection = { state: "idle", detail: "" };
    history.replaceState(null, "", "#/join");
  }
  if (link && link.refusedDevice) {   // the kept device login was signed out: forget it, and ask for the password
    dropDevice();
    deviceEnded = tr("device.revoked");
    link.close();
    link = null;
    store.connection = { state: "idle", detail: "" };
    if (config.edge) connect({ url: config.edge });   // watching meanwhile, as a page opened without a login
  }
  keepDevice();
  const screen = route();
  const seated = sitting.request ? store.replies.get(sitting.request) : null;
  if (seated) {   // "Sit here" answered: to the table (its waiting room), or the refusal there
    sitting.request = null;
    if (seated.type === "seated") setTimeout(() => { location.hash = `#/table/${encodeURIComponent(seated.table)}`; }, 0);
    else { store.table(sitting.table).error = seated; location.hash = `#/table/${encodeURIComponent(sitting.table)}`; }
  }
  rerender(root, () => {
    const nav = h("nav", { class: "top" }, h("a", { href: "#/", dataset: { key: "nav-lobby" } }, "Summon"),
      h("span", { class: `conn-dot conn-${store.connection.state}`, title: store.connection.detail, "aria-label": store.connection.detail }, "●"),
      link && link.guest ? h("span", { class: "muted" }, ` ${link.guest.name}`)
        : link && link.user ? h("span", { class: "muted" }, ` ${link.user}`)
        : screen === "join" ? null : h("span", { class: "muted" }, ` ${tr("nav.spectator")}`),   // not yet a spectator: joining
      langSwitch(), soundSwitch(render));
    if (screen === "replay") return [nav, ...replay.render()];
    if (screen === "rules") return [nav, ...rulesPage(decodeURIComponent(location.hash.slice("#/rules/".length)))];
    if (screen === "join") {
      if (ended) {   // the kept credential was refused: its seat is gone, and so is the code
        return [nav, page(tr("join.title"), h("p", { class: "notice", role: "status" }, ended),
          h("p", {}, h("a", { href: "#/", dataset: { key: "join-home" } }, tr("join.home"))))];
      }
      return [nav, ...renderJoin({ config, refresh: render, onJoined: connectGuest })];
    }
    if (screen === "lobby") {
      if (cells && !(link && link.guest)) {
        cells.openLobby();   // every cell's tables (config.json `lobby`)
        cells.openMine(link && link.user);   // and my seats in the other cells
      }
      return [nav, ...renderLobby(store, link, loginForm(), render, { onSit: sit })];
    }
    if (screen === "games") return [nav, ...myGames.render(store, link, loginForm())];
    if (screen === "new") {
      if (cells) cells.openLobby();   // the cells' referee statuses: where a new table goes
      return [nav, ...renderNewTable(store, link, render, config, (type, fields, anyCell) =>
        (cells && anyCell ? placed(cells, link, type, fields) : link.request(type, fields))),
      link && link.user ? null : loginForm()];
    }
    const t = store.table(watched);
    const away = cells ? cells.follow(watched, link) : null;   // a table of another cell: follow it there
    if (away) {
      return [nav, h("p", { class: "notice cell-away", role: "status" }, tr(away.known ? "cell.login" : "cell.unknown", { cell: away.cell })),
        !link || !link.user ? loginForm() : null];
    }
    if (t.gathering && t.gathering.state !== "started" && !t.seat && !t.pub) return [nav, ...gatheringRoom(t)];
    if ((t.seat || t.pub) && marks.firstState === null) marks.firstState = performance.now();
    const drawn = t.seat && marks.firstSeat === null;
    // "Play again" accepted by everyone: the finished table names the next one, and every page watching moves there
    if (t.meta && t.meta.next && t.meta.status === "finished" && guest) moveGuest(guest.key, t.meta.next);
    if (t.meta && t.meta.next && t.meta.status === "finished") setTimeout(() => { if (location.hash === `#/table/${encodeURIComponent(watched)}`) location.hash = `#/table/${encodeURIComponent(t.meta.next)}`; }, 0);
    const onRematch = link && link.user ? (id) => { via(id).request("rematch", { table: id }); } : null;
    for (const [id, ask] of seatAsks) {   // "Leave table" / "Let the computer play": a refusal or a count shows here
      const reply = store.replies.get(id);
      if (!reply) continue;
      seatAsks.delete(id);
      const at = store.table(ask.table);
      if (reply.type === "error") at.error = reply;
      else if (reply.type === "handed_over" && !reply.done) at.notice = tr("table.hand-asked", { who: ask.who, asks: reply.asks, needed: reply.needed });
      else at.notice = null;
    }
    const seatAsk = (id, type, fields, who) => {
      try { seatAsks.set(via(id).request(type, { table: id, ...fields }), { table: id, who }); } catch (err) { store.table(id).error = { code: "client", detail: err.message }; }
      store.table(id).notice = null;
      render();
    };
    const onLeave = link && link.user ? (id) => seatAsk(id, "leave", {}, null) : null;
    const onHandOver = link && link.user ? (id, seat) => seatAsk(id, "hand_over", { seat }, seatLabel(t.meta, seat)) : null;
    const chat = { user: link && link.user ? link.user : null, send: (body) => via(t.id).chat(t.id, body) };
    const body = renderTable(t, { onMove: link && link.user ? onMove : null, onReclaim: (id) => via(id).reclaim(id), onRematch, onLeave, onHandOver, ui, now: () => performance.now(), refresh: render, chat });
    const sent = ui.sent && ui.sent.table === watched && t.seat && t.seat.seq === ui.sent.seq
      && (t.seat.epoch || 0) === ui.sent.epoch
      ? h("p", { class: "sent", role: "status" }, tr("table.sent", { move: ui.sent.move })) : null;
    const trouble = cells ? cells.trouble(watched) : null;   // the table's cell's connection, when it is not the home one
    const shown = trouble || store.connection;
    const conn = shown.state !== "online"
      ? h("p", { class: `connection conn-${shown.state}`, role: "status" }, shown.detail) : null;
    // Opened from a link without being logged in: offer the login here too (after the
    // table when watching anonymously, before it when there is nothing to show yet).
    const login = !link || !link.user ? loginForm() : null;
    if (drawn) requestAnimationFrame(() => { if (marks.firstSeat === null) marks.firstSeat = performance.now(); });   // once painted
    return link ? [nav, conn, sent, ...body, login] : [nav, login, ...body];
  });
}

// Take an open seat (the lobby's "Open tables to join", a waiting room's "Sit here").
function sit(table, seat) {
  try {
    sitting.request = via(table).request("sit", { table, seat });
    sitting.table = table;
  } catch (err) { store.table(table).error = { code: "client", detail: err.message }; }
  render();
}

function gatheringRoom(t) {
  const g = t.gathering;
  const me = link ? link.user : null;
  const creator = me && me === g.creator;
  if (creator && !store.invites.has(g.table) && !askedInvites.has(g.table) && link.client && link.client.connected) {
    askedInvites.add(g.table);   // the codes went to the creator's reply topic at creation; a reload asks again
    via(g.table).request("invites", { table: g.table });
  }
  for (const [id, r] of renewing) {   // "New link" answered: the new code is in store.invites, or the refusal shows
    const reply = store.replies.get(id);
    if (!reply) continue;
    renewing.delete(id);
    renewState(r.table, r.seat, reply.type === "invites" ? "done" : null);
    if (reply.type !== "invites") t.error = reply;
  }
  const mySeat = guest && guest.cred.table === g.table ? guest.cred.seat
    : (g.seats.find((s) => s.kind !== "computer" && s.kind !== "invite" && s.name === me) || { seat: null }).seat;   // a person named, or an open seat taken
  const body = renderGathering(g, { me, guest: !!(link && link.guest), mySeat, invites: store.invites.get(g.table) || null,
    refresh: render, ui, onSit: (seat) => sit(g.table, seat),
    onCancel: () => { via(g.table).request("close", { table: g.table, reason: tr("gather.cancel-reason") }); },
    onLeave: () => { via(g.table).request("leave", { table: g.table }); },
    onRenew: (seat) => {
      renewing.set(via(g.table).request("invites", { table: g.table, renew: [seat] }), { table: g.table, seat });
      renewState(g.table, seat, "pending");
      render();
    } });
  const err = t.error ? h("div", { class: "error", role: "alert" }, errorWords(t.error)) : null;
  return [err, ...body, !link || !link.user ? loginForm() : null];
}

// The language switch: names the other language in its own words ("Français" / "English").
function langSwitch() {
  const other = lang() === "en" ? "fr" : "en";
  return h("button", { type: "button", class: "small lang-switch", lang: other, dataset: { key: "lang", lang: other },
    "aria-label": tr("nav.lang-switch", { lang: LANG_NAMES[other] }),
    on: { click: () => { setLang(other); silence(); render(); } } }, LANG_NAMES[other]);
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(render);
}

async function main() {
  // An invite code leaves the address bar first, before anything is fetched or imported
  // (config.json, the games' modules): a slow start must not leave it there to be copied.
  const invited = takeInvite();
  await loadConfig();
  store.listeners.add(schedule);
  store.listeners.add(() => updateTurns(store, link));   // the title and notifications: also in the background
  document.addEventListener("visibilitychange", () => updateTurns(store, link));
  window.addEventListener("hashchange", () => { silence(); updateTurns(store, link); if (takeInvite()) { ended = null; joinInvite(); } else render(); });
  // A broker the server's Content-Security-Policy does not list: say so (it would otherwise
  // look like an unreachable broker, retried for ever).
  document.addEventListener("securitypolicyviolation", (e) => {
    if (e.effectiveDirective !== "connect-src" || !link) return;
    link.client.end(true);
    link.setConnection("error", tr("conn.csp", { url: e.blockedURI }));
  });
  setInterval(() => { tickClocks(root, () => performance.now()); tickAway(root); }, 250);
  const resumed = activeGuest();
  if (invited) await joinInvite();
  else if (resumed && config.broker && !location.hash.startsWith("#/join")) {
    const at = location.hash;   // a reload of a guest's tab: the same guest, on the same screen
    connectGuest(resumed.key, resumed.cred);
    if (at.startsWith("#/table/")) location.hash = at;
  } else if (savedDevice() && config.broker) connectDevice(savedDevice());   // signed in on this device
  else if (config.login === "none" && config.user) connect({ url: config.broker, username: config.user });
  else if (config.edge) connect({ url: config.edge });
  render();
  marks.ready = performance.now();
}

main();

// A New table in the least-loaded reachable cell; when none can be reached, the words
// (js/newtable.js shows them as its error and keeps the form as typed).
function placed(cells, link, type, fields) {
  const where = cells.place();
  if (where === false) throw new Error(tr("err.page.no-cell"));
  return cells.request(where, link, type, fields);
}
