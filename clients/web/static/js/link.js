// The page's one MQTT connection, speaking protocol v1 exactly like a bot does
// (protocol/README.md): clean session, QoS 1, resubscribe on every connect, never retain
// (except our own presence, as the protocol asks), moves quote the seq they answer.
//
// The store keeps what the broker told us, per table: meta, public state, this user's
// seat state (highest seq wins), recent events and the last error.  Screens read the
// store and re-render on every change; nothing here knows any game's rules.

import mqtt from "../vendor/mqtt.esm.js";
import { unreadable } from "./valid.js";
import { t as tr } from "./i18n.js";

const { encode, decode } = globalThis.MessagePack;
export const PROTOCOL_VERSION = 1;
const MAX_EVENTS = 60;

export class Store {
  constructor() {
    this.tables = new Map();      // id -> {meta, pub, seat, events: [], error, seen}
    this.tours = new Map();       // topic -> tournament message
    this.referee = null;          // referee_status
    this.cellStatus = new Map();  // cell name -> its referee_status, from the lobby edge (js/cells.js)
    this.cellDown = new Set();    // cell names whose link or edge bridge says "0" (referee/lobbyconf.py)
    this.cellLinks = new Map();   // "<cell>/link" or "<cell>/edge" -> "1" | "0"
    this.replies = new Map();     // request_id -> the referee's `created`, `seated`, `invites` or `error` (js/newtable.js)
    this.invites = new Map();     // table -> {seat: invite code}: the creator's, in memory only (js/gathering.js)
    this.ignored = [];            // the last messages valid.js refused: {topic, type, field}
    this.connection = { state: "idle", detail: "" };
    this.listeners = new Set();
  }
  table(id) {
    if (!this.tables.has(id)) this.tables.set(id, { id, meta: null, pub: null, seat: null, events: [], error: null, seen: 0 });
    return this.tables.get(id);
  }
  changed() { for (const fn of this.listeners) fn(); }
  apply(topic, m) { return applyMessage(this, topic, m); }
  now() { return performance.now(); }
}

function topics(prefix) {
  return {
    status: `${prefix}/referee/status`,
    cellStatus: `${prefix}/cells/+/referee/status`,   // on the lobby edge only
    cellLink: `${prefix}/cells/+/link`,               // the lobby only: each cell's bridges, "1"/"0"
    cellEdge: `${prefix}/cells/+/edge`,
    metas: `${prefix}/t/+/public/meta`,
    tours: `${prefix}/tour/#`,
    seatAll: (user) => `${prefix}/t/+/seat/${user}/#`,
    seatAt: (table, user) => `${prefix}/t/${table}/seat/${user}/#`,
    publicAll: (table) => `${prefix}/t/${table}/public/#`,
    move: (table, user) => `${prefix}/t/${table}/move/${user}`,
    chat: (table, user) => `${prefix}/t/${table}/chat/${user}`,
    presence: (user) => `${prefix}/presence/${user}`,
    request: (user) => `${prefix}/ctl/${user}/request`,
    reply: (user) => `${prefix}/ctl/${user}/reply`,
  };
}

export class Link {
  // opts: {url, username (null = anonymous spectator), password, prefix,
  //        guest: {name} (a guest account: it may read only its own tables' topics, GUESTS.md),
  //        cell: name (a connection to another cell, js/cells.js: its watched tables, seats and
  //              replies only -- the lobby and the page's status stay the home connection's),
  //        lobby: true (the lobby edge, anonymous: every cell's metas, tournaments and, per cell,
  //               `cells/<cell>/referee/status`, kept in store.cellStatus; referee/lobbyconf.py)}
  constructor(store, opts) {
    this.store = store;
    this.opts = opts;
    this.t = topics(opts.prefix);
    this.watching = new Set();
    this.topicsSeen = new Set();   // every topic a message arrived on (tests check what reached us)
    this.client = null;
  }

  // The person: the name in every topic.  `username` is the MQTT login, the same but for a
  // device login (`<user>~<8 hex>`, js/device.js), which acts with its person's rights.
  get user() { return this.opts.user || this.opts.username || null; }
  get guest() { return this.opts.guest || null; }

