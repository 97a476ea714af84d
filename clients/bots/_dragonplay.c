/* Summon the Dragon card play on bitmasks, in C: the greedy rollout, an exact solver, an
 * exactly uniform deal sampler and playouts by players who cannot see the other hands.
 *
 * Why C: a search bot plays thousands of hands per decision, and the Python loop of
 * referee/games/dragon/fast.py costs ~350 us per greedy rollout from the first trick, so
 * a textbook PIMC (40 deals) already spends ~26 ms of CPU per decision on rollouts alone.
 * Here the same rollout costs ~5.5 us, and an exact (double-dummy) solve of the last
 * tricks becomes affordable inside every deal.  Nothing here is a new rule: the tables are
 * built the way fast.py builds them, and tests/clients/test_dragon_native.py proves
 * the rollout and the solver identical to their Python twins (fast.rollout / fast._greedy,
 * dragon_solve.solve_points) over thousands of random positions, and the sampler uniform
 * (every consistent deal of an enumerable ending drawn equally often).  Every entry point
 * refuses a position that is not a real one with a ValueError in words, and CI runs those
 * tests against an ASan + UBSan build (tests/clients/test_dragon_native_refusals.py and
 * test_dragon_native_asan.py).
 *
 * Move codes are fast.py's: 0..51 plain cards (suit * 13 + rank), 52 the Dragon in a
 * trump hand, 53 + 2 * suit + (0 high | 1 low) the Dragon declared in no-trump.
 * Modes: 0..3 trump suit, 4 high no-trump, 5 low no-trump.  A hand is a mask of bits
 * 0..52 (bit 52 the Dragon).  "Points" are trick points: one per trick, two for the last
 * (the 12th), 13 in a hand.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t u64;

#define NCODES 61
#define DRAGON 52
#define DBIT (1ULL << 52)
#define NONE_P (-100)
#define MAXC 24

static int POWER[6][4][NCODES];
static int LEDT[6][NCODES];
static u64 SUIT[4];
static u64 CODEBIT[NCODES];

static void init_tables(void)
{
    for (int s = 0; s < 4; s++)
        SUIT[s] = 0x1FFFULL << (13 * s);
    for (int c = 0; c < NCODES; c++)
        CODEBIT[c] = c < 53 ? (1ULL << c) : DBIT;
    for (int mode = 0; mode < 6; mode++) {
        for (int c = 0; c < NCODES; c++) {
            if (c < 52)
                LEDT[mode][c] = c / 13;
            else if (c == DRAGON)
                LEDT[mode][c] = mode < 4 ? mode : -1;
            else
                LEDT[mode][c] = (c - 53) / 2;
        }
        for (int led = 0; led < 4; led++) {
            int *out = POWER[mode][led];
            for (int c = 0; c < NCODES; c++)
                out[c] = NONE_P;
            for (int c = 0; c < 52; c++) {
                int s = c / 13, r = c % 13;
                if (mode < 4) {
                    if (s == mode)
                        out[c] = 50 + r;
                    else if (s == led)
                        out[c] = r;
                } else if (s == led) {
                    out[c] = mode == 4 ? r + 1 : 13 - r;
                }
            }
            if (mode < 4) {
                out[DRAGON] = 100;
            } else {
                out[53 + 2 * led] = mode == 4 ? 14 : 0;
                out[54 + 2 * led] = mode == 4 ? 0 : 14;
            }
        }
    }
}

static inline int ctz64(u64 m) { return __builtin_ctzll(m); }
static inline int pop64(u64 m) { return __builtin_popcountll(m); }

/* fast.legal_mask: the plain codes allowed (mask) and the no-trump Dragon codes (dc). */
static inline u64 legal(u64 hand, int mode, const int *trick, int n, int when_void, int *dc, int *nd)
{
    *nd = 0;
    if (mode < 4) {
        if (!n)
            return hand;
        int led = LEDT[mode][trick[0]];
        if (led != mode) {
            u64 f = hand & SUIT[led];
            if (f)
                return f;
        }
        u64 t = hand & (SUIT[mode] | DBIT);
        return t ? t : hand;
    }
    u64 has_d = hand & DBIT;
    u64 plain = hand & ~DBIT;
    if (!n) {
        if (has_d)
            for (int i = 53; i < 61; i++)
                dc[(*nd)++] = i;
        return plain;
    }
    int led = LEDT[mode][trick[0]];
    u64 follow = plain & SUIT[led];
    if (follow) {
        if (has_d && !when_void) {
            dc[(*nd)++] = 53 + 2 * led;
            dc[(*nd)++] = 54 + 2 * led;
        }
        return follow;
    }
    if (has_d) {
        dc[(*nd)++] = 53 + 2 * led;
        dc[(*nd)++] = 54 + 2 * led;
    }
    return plain;
}

/* fast._can_beat: could ``hand`` beat power ``p`` in a trick led by ``first``? */
static inline int can_beat(u64 hand, int mode, int first, int when_void, const int *P, int p)
{
    int dc[8], nd;
    u64 m = legal(hand, mode, &first, 1, when_void, dc, &nd);
    while (m) {
        int c = ctz64(m);
        m &= m - 1;
        if (P[c] > p)
            return 1;
    }
    for (int i = 0; i < nd; i++)
        if (P[dc[i]] > p)
            return 1;
    return 0;
}

/* fast._sure: no opponent among the ``later`` seats after ``seat`` can beat ``p``. */
static inline int sure(const u64 *hands, int mode, int first, int when_void, const int *P, int p, int seat, int later)
{
    for (int k = 1; k <= later; k++) {
        int s = (seat + k) & 3;
        if (((s ^ seat) & 1) && can_beat(hands[s], mode, first, when_void, P, p))
            return 0;
    }
    return 1;
}

static inline int off_rank(int c, int mode) { return mode == 5 ? 12 - c % 13 : c % 13; }

/* fast._greedy, the greedy rollout policy (perfect information), exactly. */
static int greedy(const u64 *hands, u64 mask, const int *dc, int nd, const int *trick, int n, int leader,
                  int seat, int mode, int when_void)
{
    int codes[MAXC], nc = 0;
    u64 m = mask;
    while (m) {
        codes[nc++] = ctz64(m);
        m &= m - 1;
    }
    for (int i = 0; i < nd; i++)
        codes[nc++] = dc[i];
    if (nc == 1)
        return codes[0];
    int plain[MAXC], np = 0;
    for (int i = 0; i < nc; i++)
        if (codes[i] < 52)
            plain[np++] = codes[i];
    if (!np) {
        memcpy(plain, codes, sizeof(int) * nc);
        np = nc;
    }
    int later = 3 - n;
    if (!n) {
        int best_c = -1, best_p = 1000;
        for (int i = 0; i < nc; i++) {
            int c = codes[i];
            int led = LEDT[mode][c];
            const int *P = POWER[mode][led];
            int p = P[c];
            if (p < best_p && sure(hands, mode, c, when_void, P, p, seat, 3)) {
                best_c = c;
                best_p = p;
            }
        }
        if (best_c >= 0)
            return best_c;
        int bc = plain[0], bk0 = plain[0] / 13 == mode, bk1 = off_rank(plain[0], mode);
        for (int i = 1; i < np; i++) {
            int c = plain[i];
            int k0 = c / 13 == mode, k1 = off_rank(c, mode);
            if (k0 < bk0 || (k0 == bk0 && k1 < bk1)) {
                bc = c;
                bk0 = k0;
                bk1 = k1;
            }
        }
        return bc;
    }
    int first = trick[0];
    int led = LEDT[mode][first];
    const int *P = POWER[mode][led];
    int best = P[first], bi = 0;
    for (int j = 1; j < n; j++) {
        int p = P[trick[j]];
        if (p > best) {
            best = p;
            bi = j;
        }
    }
    /* low(): the cheapest card -- off-suit throws first (by rank), then by power */
    int lowc = plain[0];
    {
        int c = plain[0];
        int bk0 = P[c] > NONE_P, bk1 = P[c] > NONE_P ? P[c] : off_rank(c, mode);
        for (int i = 1; i < np; i++) {
            c = plain[i];
            int k0 = P[c] > NONE_P, k1 = P[c] > NONE_P ? P[c] : off_rank(c, mode);
            if (k0 < bk0 || (k0 == bk0 && k1 < bk1)) {
                lowc = c;
                bk0 = k0;
                bk1 = k1;
            }
        }
    }
    if (((leader + bi) & 1) == (seat & 1) && (!later || sure(hands, mode, first, when_void, P, best, seat, later)))
        return lowc;
    int beats[MAXC], nb = 0;
    for (int i = 0; i < nc; i++)
        if (P[codes[i]] > best)
            beats[nb++] = codes[i];
    if (!nb)
        return lowc;
    /* stable insertion sort by power (powers of beaters are distinct anyway) */
    for (int i = 1; i < nb; i++) {
        int x = beats[i], j = i - 1;
        while (j >= 0 && P[beats[j]] > P[x]) {
            beats[j + 1] = beats[j];
            j--;
        }
        beats[j + 1] = x;
    }
    if (!later)
        return beats[0];
    for (int i = 0; i < nb; i++)
        if (sure(hands, mode, first, when_void, P, P[beats[i]], seat, later))
            return beats[i];
    return n == 1 ? lowc : beats[nb - 1];
}

