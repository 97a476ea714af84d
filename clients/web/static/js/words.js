// What the page says in words: error codes, event lines, statuses.  Presentation only:
// every fact comes from the referee's messages (protocol/README.md "Error codes").

import { has, t } from "./i18n.js";

// The error codes' words are the catalogues' "err.<code>" keys (js/lang/*.js).

// A chat refusal in words: "rate/limited" means something else for chat than for moves.
export function chatErrorWords(err) {
  if (err.code === "client") return err.detail;   // the page's own check, already in words
  if (err.code === "rate/limited") return t("err.chat-rate");
  return errorWords(err);
}

export function errorWords(err) {
  const plain = has(`err.${err.code}`) ? t(`err.${err.code}`) : t("err.unknown", { code: err.code });
  return err.detail ? `${plain} (${err.detail})` : plain;
}

// Who sits at `seat`, as people call them: a guest's display name (meta.names), else the
// account's name (a bot account's marked "(bot)": meta.bots); a computer seat in words.
export function seatLabel(meta, seat) {
  const shown = meta && meta.names && typeof meta.names[String(seat)] === "string" ? meta.names[String(seat)] : null;
  if (shown) return shown;
  const name = meta && meta.players ? meta.players[seat] : null;
  if (isComputerSeat(meta, seat)) return t("seat.computer", { n: name.slice(9) });
  if (name && (meta.bots || []).includes(name)) return t("seat.bot", { name });   // a bot account (js/bots.js)
  return name ? `${name}` : t("seat.n", { n: seat });
}

// A seat the computer holds from the start (referee/playertables.py names it computer-<n>
// and meta lists it in `bots`), as opposed to a person's seat it stands in for.
export function isComputerSeat(meta, seat) {
  const name = meta && meta.players ? meta.players[seat] : null;
  return !!name && /^computer-\d+$/.test(name) && (meta.bots || []).includes(name);
}

// Every seat's label, in seat order ("grandma, Mom, Computer 4").
export function playerNames(meta) {
  return meta && meta.players ? meta.players.map((_, s) => seatLabel(meta, s)) : [];
}

// Referee events shared by every game (protocol/README.md "Referee events").
export function refereeEventText(e, meta) {
  const who = (s) => seatLabel(meta, s);
  switch (e.type) {
    case "timeout": return t(e.by === "random" ? "ev.timeout-referee" : "ev.timeout-house", { who: who(e.seat) });
    case "autoplay": return t("ev.autoplay", { who: who(e.seat) });
    case "house": return t({ absent: "ev.house-absent", left: "ev.house-left", idle: "ev.house-idle" }[e.reason] || "ev.house-timeouts", { who: who(e.seat) });
    case "reclaim": return t("ev.reclaim", { who: who(e.seat) });
    case "interrupted": return t("ev.interrupted");
    case "resumed": return t("ev.resumed");
    case "closed": return e.reason ? t("ev.closed-why", { reason: e.reason }) : t("ev.closed");
    default: return null;
  }
}

export function statusWords(status) {
  return has(`status.${status}`) ? t(`status.${status}`) : status;
}

// Why a game ended, in words (each engine's SPEC.md lists its reasons).

export function reasonWords(reason) { return has(`reason.${reason}`) ? t(`reason.${reason}`) : reason; }