  // What this connection subscribes to for one watched table: a guest's account may
  // subscribe only to its tables' own topics (no `+`), so it asks for its seat there too.
  tableSubs(table) {
    return this.guest ? [this.t.publicAll(table), this.t.seatAt(table, this.user)] : [this.t.publicAll(table)];
  }

  connect() {
    const { url, username, password } = this.opts;
    const user = this.user;
    const presence = user ? this.t.presence(user) : null;
    const options = {
      protocolVersion: 4, clean: true, reconnectPeriod: 2000, connectTimeout: 10000,
      clientId: username || `web-${Math.random().toString(16).slice(2, 12)}`,
      username: username || undefined, password: password || undefined,
      resubscribe: false,   // we resubscribe ourselves in on("connect"), as the protocol says
    };
    if (presence) options.will = { topic: presence, payload: encode(msg("presence", { status: "offline" })), qos: 1, retain: true };
    this.setConnection("connecting", tr("conn.connecting", { url }));
    const client = mqtt.connect(url, options);
    this.client = client;
    client.on("connect", () => {
      this.connectedAt = performance.now();
      this.setConnection("online", user ? tr("conn.online-as", { url, user }) : tr("conn.online-spectator", { url }));
      const watched = [...this.watching].flatMap((table) => this.tableSubs(table));
      const subs = this.opts.lobby ? [this.t.metas, this.t.tours, this.t.cellStatus, this.t.cellLink, this.t.cellEdge] : this.guest || this.opts.cell ? [...(user ? [this.t.reply(user)] : []), ...watched]
        : [this.t.status, this.t.metas, this.t.tours, ...watched];
      if (user && !this.guest) subs.push(this.t.seatAll(user), ...(this.opts.cell ? [] : [this.t.reply(user)]));
      client.subscribe(subs, { qos: 1 });
      if (presence) client.publish(presence, encode(msg("presence", { status: "online" })), { qos: 1, retain: true });
    });
    client.on("reconnect", () => this.setConnection("connecting", tr("conn.reconnecting", { url })));
    client.on("close", () => {
      const was = this.opts.cell || this.opts.lobby ? this.connection : this.store.connection;
      if (was && was.state === "online") this.setConnection("offline", tr("conn.lost"));
    });
    client.on("offline", () => this.setConnection("offline", tr("conn.unreachable", { url })));
    client.on("error", (err) => {
      const refused = /not authori[sz]ed|bad user ?name or password/i.test(err.message);
      // a guest refused: its table is over (the referee deleted the guest with it)
      // a device login refused: it was signed out (js/device.js); the page drops it
      const words = refused ? (this.guest ? tr("join.ended") : this.opts.device ? tr("device.revoked") : tr("conn.refused")) : err.message;
      if (refused && this.guest) this.refusedGuest = true;
      if (refused && this.opts.device) this.refusedDevice = true;
      this.setConnection("error", words);
      if (/not authori[sz]ed|bad user/i.test(err.message)) client.end(true);  // retrying will not help
    });
    client.on("message", (topic, payload) => this.receive(topic, payload));
    return this;
  }

  setConnection(state, detail) {
    // A closed link speaks no more for the page: MQTT.js reports a publish or subscribe that
    // reaches it while it ends as an "error" ("client disconnecting"), which replaced
    // "Logged out." with those words after a logout.
    if (this.closed) return;
    if (this.opts.cell || this.opts.lobby) this.connection = { state, detail };   // another cell's, or the lobby's (js/cells.js)
    else this.store.connection = { state, detail };
    this.store.changed();
  }

  watch(table) {
    if (this.watching.has(table)) return;
    this.watching.add(table);
    if (this.client && this.client.connected) this.client.subscribe(this.tableSubs(table), { qos: 1 });
  }

  unwatch(table) {
    if (!this.watching.delete(table)) return;
    if (this.guest) return;   // a guest keeps its tables' topics (its seat there among them)
    if (this.client && this.client.connected) this.client.unsubscribe(this.t.publicAll(table));
  }