/* A play position: what fast.Position holds for card play. */
typedef struct {
    u64 hands[4];
    int mode, leader, n, tp, when_void;
    int trick[4];
    int pts[2];
} Pos;

static inline int trick_winner(int mode, int leader, const int *trick)
{
    const int *P = POWER[mode][LEDT[mode][trick[0]]];
    int best = P[trick[0]], bi = 0;
    for (int j = 1; j < 4; j++) {
        int p = P[trick[j]];
        if (p > best) {
            best = p;
            bi = j;
        }
    }
    return (leader + bi) & 3;
}

/* fast.step */
static inline void play(Pos *q, int code)
{
    int seat = (q->leader + q->n) & 3;
    q->hands[seat] &= ~CODEBIT[code];
    q->trick[q->n++] = code;
    if (q->n == 4) {
        int w = trick_winner(q->mode, q->leader, q->trick);
        q->pts[w & 1] += q->tp == 11 ? 2 : 1;
        q->tp++;
        q->leader = w;
        q->n = 0;
    }
}

/* fast.rollout(pos, rng, "greedy"): team 0's final trick points (team 1 has 13 minus). */
static void greedy_rollout(Pos *q)
{
    int dc[8], nd;
    while (q->tp < 12) {
        int seat = (q->leader + q->n) & 3;
        u64 mask = legal(q->hands[seat], q->mode, q->trick, q->n, q->when_void, dc, &nd);
        int code = greedy(q->hands, mask, dc, nd, q->trick, q->n, q->leader, seat, q->mode, q->when_void);
        play(q, code);
    }
}

/* ------------------------------------------------------------------ exact solver --
 * Alpha-beta over the remaining cards, each partnership maximising its own trick points
 * (team 0 maximises, team 1 minimises team 0's).  A transposition table keeps bounds of
 * positions at a trick's start (the four hands, the leader, the mode); the value of the
 * remaining tricks does not depend on how the earlier ones went, so entries stay valid
 * across deals and candidate moves.  Cards that play the same (two cards of a suit in
 * the mover's hand with no card between them still live) are searched once, and a last
 * trick with one card each is scored directly -- both as dragon_solve.solve_points. */

typedef struct {
    u64 h[4];
    int8_t key_extra; /* leader | mode << 2 | when_void << 5, or -1 when empty */
    int8_t lo, hi;
} TTEntry;

#define TT_BITS 18
#define TT_SIZE (1u << TT_BITS)
static TTEntry *TT = NULL;
static unsigned long long NODES = 0;

