// The driver: N tables x 4 seats against server.js, every seat its own socket.io connection
// (boardgame.io's SocketIO transport keeps one match per socket: `clientInfo` is keyed by the
// socket id), speaking the transport's protocol directly -- `sync` to join, `update` to move,
// the server's `update` with the seat's filtered state back -- rather than boardgame.io's
// Client, which would also replay every move through the game's reducer on the client side:
// a cost that lands on the driver, not the server, and would make the driver the bottleneck.
//
//   node driver.js --port P --server-pid PID --tables N [--phases flat:10,paced:20] [--pace 2]
//
// Prints one JSON line per phase (setup, then each timed phase): moves completed in the
// window, their latencies' p50/p99 (the mover's `update` -> its next `update`, the same span
// benchmarks/referee_load.py times for a seat), the server's CPU (/proc/PID/stat
// utime+stime) and RSS, and the driver's own CPU over the window.
'use strict';

const fs = require('fs');
const { execSync } = require('child_process');
const { performance } = require('perf_hooks');
const { io } = require('socket.io-client');

function args(argv) {
  const out = { port: 8000, tables: 10, phases: 'flat:10,paced:20', pace: 2, serverPid: 0, hands: 1000, seed: 1 };
  for (let i = 2; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    out[key] = key === 'phases' ? argv[i + 1] : Number(argv[i + 1]);
  }
  return out;
}

const CLK_TCK = Number(execSync('getconf CLK_TCK').toString().trim()) || 100;

function serverCpu(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop().trim().split(/\s+/);
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

function serverRssKiB(pid) {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** RSS after asking the server for a full GC (server.js under --expose-gc; otherwise a no-op). */
async function liveRssKiB(pid) {
  process.kill(pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, 300));
  return serverRssKiB(pid);
}

function driverCpu() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** p50 and p99 as Python's statistics.quantiles(n=100, method="inclusive") (referee_load's). */
function quantiles(xs) {
  if (xs.length < 3) return [NaN, NaN];
  const s = Float64Array.from(xs).sort();
  const at = (p) => {
    const x = (s.length - 1) * p;
    const i = Math.floor(x);
    return i + 1 < s.length ? s[i] + (s[i + 1] - s[i]) * (x - i) : s[i];
  };
  return [at(0.5), at(0.99)];
}

/** A seeded PRNG (mulberry32): the moves chosen do not depend on Math.random. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function post(base, path, body) {
  const r = await fetch(base + path, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${await r.text()}`);
  return r.json();
}

/** Create a match through the lobby API and join its four seats (credentials per seat). */
async function createTable(base, hands) {
  const { matchID } = await post(base, '/games/trick/create', { numPlayers: 4, setupData: { hands } });
  const creds = [];
  for (let p = 0; p < 4; p++) {
    const j = await post(base, `/games/trick/${matchID}/join`, { playerID: String(p), playerName: `p${p + 1}` });
    creds.push(j.playerCredentials);
  }
  return { matchID, creds };
}

async function inBatches(n, width, make) {
  const out = [];
  for (let i = 0; i < n; i += width) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, k) => make(i + k)))));
  }
  return out;
}

class Seat {
  constructor(driver, matchID, playerID, credentials) {
    Object.assign(this, { driver, matchID, playerID, credentials });
    this.state = null;
    this.pending = null; // [stateID answered, perf time sent]
    this.due = null; // paced: timer
    this.seen = false;
  }

  connect(url) {
    return new Promise((resolve, reject) => {
      this.socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
      this.socket.on('connect', () => this.socket.emit('sync', this.matchID, this.playerID, this.credentials, 4));
      this.socket.on('connect_error', reject);
      this.socket.on('sync', (_m, info) => {
        this.state = info.state;
        resolve();
      });
      this.socket.on('update', (m, state, log) => {
        if (this.driver.updateBytes === 0) this.driver.updateBytes = JSON.stringify([m, state, log]).length;
        this.driver.onUpdate(this, state);
      });
    });
  }

  send() {
    const st = this.state;
    const d = this.driver;
    const card = st.G.legal[Math.floor(d.random() * st.G.legal.length)];
    this.pending = [st._stateID, performance.now()];
    d.sent += 1;
    this.socket.emit('update', {
      type: 'MAKE_MOVE',
      payload: { type: 'play', args: [card], playerID: this.playerID, credentials: this.credentials },
    }, st._stateID, this.matchID, this.playerID);
  }
}

