// A trick-taking game of the same SHAPE as a Dragon table (benchmarks/bgio_compare.py says what
// differs): 4 seats, a shuffled 52-card deck dealt into 4 hidden hands of 13, one card per move
// in turn, follow suit when you can, the trick's highest card of the led suit wins and leads the
// next trick.  A hand is 52 moves; a new hand is dealt after each until `hands` are played, then
// the game is over -- like a Dragon game, a table lives through many hands, so the benchmark's
// tables keep playing for the whole timed phase instead of being re-created inside it.
//
// `playerView` is the per-seat redaction our referee does: a seat sees its own hand and its legal
// moves, and only the sizes of the other hands.
'use strict';

const { INVALID_MOVE } = require('boardgame.io/core');

const SUITS = ['earth', 'wind', 'fire', 'water'];
const RANKS = ['1', '2', '3', '4', '5', '6', '7', '8', 'mage', 'warrior', 'queen', 'king', 'elemental'];
const DECK = SUITS.flatMap((s) => RANKS.map((r) => `${s}-${r}`));
const suitOf = (card) => card.slice(0, card.indexOf('-'));
const rankOf = (card) => RANKS.indexOf(card.slice(card.indexOf('-') + 1));

function deal(random) {
  const deck = random.Shuffle(DECK);
  return [0, 1, 2, 3].map((i) => deck.slice(i * 13, i * 13 + 13).sort(
    (a, b) => SUITS.indexOf(suitOf(a)) - SUITS.indexOf(suitOf(b)) || rankOf(a) - rankOf(b)));
}

/** The cards `seat` may play now: the led suit if it holds one, else any card. */
function legal(G, seat) {
  const hand = G.hands[seat];
  if (G.trick.length === 0) return hand.slice();
  const led = suitOf(G.trick[0].card);
  const follow = hand.filter((c) => suitOf(c) === led);
  return follow.length ? follow : hand.slice();
}

function trickWinner(trick) {
  const led = suitOf(trick[0].card);
  let best = trick[0];
  for (const t of trick) {
    if (suitOf(t.card) === led && rankOf(t.card) > rankOf(best.card)) best = t;
  }
  return best.seat;
}

const Trick = {
  name: 'trick',
  minPlayers: 4,
  maxPlayers: 4,
  setup: ({ random }, setupData) => ({
    hands: deal(random),
    handNo: 1,
    hands_to_play: (setupData && setupData.hands) || 1000,
    trick: [],
    leader: 0,
    next: 0,
    lastTrick: null,
    trickPoints: [0, 0],
    scores: [0, 0],
    tricksPlayed: 0,
    over: false,
  }),
  turn: {
    minMoves: 1,
    maxMoves: 1,
    order: {
      first: () => 0,
      next: ({ G }) => G.next,
    },
  },
  moves: {
    play: ({ G, playerID, random }, card) => {
      const seat = Number(playerID);
      if (!legal(G, seat).includes(card)) return INVALID_MOVE;
      G.hands[seat] = G.hands[seat].filter((c) => c !== card);
      G.trick.push({ seat, card });
      if (G.trick.length < 4) {
        G.next = (seat + 1) % 4;
        return undefined;
      }
      const winner = trickWinner(G.trick);
      G.lastTrick = { cards: G.trick, winner };
      G.trickPoints[winner % 2] += 1;
      G.trick = [];
      G.leader = winner;
      G.next = winner;
      G.tricksPlayed += 1;
      if (G.tricksPlayed === 13) {  // the hand is over: score it, deal the next or end the game
        const team = G.trickPoints[0] >= 7 ? 0 : 1;
        G.scores[team] += G.trickPoints[team] - 6;
        if (G.handNo >= G.hands_to_play) {
          G.over = true;
        } else {
          G.handNo += 1;
          G.hands = deal(random);
          G.trickPoints = [0, 0];
          G.tricksPlayed = 0;
          G.lastTrick = null;
          G.leader = (G.handNo - 1) % 4;
          G.next = G.leader;
        }
      }
      return undefined;
    },
  },
  endIf: ({ G }) => (G.over ? { scores: G.scores } : undefined),
  playerView: ({ G, ctx, playerID }) => {
    const seat = playerID === null || playerID === undefined ? null : Number(playerID);
    const view = {
      handNo: G.handNo,
      trick: G.trick,
      leader: G.leader,
      lastTrick: G.lastTrick,
      trickPoints: G.trickPoints,
      scores: G.scores,
      tricksPlayed: G.tricksPlayed,
      handSizes: G.hands.map((h) => h.length),
    };
    if (seat !== null) {
      view.seat = seat;
      view.hand = G.hands[seat];
      view.legal = !ctx.gameover && Number(ctx.currentPlayer) === seat ? legal(G, seat) : [];
    }
    return view;
  },
};

module.exports = { Trick, legal, trickWinner, DECK };