static inline uint32_t tt_index(const u64 *h, int extra)
{
    u64 x = h[0] * 0x9E3779B97F4A7C15ULL;
    x ^= (h[1] + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    x ^= (h[2] + 0x8CB92BA72F3D8DD7ULL) * 0x165667B19E3779F9ULL;
    x ^= (h[3] + 0x4F1BBCDCBFA53E0BULL) * 0xD6E8FEB86659FD93ULL;
    x ^= (u64)extra * 0x94D049BB133111EBULL;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 32;
    return (uint32_t)(x & (TT_SIZE - 1));
}

typedef struct {
    u64 h[4];
    int mode, when_void;
} Solver;

/* Team 0's points from the remaining tricks (not counting those already won). */
static int ab(Solver *S, int leader, int *trick, int n, int tp, int alpha, int beta)
{
    NODES++;
    if (tp >= 12)
        return 0;
    u64 *hands = S->h;
    int mode = S->mode;
    TTEntry *e = NULL;
    int extra = 0;
    if (n == 0) {
        if (tp == 11 && (mode < 4 || !((hands[0] | hands[1] | hands[2] | hands[3]) & DBIT))) {
            int cs[4];
            for (int j = 0; j < 4; j++)
                cs[j] = ctz64(hands[(leader + j) & 3]);
            int w = trick_winner(mode, leader, cs);
            return (w & 1) == 0 ? 2 : 0;
        }
        extra = leader | (mode << 2) | (S->when_void << 5);
        e = &TT[tt_index(hands, extra)];
        if (e->key_extra == extra && e->h[0] == hands[0] && e->h[1] == hands[1] && e->h[2] == hands[2] &&
            e->h[3] == hands[3]) {
            if (e->lo == e->hi)
                return e->lo;
            if (e->lo >= beta)
                return e->lo;
            if (e->hi <= alpha)
                return e->hi;
            if (e->lo > alpha)
                alpha = e->lo;
            if (e->hi < beta)
                beta = e->hi;
        } else {
            e->key_extra = -1;
        }
    }
    int a0 = alpha, b0 = beta;
    int seat = (leader + n) & 3;
    u64 hand = hands[seat];
    int dc[8], nd;
    u64 mask = legal(hand, mode, trick, n, S->when_void, dc, &nd);
    int codes[MAXC], nc = 0;
    if (mask & (mask - 1)) {
        u64 live = hands[0] | hands[1] | hands[2] | hands[3];
        for (int t = 0; t < n; t++)
            live |= CODEBIT[trick[t]];
        int prev = -2;
        u64 m = mask;
        while (m) {
            int c = ctz64(m);
            m &= m - 1;
            if (c < 52 && prev >= 0 && prev / 13 == c / 13) {
                u64 between = ((1ULL << c) - 1) & ~((2ULL << prev) - 1);
                if (!(live & between)) {
                    prev = c;
                    continue;
                }
            }
            codes[nc++] = c;
            prev = c;
        }
    } else {
        u64 m = mask;
        while (m) {
            codes[nc++] = ctz64(m);
            m &= m - 1;
        }
    }
    for (int i = 0; i < nd; i++)
        codes[nc++] = dc[i];
    int maxing = (seat & 1) == 0;
    int best = maxing ? -1 : 1000;
    for (int i = 0; i < nc; i++) {
        int code = codes[i];
        hands[seat] = hand & ~CODEBIT[code];
        trick[n] = code;
        int v;
        if (n == 3) {
            int w = trick_winner(mode, leader, trick);
            int got = tp == 11 ? 2 : 1;
            int mine = (w & 1) == 0 ? got : 0;
            int sub[4];
            v = mine + ab(S, w, sub, 0, tp + 1, alpha - mine, beta - mine);
        } else {
            v = ab(S, leader, trick, n + 1, tp, alpha, beta);
        }
        hands[seat] = hand;
        if (maxing) {
            if (v > best) {
                best = v;
                if (best > alpha)
                    alpha = best;
            }
        } else {
            if (v < best) {
                best = v;
                if (best < beta)
                    beta = best;
            }
        }
        if (alpha >= beta)
            break;
    }
    if (e) {
        int lo = 0, hi = 13;
        if (e->key_extra == extra && e->h[0] == hands[0] && e->h[1] == hands[1] && e->h[2] == hands[2] &&
            e->h[3] == hands[3]) {
            lo = e->lo;
            hi = e->hi;
        }
        if (best <= a0)
            hi = best < hi ? best : hi;
        else if (best >= b0)
            lo = best > lo ? best : lo;
        else
            lo = hi = best;
        memcpy(e->h, hands, sizeof(e->h));
        e->key_extra = (int8_t)extra;
        e->lo = (int8_t)lo;
        e->hi = (int8_t)hi;
    }
    return best;
}

/* Team 0's final trick points with perfect play from ``q`` (which it leaves unchanged). */
static int solve_pos(const Pos *q)
{
    Solver S;
    memcpy(S.h, q->hands, sizeof(S.h));
    S.mode = q->mode;
    S.when_void = q->when_void;
    int trick[4];
    memcpy(trick, q->trick, sizeof(trick));
    int total = q->tp < 12 ? 13 - q->tp : 0;
    return q->pts[0] + ab(&S, q->leader, trick, q->n, q->tp, -1, total + 1);
}

/* ------------------------------------------------------------------ Python glue --
 * Every entry point checks that it was given a real position before it plays a card:
 * the loops below trust it (a seat holds a card when its turn comes, a code is one of its
 * mode's, no card is in two places), and a wrong input would otherwise read outside the
 * tables or answer for a position that cannot happen.  Each refusal is a ValueError that
 * says what is wrong. */

#define FULL ((1ULL << 53) - 1)

/* An int within lo..hi, or -1 with a ValueError (TypeError if it is no int) naming it. */
static int get_ll(PyObject *o, long long lo, long long hi, const char *what, long long *out)
{
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", what);
        return -1;
    }
    int over = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &over);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (over || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be %lld..%lld", what, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int get_int(PyObject *o, int lo, int hi, const char *what, int *out)
{
    long long v;
    if (get_ll(o, lo, hi, what, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* A sequence of exactly ``len`` card masks (bits 0..52). */
static int parse_masks(PyObject *o, int len, u64 *out, const char *what)
{
    PyObject *f = PySequence_Fast(o, what);
    if (!f)
        return -1;
    if (PySequence_Fast_GET_SIZE(f) != len) {
        Py_DECREF(f);
        PyErr_Format(PyExc_ValueError, "%s (%d of them)", what, len);
        return -1;
    }
    for (int i = 0; i < len; i++) {
        long long v;
        if (get_ll(PySequence_Fast_GET_ITEM(f, i), 0, (long long)FULL, "a card mask (bits 0..52)", &v) < 0) {
            Py_DECREF(f);
            return -1;
        }
        out[i] = (u64)v;
    }
    Py_DECREF(f);
    return 0;
}

static int parse_masks4(PyObject *o, u64 *out, const char *what) { return parse_masks(o, 4, out, what); }

/* What every card-play entry point shares besides the hands. */
typedef struct {
    int mode, leader, tp, when_void;
    PyObject *trick, *points;
} Head;

static int parse_head(PyObject *mode, PyObject *leader, PyObject *trick, PyObject *points, PyObject *tp,
                      int when_void, Head *h)
{
    if (get_int(mode, 0, 5, "mode", &h->mode) < 0 || get_int(leader, 0, 3, "leader", &h->leader) < 0 ||
        get_int(tp, 0, 12, "tricks_played", &h->tp) < 0)
        return -1;
    h->when_void = when_void ? 1 : 0;
    h->trick = trick;
    h->points = points;
    return 0;
}

/* Is ``code`` a move the seat to move in ``q`` may make (holds it, follows the rules)? */
static int code_legal(u64 hand, int mode, const int *trick, int n, int when_void, int code)
{
    int dc[8], nd;
    u64 mask = legal(hand, mode, trick, n, when_void, dc, &nd);
    if (code < 52)
        return (int)(mask >> code & 1);
    if (code == DRAGON)
        return mode < 4 && (mask & DBIT) != 0;
    for (int i = 0; i < nd; i++)
        if (dc[i] == code)
            return 1;
    return 0;
}

static int parse_pos(PyObject *hands, const Head *hd, Pos *q)
{
    if (parse_masks4(hands, q->hands, "hands must be four card masks") < 0)
        return -1;
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            if (q->hands[a] & q->hands[b]) {
                PyErr_Format(PyExc_ValueError, "card %d is in two hands (seats %d and %d)",
                             ctz64(q->hands[a] & q->hands[b]), a, b);
                return -1;
            }
    PyObject *ts = PySequence_Fast(hd->trick, "trick must be a sequence of codes");
    if (!ts)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(ts);
    if (n > 3) {
        Py_DECREF(ts);
        PyErr_SetString(PyExc_ValueError, "a trick in progress holds at most three codes");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (get_int(PySequence_Fast_GET_ITEM(ts, i), 0, NCODES - 1, "a move code", &q->trick[i]) < 0) {
            Py_DECREF(ts);
            return -1;
        }
    }
    Py_DECREF(ts);
    q->n = (int)n;
    PyObject *ps = PySequence_Fast(hd->points, "points must be two trick-point counts");
    if (!ps)
        return -1;
    int bad = PySequence_Fast_GET_SIZE(ps) != 2;
    if (bad)
        PyErr_SetString(PyExc_ValueError, "points must be two trick-point counts");
    for (int i = 0; !bad && i < 2; i++)
        bad = get_int(PySequence_Fast_GET_ITEM(ps, i), 0, 13, "a team's trick points", &q->pts[i]) < 0;
    Py_DECREF(ps);
    if (bad)
        return -1;
    q->mode = hd->mode;
    q->leader = hd->leader;
    q->tp = hd->tp;
    q->when_void = hd->when_void;
    if (q->pts[0] + q->pts[1] != (q->tp < 12 ? q->tp : 13)) {
        PyErr_Format(PyExc_ValueError, "trick points %d + %d do not fit %d tricks played", q->pts[0], q->pts[1], q->tp);
        return -1;
    }
    /* Every loop here trusts that each seat holds a card when its turn comes. */
    for (int s = 0; s < 4; s++) {
        int played_now = ((s - q->leader) & 3) < q->n;
        if (pop64(q->hands[s]) != 12 - q->tp - played_now) {
            PyErr_SetString(PyExc_ValueError, "hand sizes do not fit the tricks played");
            return -1;
        }
    }
    /* The trick so far, replayed: each card out of every hand, played once, and legal for
     * the hand it came from (no revoke, no code of another mode: the trump Dragon 52 only
     * in a trump hand, the declared Dragon 53..60 only in no-trump). */
    u64 all = q->hands[0] | q->hands[1] | q->hands[2] | q->hands[3], seen = 0;
    for (int i = 0; i < q->n; i++) {
        int c = q->trick[i], s = (q->leader + i) & 3;
        if (CODEBIT[c] & (all | seen)) {
            PyErr_Format(PyExc_ValueError, "the trick's card %d (code %d) is also in a hand or in the trick", i + 1, c);
            return -1;
        }
        if (!code_legal(q->hands[s] | CODEBIT[c], q->mode, q->trick, i, q->when_void, c)) {
            PyErr_Format(PyExc_ValueError, "the trick's card %d (code %d) is not a legal play there (a revoke, or "
                         "a code of another mode)", i + 1, c);
            return -1;
        }
        seen |= CODEBIT[c];
    }
    return 0;
}

/* rollout/greedy/solve share their arguments: (hands, mode, leader, trick, points, tp, when_void). */
static int parse_one(PyObject *args, Pos *q)
{
    PyObject *hands, *mode, *leader, *trick, *points, *tp;
    int when_void;
    Head hd;
    if (!PyArg_ParseTuple(args, "OOOOOOp", &hands, &mode, &leader, &trick, &points, &tp, &when_void))
        return -1;
    if (parse_head(mode, leader, trick, points, tp, when_void, &hd) < 0)
        return -1;
    return parse_pos(hands, &hd, q);
}

static PyObject *py_rollout(PyObject *self, PyObject *args)
{
    Pos q;
    if (parse_one(args, &q) < 0)
        return NULL;
    greedy_rollout(&q);
    return Py_BuildValue("ii", q.pts[0], q.pts[1]);
}

static PyObject *py_greedy(PyObject *self, PyObject *args)
{
    Pos q;
    if (parse_one(args, &q) < 0)
        return NULL;
    int seat = (q.leader + q.n) & 3;
    int dc[8], nd;
    u64 mask = legal(q.hands[seat], q.mode, q.trick, q.n, q.when_void, dc, &nd);
    if (!mask && !nd) {
        PyErr_SetString(PyExc_ValueError, "the seat to move has no card");
        return NULL;
    }
    return PyLong_FromLong(greedy(q.hands, mask, dc, nd, q.trick, q.n, q.leader, seat, q.mode, q.when_void));
}

static int ensure_tt(void)
{
    if (!TT) {
        TT = (TTEntry *)PyMem_RawCalloc(TT_SIZE, sizeof(TTEntry));
        if (!TT) {
            PyErr_NoMemory();
            return -1;
        }
        for (uint32_t i = 0; i < TT_SIZE; i++)
            TT[i].key_extra = -1;
    }
    return 0;
}

static PyObject *py_solve(PyObject *self, PyObject *args)
{
    Pos q;
    if (parse_one(args, &q) < 0)
        return NULL;
    if (ensure_tt() < 0)
        return NULL;
    int p0 = solve_pos(&q);
    int total = q.pts[0] + q.pts[1] + (q.tp < 12 ? 13 - q.tp : 0);
    return Py_BuildValue("ii", p0, total - p0);
}

/* The deals and move codes of evaluate() and iimc(), checked: ``*ds`` the deals as a fast
 * sequence (a new reference for the caller to release), ``cc`` the codes, ``*nc`` their
 * number.  -1 with a ValueError/TypeError set, and nothing to release, on bad input. */
static int parse_deals_codes(PyObject *deals, PyObject *codes, PyObject **ds, int *cc, Py_ssize_t *nc)
{
    *ds = PySequence_Fast(deals, "deals must be a sequence of hand tuples");
    if (!*ds)
        return -1;
    PyObject *cs = PySequence_Fast(codes, "codes must be a sequence of move codes");
    if (!cs) {
        Py_CLEAR(*ds);
        return -1;
    }
    *nc = PySequence_Fast_GET_SIZE(cs);
    int ok = *nc <= 64;
    if (!ok)
        PyErr_SetString(PyExc_ValueError, "at most 64 codes");
    for (Py_ssize_t i = 0; ok && i < *nc; i++)
        ok = get_int(PySequence_Fast_GET_ITEM(cs, i), 0, NCODES - 1, "a move code", &cc[i]) == 0;
    Py_DECREF(cs);
    if (!ok)
        Py_CLEAR(*ds);
    return ok ? 0 : -1;
}

/* One deal of evaluate()/iimc(), with every code checked against the seat to move. */
static int parse_deal(PyObject *hands, const Head *hd, const int *cc, Py_ssize_t nc, Pos *q)
{
    if (parse_pos(hands, hd, q) < 0)
        return -1;
    int seat = (q->leader + q->n) & 3;
    for (Py_ssize_t i = 0; i < nc; i++)
        if (q->tp >= 12 || !code_legal(q->hands[seat], q->mode, q->trick, q->n, q->when_void, cc[i])) {
            PyErr_Format(PyExc_ValueError, "code %d is not a legal move for seat %d in this deal (a card it does "
                         "not hold, a revoke, or a code of another mode)", cc[i], seat);
            return -1;
        }
    return 0;
}

/* evaluate(deals, codes, mode, leader, trick, points, tp, when_void, exact) -> list of
 * team 0's final points, deal-major (len(deals) * len(codes)): each code played in each
 * deal, then the hand finished by the greedy rollout, or solved exactly when ``exact``. */
static PyObject *py_evaluate(PyObject *self, PyObject *args)
{
    PyObject *deals, *codes, *mode, *leader, *trick, *points, *tp;
    int when_void, exact;
    Head hd;
    if (!PyArg_ParseTuple(args, "OOOOOOOpp", &deals, &codes, &mode, &leader, &trick, &points, &tp, &when_void,
                          &exact))
        return NULL;
    if (parse_head(mode, leader, trick, points, tp, when_void, &hd) < 0)
        return NULL;
    PyObject *ds;
    int cc[64];
    Py_ssize_t nc;
    if (parse_deals_codes(deals, codes, &ds, cc, &nc) < 0)
        return NULL;
    Py_ssize_t nd = PySequence_Fast_GET_SIZE(ds);
    PyObject *out = NULL;
    if (exact && ensure_tt() < 0)
        goto done;
    out = PyList_New(nd * nc);
    if (!out)
        goto done;
    for (Py_ssize_t d = 0; d < nd; d++) {
        Pos base;
        if (parse_deal(PySequence_Fast_GET_ITEM(ds, d), &hd, cc, nc, &base) < 0 || PyErr_CheckSignals() < 0) {
            Py_CLEAR(out);
            goto done;
        }
        for (Py_ssize_t i = 0; i < nc; i++) {
            Pos q = base;
            play(&q, cc[i]);
            int p0;
            if (exact) {
                p0 = solve_pos(&q);
            } else {
                greedy_rollout(&q);
                p0 = q.pts[0];
            }
            PyList_SET_ITEM(out, d * nc + i, PyLong_FromLong(p0));
        }
    }
done:
    Py_DECREF(ds);
    return out;
}


/* ------------------------------------------------------------------ random numbers --
 * splitmix64: small, fast, and seeded from the bot's own random.Random, so a bot's
 * decisions depend on its seed only. */

static inline u64 splitmix(u64 *s)
{
    u64 z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint32_t below(u64 *s, uint32_t n) { return (uint32_t)(((splitmix(s) >> 32) * (u64)n) >> 32); }


/* ------------------------------------------------------- exact uniform deal sampler --
 * Rejection (dragon_pimc.DealSampler.draw) is exact but can need thousands of
 * shuffles once voids pile up: measured in real games, one decision in eight did not get
 * its 40 deals in 400 shuffles, and one in sixteen got none.  Here instead: the free cards
 * are grouped by the set of piles that may hold them (a few groups: one per suit, and the
 * Dragon); the number of consistent deals is counted by a memoised recursion over the
 * groups (how many cards of each group go to each pile, times the ways to choose them);
 * a deal is drawn group by group with those counts as weights, then the cards of each
 * group are shuffled into their piles.  Every consistent deal has the same probability,
 * and a draw never fails when one exists.
 *
 * The memo grows (it was a fixed 32,768 slots, and a full one made the probe loop spin for
 * ever holding the GIL): it doubles at half full, up to MEMO_MAX_BITS; past that the count
 * stops with a ValueError.  The recursion checks for signals (Ctrl-C) every few thousand
 * new entries, and the draws every deal.  Entries carry a generation, so the imperfect-
 * information playouts reuse one memo for many small counts without clearing it. */

#define XP 5           /* piles: seats 0..3 and 4, off the table */
#define MEMO_MIN_BITS 10
#define MEMO_MAX_BITS 21
#define SIGNAL_EVERY 4096

typedef struct {
    uint64_t key;
    double ways;
    uint32_t gen;       /* the entry is empty unless it is the memo's current generation */
} MemoEntry;

enum { EXACT_OK, EXACT_MEMO_FULL, EXACT_NO_MEMORY, EXACT_SIGNAL };

typedef struct {
    int nt;                 /* groups */
    int cnt[64];            /* cards per group */
    int pmask[64];          /* piles allowed per group */
    int cards[64][64];      /* the cards of each group */
    MemoEntry *memo;
    int bits;               /* the memo has 1 << bits entries */
    size_t used;            /* entries of this generation */
    uint32_t gen;
    int err;                /* EXACT_*: set, the counts are void and the caller raises */
    unsigned since_check;
    double fact[64];
} Exact;

static Exact *exact_new(int bits)
{
    Exact *E = (Exact *)PyMem_RawCalloc(1, sizeof(Exact));
    if (!E)
        return NULL;
    E->memo = (MemoEntry *)PyMem_RawCalloc((size_t)1 << bits, sizeof(MemoEntry));
    if (!E->memo) {
        PyMem_RawFree(E);
        return NULL;
    }
    E->bits = bits;
    E->gen = 1;
    E->fact[0] = 1.0;
    for (int i = 1; i < 64; i++)
        E->fact[i] = E->fact[i - 1] * i;
    return E;
}

static void exact_free(Exact *E)
{
    if (E) {
        PyMem_RawFree(E->memo);
        PyMem_RawFree(E);
    }
}

/* Raise the Python error for E->err (a pending signal's exception is already set). */
static void exact_raise(const Exact *E)
{
    if (E->err == EXACT_MEMO_FULL)
        PyErr_Format(PyExc_ValueError, "too many ways to split these cards to count them (more than %d "
                     "partial counts); give fewer free cards or fewer constraints", 1 << (MEMO_MAX_BITS - 1));
    else if (E->err == EXACT_NO_MEMORY)
        PyErr_NoMemory();
    else if (E->err == EXACT_SIGNAL && !PyErr_Occurred())
        PyErr_SetString(PyExc_KeyboardInterrupt, "interrupted");
}

static inline uint64_t needs_key(int i, const int *need)
{
    uint64_t k = (uint64_t)i + 1;
    for (int p = 0; p < XP; p++)
        k = k * 64 + (uint64_t)need[p];
    return k;
}

static inline uint32_t memo_slot(const Exact *E, uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ULL) >> (64 - E->bits));
}

static MemoEntry *memo_find(const Exact *E, uint64_t key)
{
    uint32_t mask = (1u << E->bits) - 1;
    for (uint32_t h = memo_slot(E, key);; h = (h + 1) & mask) {
        MemoEntry *m = &E->memo[h];
        if (m->gen != E->gen)
            return NULL;
        if (m->key == key)
            return m;
    }
}

static void memo_put(Exact *E, uint64_t key, double w)
{
    if ((E->used + 1) * 2 > ((size_t)1 << E->bits)) {
        if (E->bits >= MEMO_MAX_BITS) {
            E->err = EXACT_MEMO_FULL;
            return;
        }
        int nb = E->bits + 1;
        MemoEntry *nm = (MemoEntry *)PyMem_RawCalloc((size_t)1 << nb, sizeof(MemoEntry));
        if (!nm) {
            E->err = EXACT_NO_MEMORY;
            return;
        }
        MemoEntry *old = E->memo;
        size_t on = (size_t)1 << E->bits;
        E->memo = nm;
        E->bits = nb;
        uint32_t mask = (1u << nb) - 1;
        for (size_t j = 0; j < on; j++)
            if (old[j].gen == E->gen) {
                uint32_t h = memo_slot(E, old[j].key);
                while (nm[h].gen == E->gen)
                    h = (h + 1) & mask;
                nm[h] = old[j];
            }
        PyMem_RawFree(old);
    }
    uint32_t mask = (1u << E->bits) - 1;
    uint32_t h = memo_slot(E, key);
    while (E->memo[h].gen == E->gen)
        h = (h + 1) & mask;
    E->memo[h].key = key;
    E->memo[h].ways = w;
    E->memo[h].gen = E->gen;
    E->used++;
    if (++E->since_check >= SIGNAL_EVERY) {
        E->since_check = 0;
        if (PyErr_CheckSignals() < 0)
            E->err = EXACT_SIGNAL;
    }
}

/* Forget every count (the groups change): a new generation, nothing to clear. */
static void memo_reset(Exact *E)
{
    if (++E->gen == 0) { /* after 2**32 generations: clear once and start again */
        memset(E->memo, 0, ((size_t)1 << E->bits) * sizeof(MemoEntry));
        E->gen = 1;
    }
    E->used = 0;
}

static double ways(Exact *E, int i, int *need);

/* Sum over the distributions of group i's remaining ``left`` cards over piles p.. */
static double ways_dist(Exact *E, int i, int *need, int p, int left, double mult)
{
    if (p == XP)
        return left ? 0.0 : mult * ways(E, i + 1, need);
    if (!(E->pmask[i] >> p & 1))
        return ways_dist(E, i, need, p + 1, left, mult);
    double tot = 0.0;
    int mx = left < need[p] ? left : need[p];
    for (int x = 0; x <= mx && !E->err; x++) {
        need[p] -= x;
        tot += ways_dist(E, i, need, p + 1, left - x, mult / E->fact[x]);
        need[p] += x;
    }
    return tot;
}

static double ways(Exact *E, int i, int *need)
{
    if (E->err)
        return 0.0;
    if (i == E->nt) {
        for (int p = 0; p < XP; p++)
            if (need[p])
                return 0.0;
        return 1.0;
    }
    uint64_t key = needs_key(i, need);
    MemoEntry *m = memo_find(E, key);
    if (m)
        return m->ways;
    double w = ways_dist(E, i, need, 0, E->cnt[i], E->fact[E->cnt[i]]);
    if (!E->err)
        memo_put(E, key, w); /* found again from the start: the memo may have grown meanwhile */
    return w;
}

/* Draw group i's distribution: walk the same sum and stop where the running total passes
 * the target.  x[p] receives the counts. */
static int pick_dist(Exact *E, int i, int *need, int p, int left, double mult, double *target, int *x)
{
    if (p == XP) {
        if (left)
            return 0;
        double w = mult * ways(E, i + 1, need);
        if (*target < w)
            return 1;
        *target -= w;
        return 0;
    }
    if (!(E->pmask[i] >> p & 1)) {
        x[p] = 0;
        return pick_dist(E, i, need, p + 1, left, mult, target, x);
    }
    int mx = left < need[p] ? left : need[p];
    for (int c = 0; c <= mx && !E->err; c++) {
        need[p] -= c;
        x[p] = c;
        int got = pick_dist(E, i, need, p + 1, left - c, mult / E->fact[c], target, x);
        need[p] += c;
        if (got)
            return 1;
    }
    return 0;
}

/* Group the free cards ``cards`` by the piles (with room) that may hold them. */
static void exact_groups(Exact *E, const int *cards, int n, const u64 *allowed, const int *need)
{
    memo_reset(E);
    E->nt = 0;
    for (int i = 0; i < n; i++) {
        int c = cards[i], pm = 0;
        for (int p = 0; p < XP; p++)
            if (need[p] && (allowed[p] >> c & 1))
                pm |= 1 << p;
        int t = 0;
        while (t < E->nt && E->pmask[t] != pm)
            t++;
        if (t == E->nt) {
            E->pmask[t] = pm;
            E->cnt[t] = 0;
            E->nt++;
        }
        E->cards[t][E->cnt[t]++] = c;
    }
}

/* One deal: ``h`` gets ``base`` plus the free cards dealt to seats 0..3.  0 when none (or
 * on E->err). */
static int exact_draw(Exact *E, const int *need, const u64 *base, u64 *st, u64 *h)
{
    int rem[XP];
    memcpy(rem, need, sizeof(rem));
    for (int p = 0; p < 4; p++)
        h[p] = base[p];
    for (int i = 0; i < E->nt; i++) {
        double w = ways(E, i, rem);
        double target = (double)(splitmix(st) >> 11) * (1.0 / 9007199254740992.0) * w;
        int x[XP] = {0, 0, 0, 0, 0};
        if (!pick_dist(E, i, rem, 0, E->cnt[i], E->fact[E->cnt[i]], &target, x))
            return 0;
        int *cs = E->cards[i], m = E->cnt[i];
        for (int j = m - 1; j > 0; j--) {
            uint32_t r = below(st, (uint32_t)(j + 1));
            int tmp = cs[j];
            cs[j] = cs[r];
            cs[r] = tmp;
        }
        int at = 0;
        for (int p = 0; p < XP; p++) {
            for (int j = 0; j < x[p]; j++, at++)
                if (p < 4)
                    h[p] |= 1ULL << cs[at];
            rem[p] -= x[p];
        }
    }
    return !E->err;
}

/* ------------------------------------------------- imperfect-information playouts --
 * IIMC (Furtak & Buro, "Recursive Monte Carlo search for imperfect information games",
 * 2013): a candidate is scored in a sampled deal by playing the hand out with every seat
 * choosing as a player who cannot see the other hands would -- a small PIMC of its own
 * over deals drawn from *its* information (its hand, the cards played, the voids shown,
 * what is public about the Dragon) -- instead of the greedy policy that reads every hand.
 * Why: PIMC's rollouts let every seat see every card, so a line that needs the
 * opponents to guess right scores as if they always do ("strategy fusion"); here they
 * guess like the players they are.  Each inner deal is drawn by the exact sampler above,
 * uniformly from what that seat knows: never the simulated world's own hands. */

#define NO_DRAGON 16
#define MAX_K 4096
#define MAX_COUNT 1000000 /* deals per call */

typedef struct {
    u64 played[4];  /* cards each seat has played this hand (bits; the NT Dragon as bit 52) */
    int voids[4];   /* suits shown out of (bits 0..3), NO_DRAGON */
    u64 known[4];   /* cards every seat knows to be in this hand (the Dragon after a summon) */
    int dragon_elsewhere; /* an unused kitty (no-help) may hold the Dragon */
    int declarer, level, nohelp;
    int k;          /* deals per inner decision */
    int depth;      /* tricks played this way before the greedy rollout finishes the hand */
    int sides;      /* which seats guess: 1 the root seat's side, 2 the other, 3 both */
    int root_team;
    u64 rng;
    Exact *E;       /* the inner sampler's workspace; E->err set stops the playouts */
} Public;

static inline void note_play(Public *pub, int mode, int when_void, int seat, const int *trick, int i)
{
    int code = trick[i];
    pub->played[seat] |= CODEBIT[code];
    if (i == 0)
        return;
    int led = LEDT[mode][trick[0]];
    int suit = LEDT[mode][code];
    if (mode < 4) {
        if (code == DRAGON || suit == led)
            return;
        pub->voids[seat] |= 1 << led;
        if (suit != mode)
            pub->voids[seat] |= (1 << mode) | NO_DRAGON;
    } else {
        if (code >= 53) {
            if (when_void)
                pub->voids[seat] |= 1 << led;
            return;
        }
        if (suit != led)
            pub->voids[seat] |= 1 << led;
    }
}

static inline u64 allowed_of(int v)
{
    u64 m = FULL;
    for (int s = 0; s < 4; s++)
        if (v >> s & 1)
            m &= ~SUIT[s];
    if (v & NO_DRAGON)
        m &= ~DBIT;
    return m;
}

/* Is ``hands`` (with the cards played) a deal that every seat could be in, given what is
 * public?  The inner sampler draws from exactly those deals, so a real position always
 * leaves it one; 0 with a ValueError saying what does not fit. */
static int public_fits(const Public *pub, const Pos *q)
{
    u64 played = 0, held = q->hands[0] | q->hands[1] | q->hands[2] | q->hands[3];
    for (int s = 0; s < 4; s++) {
        if (pub->played[s] & played) {
            PyErr_Format(PyExc_ValueError, "card %d was played by two seats", ctz64(pub->played[s] & played));
            return 0;
        }
        played |= pub->played[s];
    }
    if (held & played) {
        PyErr_Format(PyExc_ValueError, "card %d is in a hand and among the cards played", ctz64(held & played));
        return 0;
    }
    for (int i = 0; i < q->n; i++) {
        int s = (q->leader + i) & 3;
        if (!(pub->played[s] & CODEBIT[q->trick[i]])) {
            PyErr_Format(PyExc_ValueError, "the trick's card %d is not among seat %d's cards played", i + 1, s);
            return 0;
        }
    }
    for (int s = 0; s < 4; s++) {
        if (q->hands[s] & ~allowed_of(pub->voids[s])) {
            PyErr_Format(PyExc_ValueError, "seat %d holds card %d of a suit it showed out of", s,
                         ctz64(q->hands[s] & ~allowed_of(pub->voids[s])));
            return 0;
        }
        if (pub->known[s] & ~played & ~q->hands[s]) {
            PyErr_Format(PyExc_ValueError, "card %d is known to be in seat %d's hand but is not there",
                         ctz64(pub->known[s] & ~played & ~q->hands[s]), s);
            return 0;
        }
    }
    if (!((held | played) & DBIT) && !pub->dragon_elsewhere) {
        PyErr_SetString(PyExc_ValueError, "the Dragon is in no hand and was not played, but cannot be elsewhere");
        return 0;
    }
    return 1;
}

/* Deals for one seat from what it knows (its own hand is ``truth[seat]``; the other
 * hands keep their sizes in ``truth``): ``base`` the cards placed already (its hand, the
 * cards known to be elsewhere), ``need`` and ``allowed`` per pile, the unseen ``cards``.
 *
 * A draw first shuffles the unseen cards into the piles' slots a few times and keeps the
 * first shuffle that every pile allows (rejection: each accepted shuffle is a uniform
 * consistent deal), and only when all of them miss asks the exact sampler (set up once
 * per seat's decision, on first need).  Either way the deal is uniform over those that
 * fit, so the mix is exactly uniform too -- and most draws cost a shuffle, not a count
 * (the count alone made the playouts 3.5 times slower).  Never the true hands. */
#define SHUFFLES 24

typedef struct {
    int nc;
    int cards[64];
    int pile_of_slot[64];
    int need[XP];
    u64 allowed[XP];
    u64 base[4];
    int exact;          /* the exact sampler is set up in E for these piles */
} SeatDeals;

/* 0 when no deal can fit (a pile would need a negative number of cards). */
static int seat_deals(const Public *pub, const u64 *truth, int seat, SeatDeals *S)
{
    u64 all_played = pub->played[0] | pub->played[1] | pub->played[2] | pub->played[3];
    u64 unseen = FULL & ~truth[seat] & ~all_played;
    S->base[seat] = truth[seat];
    S->need[seat] = 0;
    S->allowed[seat] = 0;
    S->exact = 0;
    int total_need = 0;
    for (int o = 0; o < 4; o++) {
        if (o == seat)
            continue;
        u64 kn = pub->known[o] & unseen;
        S->base[o] = kn;
        unseen &= ~kn;
        S->need[o] = pop64(truth[o]) - pop64(kn);
        if (S->need[o] < 0)
            return 0;
        S->allowed[o] = allowed_of(pub->voids[o]);
        total_need += S->need[o];
    }
    S->need[4] = pop64(unseen) - total_need;
    if (S->need[4] < 0)
        return 0;
    S->allowed[4] = pub->dragon_elsewhere ? FULL : FULL & ~DBIT;
    S->nc = 0;
    for (u64 m = unseen; m; m &= m - 1)
        S->cards[S->nc++] = ctz64(m);
    int ns = 0;
    for (int o = 0; o < XP; o++)
        for (int j = 0; j < S->need[o]; j++)
            S->pile_of_slot[ns++] = o;
    return 1;
}

/* One deal into ``out``; 0 when none fits (or on E->err). */
static int seat_draw(SeatDeals *S, Exact *E, u64 *rng, u64 *out)
{
    if (!S->exact) {
        int nc = S->nc, *cards = S->cards;
        for (int t = 0; t < SHUFFLES; t++) {
            for (int i = nc - 1; i > 0; i--) {
                uint32_t j = below(rng, (uint32_t)(i + 1));
                int x = cards[i];
                cards[i] = cards[j];
                cards[j] = x;
            }
            int ok = 1;
            for (int i = 0; i < nc && ok; i++)
                ok = (int)(S->allowed[S->pile_of_slot[i]] >> cards[i] & 1);
            if (ok) {
                for (int o = 0; o < 4; o++)
                    out[o] = S->base[o];
                for (int i = 0; i < nc; i++)
                    if (S->pile_of_slot[i] < 4)
                        out[S->pile_of_slot[i]] |= 1ULL << cards[i];
                return 1;
            }
        }
        exact_groups(E, S->cards, S->nc, S->allowed, S->need);
        int nd[XP];
        memcpy(nd, S->need, sizeof(nd));
        if (!(ways(E, 0, nd) > 0.0))
            return 0;
        S->exact = 1;
    }
    return exact_draw(E, S->need, S->base, rng, out);
}

static inline int team_value(const Public *pub, int p0, int team)
{
    int bt = pub->declarer & 1;
    int pb = bt == 0 ? p0 : 13 - p0;
    int bid, dfn = 5 * (13 - pb);
    if (pb >= pub->level)
        bid = 10 * pub->level + 5 * (pb - pub->level) + (pub->nohelp ? 25 : 0);
    else
        bid = -10 * pub->level - 5 * (pub->level - pb);
    int d0 = bt == 0 ? bid : dfn, d1 = bt == 0 ? dfn : bid;
    return team == 0 ? d0 - d1 : d1 - d0;
}

/* The distinct candidates of ``seat`` as it knows them (dragon_search._distinct). */
static int distinct_codes(u64 mask, const int *dc, int nd, int mode, u64 gone, int *codes)
{
    int nc = 0, prev = -2;
    u64 m = mask;
    while (m) {
        int c = ctz64(m);
        m &= m - 1;
        if (c < 52 && prev >= 0 && prev / 13 == c / 13) {
            u64 between = ((1ULL << c) - 1) & ~((2ULL << prev) - 1);
            if (!(between & ~gone)) {
                prev = c;
                continue;
            }
        }
        codes[nc++] = c;
        prev = c < 52 ? c : -2;
    }
    int losing = mode == 4 ? 1 : 0;
    for (int i = 0; i < nd; i++)
        if (mode < 4 || (dc[i] - 53) % 2 != losing)
            codes[nc++] = dc[i];
    if (!nc)
        for (int i = 0; i < nd; i++)
            codes[nc++] = dc[i];
    return nc;
}

#define NO_DEAL 99  /* E->err value: a seat saw no deal that fits what it knows (not a real position) */

/* The move of the seat to move in ``q`` as a small PIMC over deals from its information;
 * -1 with pub->E->err set when it cannot choose. */
static int inner_choice(Public *pub, const Pos *q)
{
    int seat = (q->leader + q->n) & 3;
    int dc[8], nd;
    u64 mask = legal(q->hands[seat], q->mode, q->trick, q->n, q->when_void, dc, &nd);
    if (!nd && !(mask & (mask - 1)))
        return ctz64(mask);
    if (!(pub->sides & ((seat & 1) == pub->root_team ? 1 : 2)))
        return greedy(q->hands, mask, dc, nd, q->trick, q->n, q->leader, seat, q->mode, q->when_void);
    u64 gone = q->hands[seat] | pub->played[0] | pub->played[1] | pub->played[2] | pub->played[3];
    for (int t = 0; t < q->n; t++) /* a card on the table is still in play until the trick is won */
        if (q->trick[t] < 52)
            gone &= ~CODEBIT[q->trick[t]];
    int codes[MAXC];
    int nc = distinct_codes(mask, dc, nd, q->mode, gone, codes);
    if (nc == 1)
        return codes[0];
    SeatDeals S;
    if (!seat_deals(pub, q->hands, seat, &S)) {
        pub->E->err = NO_DEAL;
        return -1;
    }
    int tot[MAXC];
    memset(tot, 0, sizeof(tot));
    int team = seat & 1;
    for (int w = 0; w < pub->k; w++) {
        Pos b = *q;
        if (!seat_draw(&S, pub->E, &pub->rng, b.hands)) {
            if (!pub->E->err)
                pub->E->err = NO_DEAL;
            return -1;
        }
        for (int i = 0; i < nc; i++) {
            Pos r = b;
            play(&r, codes[i]);
            greedy_rollout(&r);
            tot[i] += team_value(pub, r.pts[0], team);
        }
    }
    int bi = 0;
    for (int i = 1; i < nc; i++)
        if (tot[i] > tot[bi])
            bi = i;
    return codes[bi];
}

/* Play ``q`` out: ``depth`` tricks by inner PIMC players, the rest by the greedy rollout;
 * -1 when an inner choice failed (pub.E->err). */
static int iimc_playout(Public pub, Pos q)
{
    int stop = q.tp + pub.depth;
    while (q.tp < 12 && q.tp < stop) {
        int seat = (q.leader + q.n) & 3;
        int code = inner_choice(&pub, &q);
        if (code < 0)
            return -1;
        int idx = q.n;
        int tr[4];
        memcpy(tr, q.trick, sizeof(tr));
        tr[idx] = code;
        note_play(&pub, q.mode, q.when_void, seat, tr, idx);
        play(&q, code);
    }
    if (q.tp < 12)
        greedy_rollout(&q);
    return q.pts[0];
}

/* Four seats' voids: suit bits 0..3, NO_DRAGON. */
static int parse_voids(PyObject *voids, int *out)
{
    PyObject *vf = PySequence_Fast(voids, "voids must be four ints");
    if (!vf)
        return -1;
    int bad = PySequence_Fast_GET_SIZE(vf) != 4;
    if (bad)
        PyErr_SetString(PyExc_ValueError, "voids must be four ints");
    for (int i = 0; !bad && i < 4; i++)
        bad = get_int(PySequence_Fast_GET_ITEM(vf, i), 0, 31, "a seat's voids (suit bits 0..3, 16 no Dragon)",
                      &out[i]) < 0;
    Py_DECREF(vf);
    return bad ? -1 : 0;
}

/* iimc(deals, codes, mode, leader, trick, points, tp, when_void, played, voids, known,
 *      dragon_elsewhere, declarer, level, nohelp, k, depth, seed[, sides]) -> team 0's final
 * points, deal-major, each code played in each deal and the hand played out by IIMC. */
static PyObject *py_iimc(PyObject *self, PyObject *args)
{
    PyObject *deals, *codes, *mode, *leader, *trick, *points, *tp, *played, *voids, *known, *declarer, *level;
    PyObject *k, *depth, *sides = NULL;
    int when_void, dragon_elsewhere, nohelp;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OOOOOOOpOOOpOOpOOK|O", &deals, &codes, &mode, &leader, &trick, &points, &tp,
                          &when_void, &played, &voids, &known, &dragon_elsewhere, &declarer, &level, &nohelp, &k,
                          &depth, &seed, &sides))
        return NULL;
    Head hd;
    if (parse_head(mode, leader, trick, points, tp, when_void, &hd) < 0)
        return NULL;
    Public pub;
    memset(&pub, 0, sizeof(pub));
    pub.sides = 3;
    if ((sides && get_int(sides, 1, 3, "sides", &pub.sides) < 0) ||
        get_int(declarer, 0, 3, "declarer", &pub.declarer) < 0 || get_int(level, 0, 13, "level", &pub.level) < 0 ||
        get_int(k, 1, MAX_K, "k (deals per inner decision)", &pub.k) < 0 ||
        get_int(depth, 0, 12, "depth (tricks)", &pub.depth) < 0)
        return NULL;
    if (parse_masks4(played, pub.played, "played must be four card masks") < 0 ||
        parse_masks4(known, pub.known, "known must be four card masks") < 0)
        return NULL;
    if (parse_voids(voids, pub.voids) < 0)
        return NULL;
    pub.dragon_elsewhere = dragon_elsewhere;
    pub.nohelp = nohelp;
    pub.rng = seed;
    PyObject *ds;
    int cc[64];
    Py_ssize_t nc;
    if (parse_deals_codes(deals, codes, &ds, cc, &nc) < 0)
        return NULL;
    Py_ssize_t nd = PySequence_Fast_GET_SIZE(ds);
    PyObject *out = NULL;
    pub.E = exact_new(MEMO_MIN_BITS);
    if (!pub.E) {
        PyErr_NoMemory();
        goto done;
    }
    out = PyList_New(nd * nc);
    if (!out)
        goto done;
    for (Py_ssize_t d = 0; d < nd; d++) {
        Pos base;
        if (parse_deal(PySequence_Fast_GET_ITEM(ds, d), &hd, cc, nc, &base) < 0 || !public_fits(&pub, &base)) {
            Py_CLEAR(out);
            goto done;
        }
        for (Py_ssize_t i = 0; i < nc; i++) {
            Pos q = base;
            Public p2 = pub;
            p2.root_team = ((q.leader + q.n) & 3) & 1;
            p2.rng = splitmix(&pub.rng);
            int seat = (q.leader + q.n) & 3;
            int tr[4];
            memcpy(tr, q.trick, sizeof(tr));
            tr[q.n] = cc[i];
            note_play(&p2, hd.mode, hd.when_void, seat, tr, q.n);
            play(&q, cc[i]);
            int p0 = iimc_playout(p2, q);
            if (p0 < 0 || PyErr_CheckSignals() < 0) {
                if (pub.E->err == NO_DEAL)
                    PyErr_SetString(PyExc_ValueError, "a seat found no deal that fits what it has seen (the "
                                    "position is not a real one)");
                else if (pub.E->err)
                    exact_raise(pub.E);
                Py_CLEAR(out);
                goto done;
            }
            PyList_SET_ITEM(out, d * nc + i, PyLong_FromLong(p0));
        }
    }
done:
    exact_free(pub.E);
    Py_DECREF(ds);
    return out;
}

/* iimc_deals(hands, played, voids, known, dragon_elsewhere, seat, count, seed) -> ``count``
 * deals as the imperfect-information playouts draw them for ``seat`` in the world
 * ``hands`` (its own hand kept, the others' sizes kept, every deal that fits what is
 * public equally likely): what the tests hold to uniformity. */
static PyObject *py_iimc_deals(PyObject *self, PyObject *args)
{
    PyObject *hands, *played, *voids, *known, *seat_o, *count_o;
    int dragon_elsewhere, seat;
    long long count;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OOOOpOOK", &hands, &played, &voids, &known, &dragon_elsewhere, &seat_o, &count_o,
                          &seed))
        return NULL;
    Public pub;
    memset(&pub, 0, sizeof(pub));
    Pos q;
    memset(&q, 0, sizeof(q));
    if (parse_masks4(hands, q.hands, "hands must be four card masks") < 0 ||
        parse_masks4(played, pub.played, "played must be four card masks") < 0 ||
        parse_masks4(known, pub.known, "known must be four card masks") < 0 || parse_voids(voids, pub.voids) < 0 ||
        get_int(seat_o, 0, 3, "seat", &seat) < 0 || get_ll(count_o, 0, MAX_COUNT, "count", &count) < 0)
        return NULL;
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            if (q.hands[a] & q.hands[b]) {
                PyErr_Format(PyExc_ValueError, "card %d is in two hands (seats %d and %d)",
                             ctz64(q.hands[a] & q.hands[b]), a, b);
                return NULL;
            }
    pub.dragon_elsewhere = dragon_elsewhere;
    if (!public_fits(&pub, &q))
        return NULL;
    Exact *E = exact_new(MEMO_MIN_BITS);
    if (!E)
        return PyErr_NoMemory();
    SeatDeals S;
    PyObject *out = NULL;
    if (!seat_deals(&pub, q.hands, seat, &S)) {
        PyErr_SetString(PyExc_ValueError, "no deal fits what the seat has seen");
        goto done;
    }
    out = PyList_New(0);
    u64 st = seed;
    for (long long k = 0; out && k < count; k++) {
        u64 h[4];
        if (!seat_draw(&S, E, &st, h) || PyErr_CheckSignals() < 0) {
            if (E->err)
                exact_raise(E);
            else if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "no deal fits what the seat has seen");
            Py_CLEAR(out);
            break;
        }
        PyObject *tup = Py_BuildValue("(KKKK)", h[0], h[1], h[2], h[3]);
        if (!tup || PyList_Append(out, tup) < 0)
            Py_CLEAR(out);
        Py_XDECREF(tup);
    }