  // Publish one move: QoS 1, never retained, the seq of the state it answers.
  move(table, seq, move) {
    if (!this.user) throw new Error(tr("conn.spectator-move"));
    this.client.publish(this.t.move(table, this.user), encode(msg("move", { seq, move })), { qos: 1, retain: false });
  }

  // Say something at a table (protocol/README.md "Chat"): {text} or {preset}.  Checked here
  // first (chat.js checks too, in words): the broker disconnects a client that sends a
  // packet over 64 KiB, and the referee refuses a line over 300 characters.
  chat(table, body) {
    if (!this.user) throw new Error(tr("conn.spectator-chat"));
    if (body.text !== undefined && body.text.length > 2000) throw new Error(tr("conn.far-too-long"));
    this.client.publish(this.t.chat(table, this.user), encode(msg("chat", body)), { qos: 1, retain: false });
  }

  reclaim(table) {
    this.client.publish(this.t.move(table, this.user), encode(msg("reclaim", {})), { qos: 1, retain: false });
  }

  // A request on our own request topic (`create`, `rematch`); the answer lands in store.replies.
  request(type, fields, request_id = Math.random().toString(16).slice(2, 14)) {
    if (!this.user) throw new Error(tr("conn.login-first"));
    this.client.publish(this.t.request(this.user), encode(msg(type, { request_id, ...fields })), { qos: 1, retain: false });
    return request_id;
  }

  close() {
    if (!this.client) return;
    this.closed = true;
    const presence = this.user ? this.t.presence(this.user) : null;
    if (presence && this.client.connected) {
      this.client.publish(presence, encode(msg("presence", { status: "offline" })), { qos: 1, retain: true },
        () => this.client.end());
    } else this.client.end(true);
  }

  receive(topic, payload) {
    if (this.firstMessageAt === undefined) this.firstMessageAt = performance.now();
    this.topicsSeen.add(topic);
    if (!payload || payload.length === 0) return;   // a deleted retained message
    if (this.opts.lobby && this.bridgeState(topic, payload)) return;
    let m;
    try { m = decode(payload); } catch (err) { console.warn("undecodable message on", topic, err); return; }
    if (!m || typeof m !== "object" || m.v !== PROTOCOL_VERSION) return;   // unknown versions are ignored
    if (this.opts.lobby && m.type === "referee_status") {   // the lobby edge: one status per cell
      const cell = this.cellOfStatus(topic);
      if (cell && !unreadable(m)) { this.store.cellStatus.set(cell, m); this.store.changed(); }
      return;
    }
    if (!this.mine(topic, m)) {
      console.warn("ignored a message on a topic that is not for it:", topic, m.type);
      return;
    }
    if (this.store.apply(topic, m)) this.store.changed();
    if (m.type === "meta" && this.user && Array.isArray(m.away) && Array.isArray(m.players)
      && m.away.some((a) => a && m.players[a.seat] === this.user)) this.stillHere();
  }

  // A table lists us as away while this connection is up: another tab of ours (a password
  // tab beside a device one, js/device.js) closed and its will said "offline" for us all.
  // Say "online" again, at most every 5 s, so the house bot does not take a seat we hold.
  stillHere() {
    const now = performance.now();
    if (!this.client || !this.client.connected || this.hereAt > now - 5000) return;
    this.hereAt = now;
    this.client.publish(this.t.presence(this.user), encode(msg("presence", { status: "online" })), { qos: 1, retain: true });
  }

  // Act only on messages on the topic their type belongs to, and on seat topics only on our
  // own: a broker without per-user ACLs (the demo's amqtt replays every retained message to
  // everyone on reconnect) would otherwise show another seat's hand as ours.
  // A lobby topic `<p>/cells/<cell>/link|edge` ("1"/"0", Mosquitto's bridge notifications):
  // kept, and the cell marked down while either is "0".  True when the topic was one.
  bridgeState(topic, payload) {
    const p = topic.slice(this.opts.prefix.length + 1).split("/");
    if (!topic.startsWith(`${this.opts.prefix}/`) || p.length !== 3 || p[0] !== "cells" || !["link", "edge"].includes(p[2])) return false;
    const s = this.store;
    s.cellLinks.set(`${p[1]}/${p[2]}`, payload.length === 1 && payload[0] === 0x30 ? "0" : "1");
    const down = s.cellLinks.get(`${p[1]}/link`) === "0" || s.cellLinks.get(`${p[1]}/edge`) === "0";
    if (down !== s.cellDown.has(p[1])) { if (down) s.cellDown.add(p[1]); else s.cellDown.delete(p[1]); s.changed(); }
    return true;
  }