class Driver {
  constructor(opts) {
    this.opts = opts;
    this.random = rng(opts.seed);
    this.seats = [];
    this.phase = null;
    this.updateBytes = 0; // one seat's first `update` message, as JSON: what a move sends each seat
  }

  myTurn(seat) {
    const st = seat.state;
    return !st.ctx.gameover && st.G.legal && st.G.legal.length > 0;
  }

  onUpdate(seat, state) {
    if (seat.state && state._stateID <= seat.state._stateID) return;
    seat.state = state;
    const ph = this.phase;
    if (!ph) return;
    const now = performance.now();
    if (seat.pending && state._stateID > seat.pending[0]) {
      if (seat.pending[1] >= ph.start && now < ph.end) ph.lat.push(now - seat.pending[1]);
      seat.pending = null;
    }
    this.act(seat, now);
  }

  act(seat, now) {
    const ph = this.phase;
    if (now >= ph.end || !this.myTurn(seat)) return;
    if (ph.mode === 'paced') {
      const delay = seat.seen ? this.opts.pace * 1000 : this.random() * this.opts.pace * 1000;
      seat.seen = true;
      const id = seat.state._stateID;
      seat.due = setTimeout(() => {
        if (seat.state._stateID === id && performance.now() < ph.end) this.go(seat);
      }, delay);
      return;
    }
    this.go(seat);
  }

  go(seat) {
    seat.send();
  }

  async run() {
    const o = this.opts;
    const base = `http://localhost:${o.port}`;
    const rss0 = await liveRssKiB(o.serverPid);
    const t0 = performance.now();
    const tables = await inBatches(o.tables, 16, () => createTable(base, o.hands));
    const created = (performance.now() - t0) / 1000;
    for (const t of tables) {
      for (let p = 0; p < 4; p++) this.seats.push(new Seat(this, t.matchID, String(p), t.creds[p]));
    }
    await inBatches(this.seats.length, 64, (i) => this.seats[i].connect(`${base}/trick`));
    const synced = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 500)); // the matchData broadcasts of the last syncs
    console.log(JSON.stringify({
      phase: 'setup', tables: o.tables, created_s: created, synced_s: synced,
      rss_before_kib: rss0, rss_after_kib: await liveRssKiB(o.serverPid),
    }));
    for (const spec of o.phases.split(',')) {
      const [mode, secs] = spec.split(':');
      console.log(JSON.stringify(await this.timed(mode, Number(secs))));
    }
    for (const s of this.seats) s.socket.close();
  }

  async timed(mode, seconds) {
    const o = this.opts;
    this.sent = 0;
    for (const s of this.seats) s.seen = false;
    const start = performance.now() + 200;
    const ph = { mode, start, end: start + seconds * 1000, lat: [] };
    await new Promise((r) => setTimeout(r, start - performance.now()));
    this.phase = ph;
    const c0 = serverCpu(o.serverPid);
    const d0 = driverCpu();
    for (const s of this.seats) this.act(s, performance.now());
    await new Promise((r) => setTimeout(r, Math.max(0, ph.end - performance.now())));
    const used = serverCpu(o.serverPid) - c0;
    const drv = driverCpu() - d0;
    // Every move sent is answered before the next phase starts (referee_load's barrier: the
    // next phase starts on an idle server, and its CPU window holds none of this phase's work).
    const inFlight = () => this.seats.filter((s) => s.pending).length;
    const drainBy = performance.now() + 120000;
    while (inFlight() > 0 && performance.now() < drainBy) await new Promise((r) => setTimeout(r, 10));
    for (const s of this.seats) clearTimeout(s.due);
    this.phase = null;
    const rss = await liveRssKiB(o.serverPid);
    const [p50, p99] = quantiles(ph.lat);
    return {
      phase: mode, tables: o.tables, seconds, moves: ph.lat.length, sent: this.sent, unanswered: inFlight(),
      p50_ms: p50, p99_ms: p99, server_cpu_s: used, driver_cpu_s: drv, server_rss_kib: rss,
      update_bytes: this.updateBytes,
      games_over: this.seats.filter((s) => s.state.ctx.gameover).length / 4,
    };
  }
}

new Driver(args(process.argv)).run().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