done:
    exact_free(E);
    return out;
}

/* deals_exact(base, free, pile_allowed, pile_need, count, seed) -> list of hand 4-tuples
 * drawn uniformly; [] when no deal is consistent.  ``pile_allowed``/``pile_need``: five
 * entries, seats 0..3 then off the table. */
static PyObject *py_deals_exact(PyObject *self, PyObject *args)
{
    PyObject *base, *free, *allowed_o, *need_o, *count_o;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OOOOOK", &base, &free, &allowed_o, &need_o, &count_o, &seed))
        return NULL;
    u64 b[4];
    u64 allowed[XP];
    long long count;
    if (parse_masks4(base, b, "base must be four card masks") < 0 ||
        parse_masks(allowed_o, XP, allowed, "pile_allowed must be five card masks") < 0 ||
        get_ll(count_o, 0, MAX_COUNT, "count", &count) < 0)
        return NULL;
    u64 placed = 0;
    for (int p = 0; p < 4; p++) {
        if (b[p] & placed) {
            PyErr_Format(PyExc_ValueError, "card %d is in two base hands", ctz64(b[p] & placed));
            return NULL;
        }
        placed |= b[p];
    }
    int need[XP];
    PyObject *nf = PySequence_Fast(need_o, "pile_need must be five counts");
    if (!nf)
        return NULL;
    int bad = PySequence_Fast_GET_SIZE(nf) != XP;
    if (bad)
        PyErr_SetString(PyExc_ValueError, "pile_need must be five counts");
    for (int p = 0; !bad && p < XP; p++)
        bad = get_int(PySequence_Fast_GET_ITEM(nf, p), 0, 53, "a pile's need", &need[p]) < 0;
    Py_DECREF(nf);
    if (bad)
        return NULL;
    for (int p = 0; p < 4; p++)
        if (pop64(b[p]) + need[p] > 13) {
            PyErr_Format(PyExc_ValueError, "seat %d would hold %d cards (at most 13)", p, pop64(b[p]) + need[p]);
            return NULL;
        }
    PyObject *ff = PySequence_Fast(free, "free must be card codes");
    if (!ff)
        return NULL;
    PyObject *out = NULL;
    Exact *E = NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(ff);
    int cards[64];
    if (n > 53) {
        PyErr_SetString(PyExc_ValueError, "at most 53 free cards");
        goto done;
    }
    int total = 0;
    for (int p = 0; p < XP; p++)
        total += need[p];
    if (total != n) {
        PyErr_SetString(PyExc_ValueError, "pile needs must add up to the free cards");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (get_int(PySequence_Fast_GET_ITEM(ff, i), 0, 52, "a free card", &cards[i]) < 0)
            goto done;
        if (placed >> cards[i] & 1) {
            PyErr_Format(PyExc_ValueError, "free card %d is listed twice or is in a base hand", cards[i]);
            goto done;
        }
        placed |= 1ULL << cards[i];
    }
    E = exact_new(MEMO_MIN_BITS);
    if (!E) {
        PyErr_NoMemory();
        goto done;
    }
    exact_groups(E, cards, (int)n, allowed, need);
    int nd[XP];
    memcpy(nd, need, sizeof(nd));
    double all = ways(E, 0, nd);
    if (E->err) {
        exact_raise(E);
        goto done;
    }
    out = PyList_New(0);
    if (!out || !(all > 0.0))
        goto done;
    u64 st = seed;
    for (long long k = 0; k < count; k++) {
        u64 h[4];
        if (!exact_draw(E, need, b, &st, h) || PyErr_CheckSignals() < 0) {
            if (E->err || PyErr_Occurred()) {
                if (E->err)
                    exact_raise(E);
                Py_CLEAR(out);
                goto done;
            }
            break;
        }
        PyObject *tup = Py_BuildValue("(KKKK)", h[0], h[1], h[2], h[3]);
        if (!tup || PyList_Append(out, tup) < 0) {
            Py_XDECREF(tup);
            Py_CLEAR(out);
            goto done;
        }
        Py_DECREF(tup);
    }
done:
    exact_free(E);
    Py_DECREF(ff);
    return out;
}