  // The cell a lobby-edge topic `<p>/cells/<cell>/referee/status` names, or null.
  cellOfStatus(topic) {
    const p = topic.slice(this.opts.prefix.length + 1).split("/");
    return topic.startsWith(`${this.opts.prefix}/`) && p.length === 4 && p[0] === "cells" && p[2] === "referee" && p[3] === "status" ? p[1] : null;
  }

  replyTopic(p) { return p.length === 3 && p[0] === "ctl" && p[1] === this.user && p[2] === "reply"; }

  mine(topic, m) {
    const head = `${this.opts.prefix}/`;
    if (!topic.startsWith(head)) return false;
    const p = topic.slice(head.length).split("/");
    const atTable = p[0] === "t" && p[1] === m.table;
    switch (m.type) {
      case "referee_status": return p.length === 2 && p[0] === "referee" && p[1] === "status";
      case "tournament": return p[0] === "tour";
      case "meta": case "public_state": case "events": return atTable && p[2] === "public" && p.length === 4;
      case "chat_line": return atTable && p[2] === "public" && p[3] === "chat" && p.length === 4;
      case "chat_log": return atTable && p[2] === "public" && p[3] === "chat_log" && p.length === 4;
      case "seat_state": return atTable && p[2] === "seat" && p[3] === this.user && p[4] === "state";
      case "error": return (p[0] === "t" && p[2] === "seat" && p[3] === this.user && p[4] === "error") || this.replyTopic(p);
      case "gathering": return atTable && p[2] === "public" && p[3] === "gathering" && p.length === 4;
      case "created": case "seated": case "invites": case "left": case "handed_over": return this.replyTopic(p);
      case "my_games": case "replay_part": return this.replyTopic(p);   // My games (js/mygames.js)
      case "device_account": case "device_list": return this.replyTopic(p);   // js/device.js
      case "entered": return this.replyTopic(p);   // open entry to a tournament (js/lobby.js)
      case "bot_account": case "bot_list": return this.replyTopic(p);   // js/bots.js
      default: return false;
    }
  }
}

// What one decoded message changes in a store (also used by the replay viewer, which feeds
// it the recorded messages of one audience).  Returns false for a message it does not use.
export function applyMessage(store, topic, m) {
    const parts = topic.split("/");
    const wrong = unreadable(m);   // the one gate: a screen only ever sees messages of the documented shape
    if (wrong) {
      console.warn(`ignored a ${m.type} message on ${topic} that this page cannot read (${wrong})`);
      if (store.ignored) {
        store.ignored.push({ topic, type: m.type, field: wrong });
        if (store.ignored.length > 50) store.ignored.shift();
      }
      return false;
    }
    try {
      if (["created", "seated", "invites", "left", "handed_over", "device_account", "device_list", "entered", "bot_account", "bot_list"].includes(m.type) || (m.type === "error" && parts[parts.length - 1] === "reply")) {
        if (!store.replies) return false;
        store.replies.set(m.type === "error" ? m.ref : m.request_id, m);
        if (m.type === "created" && m.cell && store.tables) store.table(m.table).createdCell = m.cell;   // js/cells.js
        if (m.invites && store.invites) store.invites.set(m.table, { ...(store.invites.get(m.table) || {}), ...m.invites });
      } else if (m.type === "my_games" || m.type === "replay_part") {
        if (!store.history) return false;   // js/mygames.js: my own games and replays
        return store.history.receive(m);
      } else if (m.type === "gathering") {
        store.table(m.table).gathering = m;
      } else if (m.type === "referee_status") store.referee = m;
      else if (m.type === "tournament") store.tours.set(topic, m);
      else if (m.type === "meta") store.table(m.table).meta = m;
      else if (m.type === "public_state") {
        const t = store.table(m.table);
        if (!t.pub || newer(m, t.pub)) { backTo(t, m); t.pub = m; t.pubAt = store.now(); }
      } else if (m.type === "events") {
        const t = store.table(m.table);
        backTo(t, m);
        addEvents(t, m.seq, m.events, "public");
      } else if (m.type === "seat_state") {
        const t = store.table(m.table);
        if (!t.seat || newer(m, t.seat)) {
          backTo(t, m);
          const fresh = !t.seat || m.seq !== t.seat.seq || epoch(m) !== epoch(t.seat);
          t.seat = m; t.seatAt = store.now();
          if (fresh && m.events && m.events.length) addEvents(t, m.seq, m.events, "seat");
          if (fresh) t.error = null;
        }
      } else if (m.type === "chat_line") {
        addChat(store.table(m.table), [m], store.now());
      } else if (m.type === "chat_log") {
        addChat(store.table(m.table), m.lines, store.now());
      } else if (m.type === "error") {
        const table = m.table || (parts[2] === "t" ? parts[3] : null);
        // a refused chat message (ref "chat") is the chat panel's business, not the move's
        if (table && m.ref === "chat") store.table(table).chatError = { ...m, at: store.now() };
        else if (table) store.table(table).error = { ...m, at: store.now() };
      } else return false;
    } catch (err) { console.warn("could not use a message on", topic, err); return false; }
    return true;
}

