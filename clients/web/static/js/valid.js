// What the page can read: one shape per message type, checked once, where a message enters
// the store (applyMessage), so no screen ever meets a field of the wrong kind.
//
// Why here and not in each screen: anyone allowed to publish a retained message (a
// director's tournament, a broker without our ACL, the demo's open broker) could otherwise
// break every lobby that receives it -- `t.pairings.map is not a function` was one such
// message.  A message that does not fit is ignored and logged (console.warn), and the
// last good one stays on screen.  The shapes follow protocol/README.md; fields a newer
// referee adds are allowed (a message is checked for what the page uses, not closed).

const str = (x) => typeof x === "string";
const int = (x) => Number.isInteger(x);
const num = (x) => typeof x === "number" && Number.isFinite(x);
const bool = (x) => typeof x === "boolean";
const map = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
const opt = (test) => (x) => x === undefined || x === null || test(x);
const list = (test) => (x) => Array.isArray(x) && x.every((item) => test(item));
const nullable = (test) => (x) => x === null || test(x);

// shape({field: test}): a map whose every listed field passes its test (opt: may be
// absent or null).
const shape = (fields) => (x) => whatIsWrong(fields, x) === null;

// The first field of `x` that fails its test (for the log line), or null.
function whatIsWrong(fields, x) {
  if (!map(x)) return "the message is not a map";
  for (const [key, test] of Object.entries(fields)) if (!test(x[key])) return key;
  return null;
}

const clock = shape({ remaining_ms: opt(list(nullable(num))), bank_ms: opt(list(nullable(num))),
                      running: opt(list(int)), move_ms: opt(num) });
const event = shape({ type: str });
const state = { table: str, game: str, seq: int, status: str, to_move: opt(list(int)), view: opt(map),
                events: opt(list(event)), clock: opt(clock), epoch: opt(int) };

// A chat line: `text` is shown as a text node (ui.js `h`), never as markup.
const chatLine = { table: opt(str), n: int, user: str, seat: opt(int), seq: opt(int), text: str, at: opt(num),
                   preset: opt(str) };

// A table's cell (protocol/README.md "Cells"): a name the page looks up in config.json (js/cells.js).
const cell = shape({ name: str, broker: str, edge: opt(str) });

const SHAPES = {
  referee_status: { status: str, tables: opt(num), bot_ratings: opt(map),
                    games: opt(list(shape({ name: str, title: str, min_seats: int, max_seats: int, options: list(map), levels: opt(list(map)) }))),
                    gatherings: opt(list(shape({ table: str, game: str, title: opt(str), creator: str, open: list(int),
                                                 waiting: opt(int), seated: opt(list(str)), expires: opt(num) }))) },
  created: { request_id: str, table: str, waiting: opt(bool), invites: opt(map), cell: opt(cell) },
  seated: { request_id: str, table: str, seat: int },
  left: { request_id: str, table: str, seat: int, then: str },
  handed_over: { request_id: str, table: str, seat: int, done: bool, asks: opt(int), needed: opt(int) },
  invites: { request_id: str, table: str, invites: map },
  gathering: { table: str, game: str, title: opt(str), creator: str, state: str, expires: opt(num),
               seats: list(shape({ seat: int, kind: str, name: opt(str), level: opt(str) })) },
  meta: { table: str, game: str, players: list(str), status: str, config: opt(map),
          result: opt(shape({ scores: list(num), winners: opt(list(int)), reason: opt(str) })),
          bots: opt(list(str)), house: opt(list(int)), clock: opt(map), rematch: opt(list(int)), next: opt(str),
          away: opt(list(shape({ seat: int, since: num }))), names: opt(map), cell: opt(cell),
          left: opt(list(int)), host: opt(str) },
  public_state: state,
  seat_state: { ...state, seat: int, legal: opt(list(str)), house: opt(bool), last: opt(map) },
  events: { table: str, seq: int, events: list(event), epoch: opt(int) },
  error: { code: str, detail: opt(str), table: opt(str), ref: opt(str) },
  chat_line: chatLine,
  chat_log: { table: str, lines: list(shape(chatLine)) },
  my_games: { request_id: str, more: opt(bool), ratings: map,
              games: list(shape({ table: str, game: str, title: opt(str), finished: num, players: list(str), seat: int,
                                  computer: opt(map), rated: opt(bool), bots: opt(list(int)),
                                  result: shape({ outcome: str, place: opt(int), sides: opt(int), partners: list(int), score: opt(num),
                                                  others: list(shape({ seats: list(int), score: opt(num) })) }) })) },
  device_account: { request_id: str, user: str, login: str, secret: str, label: str },
  device_list: { request_id: str, devices: list(shape({ login: str, label: str, created: str })) },
  bot_account: { request_id: str, user: str, owner: str, password: str },
  bot_list: { request_id: str, bots: list(shape({ user: str, created: str })) },
  replay_part: { request_id: str, table: str, part: int, parts: int, frames: list(shape({ seq: int, topic: str, message: map })),
                 head: opt(map) },
  tournament: {
    tournament: str, name: opt(str), game: opt(str), format: opt(str), status: str, round: opt(int), rounds: opt(int),
    standings: opt(list(shape({ entrant: str, rank: opt(num), points: opt(num), played: opt(num), wins: opt(num),
                                draws: opt(num), losses: opt(num), net: opt(num), withdrawn: opt(bool) }))),
    pairings: opt(list(shape({ sides: list(str), table: opt(str), status: opt(str), scores: opt(list(num)) }))),
    entry_until: opt(int), entrants: opt(list(str)),
  },
  entered: { request_id: str, director: str, tournament: str, action: str },
};

// null when the page can read `m` (a decoded message of a type it knows), else the field
// that is wrong (for the log).  A type the page does not know is not its business: null.
export function unreadable(m) {
  const fields = SHAPES[m.type];
  return fields ? whatIsWrong(fields, m) : null;
}
