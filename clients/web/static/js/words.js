// What the page says in words: error codes, event lines, statuses.  Presentation only:
// every fact comes from the referee's messages (protocol/README.md "Error codes").

const ERRORS = {
  "move/stale": "That move was for an earlier position: the table moved on before it arrived. Choose again.",
  "move/not-your-turn": "It is not your turn.",
  "move/illegal": "That move is not allowed now.",
  "move/unparseable": "The referee did not understand that move.",
  "table/finished": "This game is over; no more moves are accepted.",
  "table/unknown": "The referee has no such table.",
  "seat/unknown": "You have no seat at this table.",
  "rate/limited": "Too many refused messages: slow down, then choose again.",
  "auth/forbidden": "You may not do that.",
  "chat/not-seated": "Only the players at this table can chat; everyone watching can read.",
  "chat/too-long": "That message is too long: at most 300 characters. Not sent.",
  "chat/empty": "Type something first.",
  "chat/bad-text": "That message holds a character that cannot be sent (a line break or a control character).",
  "chat/unknown-preset": "The referee does not know that phrase.",
  "table/budget": "You have started enough tables for now.",
  "table/bad-config": "The referee cannot start that table.",
};

// A chat refusal in words: "rate/limited" means something else for chat than for moves.
export function chatErrorWords(err) {
  if (err.code === "client") return err.detail;   // the page's own check, already in words
  if (err.code === "rate/limited") return "You are sending messages too fast: wait a moment, then send again.";
  return errorWords(err);
}

export function errorWords(err) {
  const plain = ERRORS[err.code] || `The referee refused a message (${err.code}).`;
  return err.detail ? `${plain} (${err.detail})` : plain;
}

export const SEAT_NAMES_4 = ["North", "East", "South", "West"];

export function seatLabel(meta, seat) {
  const name = meta && meta.players ? meta.players[seat] : null;
  // a computer seat (referee/playertables.py names it computer-<n>): say so in words
  if (name && /^computer-\d+$/.test(name) && (meta.bots || []).includes(name)) return `Computer ${name.slice(9)}`;
  return name ? `${name}` : `seat ${seat}`;
}

// Referee events shared by every game (protocol/README.md "Referee events").
export function refereeEventText(e, meta) {
  const who = (s) => seatLabel(meta, s);
  switch (e.type) {
    case "timeout": return `${who(e.seat)} ran out of time: the ${e.by === "random" ? "referee" : "house bot"} moved for them.`;
    case "autoplay": return `The house bot plays for ${who(e.seat)}.`;
    case "house": return `The house bot takes ${who(e.seat)}'s seat (${e.reason === "absent" ? "away too long" : "repeated timeouts"}); they can take it back at any time.`;
    case "reclaim": return `${who(e.seat)} is back in their seat.`;
    case "interrupted": return "The referee is stopping; the game will resume when it restarts.";
    case "resumed": return "The referee is back; the game resumes.";
    case "closed": return `A director closed this table${e.reason ? `: ${e.reason}` : ""}.`;
    default: return null;
  }
}

export function statusWords(status) {
  return { playing: "in play", finished: "finished", closed: "closed by a director", interrupted: "interrupted (referee stopping)" }[status] || status;
}

// Why a game ended, in words (each engine's SPEC.md lists its reasons).
const REASONS = {
  target: "reached the target score", "tie-bidder-wins": "both past the target and tied: the bidding team wins",
  "hand-limit": "after the agreed number of hands", "hand-limit-draw": "a draw after the agreed number of hands",
  "lowest-positive": "the lowest score above zero", "closest-to-zero": "closest to zero",
  "no-positive-score": "nobody scored above zero", hands: "after the agreed number of hands",
  "all-chips": "one player has every chip",
};

export function reasonWords(reason) { return REASONS[reason] || reason; }
