// Cells (issue 27, protocol/README.md "Cells"): a deployment of several brokers, a table on
// one of them for its life.  The page keeps its home connection (config.json's `broker` or
// `edge`) and opens one more per other cell it uses, following a table there.
//
// Where a connection may go comes from config.json's `cells` map ({name: {broker, edge}},
// ws URLs, written by `summon web` from the profile) and from nowhere else: a table's
// `meta.cell` (or `created.cell`) only *names* its cell, and the page looks the name up in
// that map.  So a link, or a message on a broker, cannot send a password to a stranger: a
// cell the map does not list is shown in words and not followed.
//
// Finding a table from a link: its retained `meta` is on its cell's broker only.  Until the
// page has a meta for the table it watches, it watches it on every listed cell at once (one
// connection each, same account); the cell whose broker has the meta is the table's, and
// the connections opened only to look are closed as soon as the table is found.
//
// The lobby of every cell: config.json's `lobby` is the lobby edge (referee/lobbyconf.py),
// an anonymous read-only broker bridged in from every cell's edge with the tables' metas,
// tournaments and each cell's referee status (`cells/<cell>/referee/status`), never the
// per-move feed.  The lobby screen opens one anonymous connection there (`openLobby`); a
// table listed from it names its cell in its meta, so opening it follows it as above.
//
// Where the page's own "New table" goes (`place`): the cell whose referee, by the lobby's
// statuses, is online with the fewest tables (ties: the map's order) -- the rule of
// `summon create` (clients/cells.py `place`) -- and the home cell when the page has no
// lobby.  The request goes to that cell's referee on that cell's broker, with the player's
// own account (every cell's broker has the same accounts): identity stays the broker's.

import { Link } from "./link.js";

export class Cells {
  // store: the page's one store (every connection feeds it); config: config.json's settings.
  constructor(store, config) {
    this.store = store;
    this.map = config.cells && typeof config.cells === "object" ? config.cells : {};
    this.prefix = config.prefix;
    this.home = Object.keys(this.map).find((n) => this.map[n].broker === config.broker ||
      (config.edge && this.map[n].edge === config.edge)) || null;
    this.links = new Map();   // cell name -> Link (narrow: its tables, seats and replies only)
    this.looking = new Set(); // cell names whose connection is open only to find a table
    this.creds = null;        // {username, password} of the home link (an account), or null: watching
    this.lobbyUrl = typeof config.lobby === "string" ? config.lobby : "";
    this.lobby = null;        // the lobby edge's Link (anonymous), while the page shows the lobby
  }

  // The lobby edge's connection: every cell's tables in the store, each meta naming its cell.
  openLobby() {
    if (!this.lobbyUrl || this.lobby) return this.lobby;
    this.lobby = new Link(this.store, { prefix: this.prefix, lobby: true, url: this.lobbyUrl }).connect();
    return this.lobby;
  }

  // Every other cell where I sit at a table in play (the lobby's metas name it): its
  // connection, so my seat there is known ("Your turn" in the lobby, the page's title).
  openMine(me) {
    if (!this.creds || !me) return;
    for (const t of this.store.tables.values()) {
      const c = t.meta && t.meta.status === "playing" && t.meta.players.includes(me) ? t.meta.cell : null;
      if (c && c.name !== this.home && this.map[c.name] && this.map[c.name].broker) {
        this.looking.delete(c.name);   // kept: it is in use
        this.open(c.name);
      }
    }
  }

  // The cell a new table of this page goes to, or null (the home cell's broker: one cell, or
  // no lobby), or false: the lobby lists cells and none is both online and reachable (a cell
  // whose bridges say "0" is skipped: its referee's last status may still say online).
  place() {
    if (!this.active || !this.creds) return null;
    const live = Object.keys(this.map).map((name, i) => ({ name, i, s: this.store.cellStatus.get(name) }))
      .filter((c) => c.s && c.s.status === "online" && this.map[c.name].broker && !this.store.cellDown.has(c.name));
    if (!live.length) return this.store.cellStatus.size ? false : null;   // false: no cell can be reached
    live.sort((a, b) => (a.s.tables - b.s.tables) || (a.i - b.i));
    return live[0].name;
  }

