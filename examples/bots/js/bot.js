// A Summon bot in JavaScript, from protocol/README.md alone: plays a random legal move at
// every table where its username is seated, for ever.  Configuration from the environment
// (what `summon bot-check` and `summon match` set): SUMMON_BROKER, SUMMON_USER,
// SUMMON_PASSWORD, SUMMON_PREFIX, and SUMMON_CELLS when the deployment has several cells
// (brokers): one more connection to each, the same account on all, and every table's
// moves sent on the connection its states came from.  SUMMON_ENTER=DIRECTOR/TOURNAMENT:
// enter that tournament (its entries must be open) with an `entry` request on this bot's
// own connection, and print the answer (docs/tournaments.md, "Open entry").
const mqtt = require("mqtt");
const { encode, decode } = require("@msgpack/msgpack");

const url = process.env.SUMMON_BROKER || "mqtt://127.0.0.1:1883";
const user = process.env.SUMMON_USER;
const prefix = process.env.SUMMON_PREFIX || "summon/v1";
if (!user) { console.error("set SUMMON_USER (and SUMMON_PASSWORD, SUMMON_BROKER)"); process.exit(2); }

const enter = process.env.SUMMON_ENTER ? process.env.SUMMON_ENTER.split("/") : null;
const replyTopic = `${prefix}/ctl/${user}/reply`;
let entrySent = false;

const latest = new Map();    // table -> newest seat_state seen (never act on an older one)
const answered = new Map();  // table -> {seq, move} we last sent

// The home broker, then every other cell SUMMON_CELLS names ({"cell": "mqtt://HOST:PORT"}).
const sameBroker = (a, b) => { const x = new URL(a), y = new URL(b); return x.hostname === y.hostname && x.port === y.port; };
let urls;
try {
  const cells = JSON.parse(process.env.SUMMON_CELLS || "{}");
  if (!cells || typeof cells !== "object" || Array.isArray(cells)) throw new Error("not a JSON object");
  urls = [url, ...Object.values(cells).filter((u) => !sameBroker(String(u), url))];
} catch (err) {
  console.error('SUMMON_CELLS must be {"cell name": "mqtt://HOST:PORT", ...}:', String(err));
  process.exit(2);
}

function send(client, table, seq, move) {
  answered.set(table, { seq, move });
  // QoS 1, never retained; seq is a whole number, so msgpack encodes it as an integer
  client.publish(`${prefix}/t/${table}/move/${user}`, Buffer.from(encode({ v: 1, type: "move", seq, move })),
                 { qos: 1, retain: false });
}

const pick = (legal) => legal[Math.floor(Math.random() * legal.length)];   // your strategy here
const myTurn = (st) => st.status === "playing" && st.to_move.includes(st.seat) && st.legal.length > 0;

function connect(to) {
  const client = mqtt.connect(to, {
    username: user, password: process.env.SUMMON_PASSWORD, clientId: user,
    protocolVersion: 4, clean: true, reconnectPeriod: 1000,
  });

  client.on("connect", () => {   // runs again after every reconnect: resubscribe
    client.subscribe(`${prefix}/t/+/seat/${user}/#`, { qos: 1 });
    if (enter && to === url && !entrySent) {   // once, on the home broker: where the tournament is
      entrySent = true;
      client.subscribe(replyTopic, { qos: 1 });
      const entry = { v: 1, type: "entry", request_id: `entry-${Date.now()}`, director: enter[0], tournament: enter[1], action: "enter" };
      client.publish(`${prefix}/ctl/${user}/request`, Buffer.from(encode(entry)), { qos: 1, retain: false });
    }
  });

  client.on("message", (topic, payload) => {
    try {
      if (payload.length === 0) return;                       // a deleted retained message
      if (topic === replyTopic) {                              // the answer to our entry: entered, or refused in words
        const m = decode(payload);
        if (m.type === "entered" || m.type === "error") console.log("entry:", JSON.stringify(m));
        return;
      }
      const parts = topic.split("/");                          // <p>/t/<table>/seat/<user>/<kind>
      const kind = parts.pop(), who = parts.pop();
      if (who !== user || parts.pop() !== "seat") return;      // only our own seat topics
      const m = decode(payload);
      if (m.v !== 1) return;
      const st = latest.get(m.table);
      if (kind === "state" && m.type === "seat_state") {
        if (st && m.seq < st.seq && (m.epoch || 0) === (st.epoch || 0)) return;   // a late, older state (a new epoch: restored)
        latest.set(m.table, m);
        if (!myTurn(m)) return;                                // finished tables are history, not a turn
        const prev = answered.get(m.table);
        // the same state again (reconnect, referee restart): our move may be lost, send it again
        send(client, m.table, m.seq, prev && prev.seq === m.seq ? prev.move : pick(m.legal));
      } else if (kind === "error" && m.type === "error") {
        console.log("refused:", m.code, m.detail);
        if (!st || m.seq !== st.seq || !myTurn(st)) return;    // the table moved on: a newer state is coming
        if (m.code === "move/illegal" || m.code === "move/unparseable") send(client, m.table, st.seq, pick(st.legal));
        else if (m.code === "rate/limited" && answered.has(m.table)) send(client, m.table, st.seq, answered.get(m.table).move);
      }
    } catch (err) {
      console.log("ignored a message on", topic, String(err));
    }
  });

  client.on("error", (err) => console.log("mqtt:", to, err.message));
  return client;
}

const clients = urls.map(connect);
process.on("SIGTERM", () => { let open = clients.length; for (const c of clients) c.end(false, () => { if (--open === 0) process.exit(0); }); });