// A table's epoch (protocol/README.md, "Epoch"): 0 until the referee rebuilds the table from
// its store, a new number each time it does.  A state of another epoch replaces ours whatever
// its seq: after a restore from a backup the table comes back at an earlier seq.
const epoch = (m) => m.epoch || 0;
const newer = (m, held) => epoch(m) !== epoch(held) || m.seq >= held.seq;

// A message of a new epoch: the events after its seq were undone by the restore, forget them.
// Gone back (a lower seq than ours): the chat lines after the backup are gone from the referee
// too, and it numbers new lines from its restored count again, so the lines kept by `n` are
// dropped and the retained chat_log it republishes next fills them in.
function backTo(t, m) {
  if (t.epoch === undefined) t.epoch = epoch(m);
  if (epoch(m) === t.epoch) return;
  const held = t.seat || t.pub;
  if (held && m.seq < held.seq) t.chat = null;
  t.epoch = epoch(m);
  t.events = t.events.filter((b) => b.seq <= m.seq);
  t.error = null;
}

// Events reach a player twice (its seat_state's private copy and the public feed) and may
// be delivered again (QoS 1, reconnects): keep one copy of each batch, preferring the seat's
// (it has private parts).  Two batches are the same when they have the same seq and the same
// event types; a referee notice (house bot, reclaim, resumed) shares its seq with the move
// before it but not its types, so it is kept.
function addEvents(t, seq, events, source) {
  const kinds = events.map((e) => e.type).join(",");
  const same = t.events.findIndex((b) => b.seq === seq && b.kinds === kinds);
  if (same >= 0) {
    if (source === "seat" && t.events[same].source === "public") t.events[same] = { seq, events, source, kinds };
    return;
  }
  t.events.push({ seq, events, source, kinds });
  t.events.sort((a, b) => a.seq - b.seq);
  if (t.events.length > MAX_EVENTS) t.events.splice(0, t.events.length - MAX_EVENTS);
}

// Chat lines by `n` (each kept once: a line arrives live and again in the retained log),
// the newest MAX_CHAT kept; `got` is when it first arrived (a refusal shown before one of
// my own lines arrived is over).
const MAX_CHAT = 200;
function addChat(t, lines, now) {
  if (!t.chat) t.chat = new Map();
  for (const line of lines) if (!t.chat.has(line.n)) t.chat.set(line.n, { ...line, got: now });
  if (t.chat.size > MAX_CHAT) {
    const keep = [...t.chat.keys()].sort((a, b) => a - b).slice(-MAX_CHAT);
    t.chat = new Map(keep.map((n) => [n, t.chat.get(n)]));
  }
}

function msg(type, fields) {
  return { v: PROTOCOL_VERSION, type, ...fields };
}