  // Send a request to cell `name`'s referee (null: home); its id.  A cell connection just
  // opened sends it once connected, after its reply subscription (made in its own
  // on("connect"), registered first), so the answer cannot come before we listen.
  request(name, home, type, fields) {
    if (!name || name === this.home || !this.map[name]) return home.request(type, fields);
    const l = this.open(name);
    if (l.client.connected) return l.request(type, fields);
    const id = Math.random().toString(16).slice(2, 14);
    l.client.once("connect", () => l.request(type, fields, id));
    return id;
  }

  get active() { return Object.keys(this.map).length > 0; }

  // The home link changed (log-in, log-out, watch): the cells' connections follow it.
  reset(home) {
    for (const l of this.links.values()) l.close();
    if (this.lobby) this.lobby.close();   // the store was emptied: the lobby reopens (its retained metas again)
    this.lobby = null;
    this.links.clear();
    this.looking.clear();
    // a device login (js/device.js) is its home broker's only: another cell's broker refuses it
    this.creds = home && home.user && !home.guest
      ? { username: home.opts.username, password: home.opts.password, user: home.user } : null;
    this.anonymous = !!home && !home.user;
  }

  // The cell `table` is in, as the referee named it (meta, else the created reply), or null.
  cellOf(table) {
    const t = this.store.tables.get(table);
    if (!t) return null;
    return (t.meta && t.meta.cell) || t.createdCell || null;
  }

  // The connection to send to for `table`: its cell's, when the page follows it there.
  linkFor(table, home) {
    const cell = this.cellOf(table);
    return cell && cell.name !== this.home && this.links.has(cell.name) ? this.links.get(cell.name) : home;
  }

  // Whether the page can reach `name`'s broker with what it has (an account or anonymous).
  reachable(name) {
    const c = this.map[name];
    return !!c && (this.creds ? !!c.broker : this.anonymous && !!c.edge);
  }

  open(name) {
    if (this.links.has(name)) return this.links.get(name);
    const c = this.map[name];
    const opts = this.creds ? { url: c.broker, username: this.creds.username, password: this.creds.password, user: this.creds.user }
      : { url: c.edge };
    const l = new Link(this.store, { prefix: this.prefix, cell: name, ...opts }).connect();
    this.links.set(name, l);
    return l;
  }

  // Called on every render of a table screen: follow `table` to its cell, or look for it.
  // Returns the words to show when the table's cell cannot be followed, else null.
  follow(table, home) {
    if (!this.active || !home || home.guest || !table) return null;
    const cell = this.cellOf(table);
    const t = this.store.tables.get(table);
    if (cell || (t && t.meta)) {   // found (a meta without a cell: a one-broker referee, at home)
      for (const name of [...this.looking]) {   // stop looking elsewhere
        if (cell && name === cell.name) continue;
        this.looking.delete(name);
        const l = this.links.get(name);
        this.links.delete(name);
        if (l) l.close();
      }
      if (!cell || cell.name === this.home) return null;
      this.looking.delete(cell.name);
      if (!this.map[cell.name]) return { cell: cell.name, known: false };
      if (!this.reachable(cell.name)) return { cell: cell.name, known: true };
      this.open(cell.name).watch(table);
      return null;
    }
    for (const name of Object.keys(this.map)) {
      if (name === this.home || !this.reachable(name)) continue;
      if (!this.links.has(name)) this.looking.add(name);
      this.open(name).watch(table);
    }
    return null;
  }

  unwatch(table) {
    for (const l of this.links.values()) l.unwatch(table);
  }

  // The connection of the cell `table` is in, when it is not online (its words), else null.
  trouble(table) {
    const cell = this.cellOf(table);
    const l = cell ? this.links.get(cell.name) : null;
    return l && l.connection && l.connection.state !== "online" ? l.connection : null;
  }
}
