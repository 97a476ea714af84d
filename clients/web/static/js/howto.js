// "How to play", in our own words, for each game the page knows, and the one-line hints
// shown at the moments that puzzle newcomers.  What the referee really does is in each
// engine's SPEC.md and RULES-NOTES.md; this text must agree with them.

import { h } from "./ui.js";
import { lang, t as tr } from "./i18n.js";
import { rulesFr } from "./lang/howto.fr.js";

const P = (...parts) => h("p", {}, ...parts);
const B = (t) => h("strong", {}, t);
const LI = (...parts) => h("li", {}, ...parts);

const RULES = {
  dragon: () => [
    P("Four players in two teams: your partner sits opposite you. A hand has 12 tricks; ",
      "the first team to 500 points wins (a table may set a lower target or a number of hands)."),
    h("h3", {}, "The cards"),
    P("Four elements (earth, wind, fire, water), each 1 to 8 then Mage, Warrior, Queen, King and ",
      "Elemental (the highest), plus one Dragon. Each player gets 12 cards; 5 lie face down as the ", B("kitty"), "."),
    h("h3", {}, "Bidding"),
    P("Starting left of the dealer, each player bids how many tricks their team will take (3 to 13) and a ",
      B("designation"), ", or passes for the rest of the hand. Each bid must name more tricks than the last. ",
      "The last player still bidding sets the contract and leads the first trick."),
    h("ul", {},
      LI(B("Earth, wind, fire or water"), ": that element is trump: its lowest card beats any card of another element."),
      LI(B("High no-trump"), ": no trump; the highest card of the suit led wins."),
      LI(B("Low no-trump"), ": no trump; the lowest card of the suit led wins. \u201c8 low\u201d means 8 tricks in low no-trump.")),
    P("Why 13 in a 12-trick hand? ", B("The last trick counts double"), ", so a hand is worth 13 trick points."),
    h("h3", {}, "The option"),
    P("The player who won the bidding then chooses one:"),
    h("ul", {},
      LI(B("Summon"), ": take the Dragon from whoever holds it; they take the kitty instead and both discard back to 12. ",
        "If the Dragon was in the kitty (or the table forbids summoning it from your partner) you take the kitty: ",
        "the page says \u201csummon answered from the kitty\u201d."),
      LI(B("Kitty"), ": take the five kitty cards, then discard any five (never the Dragon)."),
      LI(B("No help"), ": play the cards as dealt, for 25 extra points if you make it.")),
    h("h3", {}, "Playing"),
    P("You must follow the suit led if you can. If you cannot, you must play a trump if you have one; ",
      "only then may you throw off anything. The Dragon is the highest trump. In no-trump it is wild: ",
      "you say which suit it stands for and whether it is the highest or lowest card of it. ",
      "The winner of a trick leads the next."),
    h("h3", {}, "Scoring"),
    P("The bidding team ", B("makes"), " its contract if it takes at least as many trick points as it bid: ",
      "10 points per trick bid, plus 5 for each extra. Otherwise it is ", B("set"),
      ": it loses 10 per trick bid and 5 more for each it fell short. The other team always gets 5 per trick point. ",
      "When the game ends on reaching the target the result says \u201c(target)\u201d."),
  ],
  summicard: () => [
    P("Every player has three ", B("main cards"), " and one ", B("Bomb"), ", face down. One card in the middle, the ",
      B("Boccino"), ", is face up and counts for everyone (its name is the little ball in bowls)."),
    h("h3", {}, "Rounds"),
    P("In turn, each player reveals their next main card. Its score is how far it is from the Boccino ",
      "(a 9 or a 5 against a 7 both score 2). In rounds 2 and 3 you may exchange the card you just revealed ",
      "for the top of the shoe, once per hand."),
    P("Then everyone reveals their Bomb: its distance from the Boccino is ", B("taken away"), " from the sum of the main cards. ",
      "Below zero you are bust."),
    h("h3", {}, "Who wins"),
    P("The ", B("lowest positive"), " final score wins (\u201clowest-positive\u201d in the result): smallest, but above zero. ",
      "Ties draw more cards until one is lower."),
    h("h3", {}, "With chips"),
    P("Everyone pays one chip into the pot; an exchange costs a chip. Before the Bombs are shown, each player looks at their ",
      "own Bomb and bets: the next may see (match), raise, or abandon. The winner takes the pot."),
  ],
  "summoner-wars": () => [
    P("Two summoners fight on a 6 by 8 board. Destroy the other summoner to win."),
    h("h3", {}, "A turn, in six phases"),
    h("ol", {},
      LI(B("Summon"), ": pay magic to put units from your hand next to one of your gates."),
      LI(B("Move"), ": move up to three units, up to two spaces each (not diagonally)."),
      LI(B("Build"), ": pay magic to place a gate."),
      LI(B("Attack"), ": up to three units attack; roll one die per strength point, each hit deals one damage. ",
        "A unit dies when its damage reaches its life."),
      LI(B("Magic"), ": discard cards from your hand to gain one magic each."),
      LI(B("Draw"), ": draw up to five cards.")),
    P("Events are played in the phase their card names. Destroying an enemy card gains you one magic. ",
      "A summoner that attacks nothing in a turn takes one damage. Press \u201cEnd\u201d to finish a phase."),
  ],
};

export const GAME_TITLES = { dragon: "Summon the Dragon", summicard: "Summicard", "summoner-wars": "Summoner Wars" };

// The rules in the page's language (the English RULES above, or lang/howto.fr.js).
let FR = null;
function rulesIn() {
  if (lang() !== "fr") return RULES;
  FR = FR || rulesFr({ h, P, B, LI });
  return FR;
}

function gameTitle(game) { return GAME_TITLES[game] ? tr(`game.${game}`) : game; }

export function hasRules(game) { return Boolean(RULES[game]); }

export function rulesBody(game) {
  return h("div", { class: "rules", dataset: { game } }, RULES[game] ? rulesIn()[game]() : P(tr("howto.none")));
}

// A fold on the table: its open state lives in `ui` so a re-render keeps it open.
export function howtoFold(game, ui) {
  if (!RULES[game]) return null;
  const fold = h("details", { class: "howto panel", open: ui && ui.howto ? true : null, dataset: { key: "howto" } },
    h("summary", { dataset: { key: "howto-summary" } }, tr("howto.title", { game: gameTitle(game) })), rulesBody(game));
  fold.addEventListener("toggle", () => { if (ui) ui.howto = fold.open; });
  return fold;
}

// The page behind the lobby's links (#/rules/<game>).
export function rulesPage(game) {
  return [h("h1", {}, tr("howto.title", { game: gameTitle(game) })), h("section", { class: "panel" }, rulesBody(game)),
    h("p", {}, h("a", { href: "#/", dataset: { key: "rules-back" } }, tr("howto.back")))];
}

export function rulesLinks() {
  return h("p", { class: "rules-links" }, `${tr("howto.links")} `,
    Object.keys(RULES).map((g, i) => [i ? " · " : "", h("a", { href: `#/rules/${g}`, dataset: { key: `rules:${g}` } }, gameTitle(g))]));
}

// One line at the moments that confuse newcomers.
// (their words are the catalogues' "hint.<moment>" keys, read in the page's language when shown)
export const HINTS = new Proxy({}, { get: (_, k) => tr(`hint.${String(k)}`) });