static PyObject *py_nodes(PyObject *self, PyObject *noargs)
{
    return PyLong_FromUnsignedLongLong(NODES);
}
static PyMethodDef methods[] = {
    {"rollout", py_rollout, METH_VARARGS,
     "rollout(hands, mode, leader, trick, points, tricks_played, when_void) -> final trick points per team "
     "(fast.rollout with the greedy policy)"},
    {"greedy", py_greedy, METH_VARARGS,
     "greedy(hands, mode, leader, trick, points, tricks_played, when_void) -> the greedy policy's move code"},
    {"solve", py_solve, METH_VARARGS,
     "solve(hands, mode, leader, trick, points, tricks_played, when_void) -> final trick points per team "
     "with perfect play (dragon_solve.solve_points)"},
    {"evaluate", py_evaluate, METH_VARARGS,
     "evaluate(deals, codes, mode, leader, trick, points, tricks_played, when_void, exact) -> team 0's final "
     "points, deal-major: each code played in each deal, then greedy rollout (or exact solve)"},
    {"iimc", py_iimc, METH_VARARGS,
     "iimc(deals, codes, mode, leader, trick, points, tp, when_void, played, voids, known, dragon_elsewhere, "
     "declarer, level, nohelp, k, depth, seed) -> team 0's final points, deal-major (imperfect-information playouts)"},
    {"iimc_deals", py_iimc_deals, METH_VARARGS,
     "iimc_deals(hands, played, voids, known, dragon_elsewhere, seat, count, seed) -> ``count`` deals drawn as the "
     "imperfect-information playouts draw them for ``seat`` (exactly uniform over what it knows)"},
    {"deals_exact", py_deals_exact, METH_VARARGS,
     "deals_exact(base, free, pile_allowed, pile_need, count, seed) -> ``count`` deals drawn exactly uniformly "
     "(hand 4-tuples); [] when none is consistent"},
    {"nodes", py_nodes, METH_NOARGS, "solver nodes visited so far (for benchmarks)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_dragonplay",
    "Summon the Dragon card play in C: the greedy rollout and an exact solver (see the .c file's header).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__dragonplay(void)
{
    init_tables();
    return PyModule_Create(&moduledef);
}
