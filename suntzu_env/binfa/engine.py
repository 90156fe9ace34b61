"""The Bin'Fa rules engine: every rule B1-B50 (with BD1-BD32) as compiled functions over the state vector.

The state's RULES field names the rules played: v1.1 for new games, v1 for the records made under it (they replay
as they were played). The rules differ in three places, each reading RULES: the first throw of a turn is compulsory
(BD30), no stack holds more than 12 units (BD31, `room`), and a whirlpool exit never covers (BD32); v1.1 also hides
deployment from the other players (BD6), which is the observation's business, not the engine's.

The state is the int32 vector of `suntzu_env.binfa.layout`. The engine runs the game on by itself until
a decision with at least two legal answers is pending: a decision with one answer applies itself, one
with none passes as the rules say (a lapsed throw, BD15; a pass, B35; a lost retreat, B20). Entry points:

- `init_state(s, seed, level, players, armies, random_deploy, max_turns, chosen, terrain, whirlpools, legal)`:
  setup from the seed (B1, B2, B21, B24, B25, B38), then runs on to the first decision.
- `legal_actions(s, legal)`: writes the legal action ids into `legal`, returns how many.
- `step(s, action, legal)`: applies a legal action, runs on, refills `legal`.
- `step_thrown(s, action, dice, legal)`: `step` with given throws in place of the generator's (B0.5), for
  search over chance; `preset_throws(s, dice)` sets the throws to come (a record's `dice` list).
- `random_game(...)` / `random_playouts(...)`: whole random games in compiled code, for speed measurements
  and invariants (`suntzu_env.binfa.invariants`).
- `check_invariants(s)`: 0, or the code of the first broken invariant (`INVARIANTS`).

Everything runs compiled with numba (`cache=True`) and as plain Python under `NUMBA_DISABLE_JIT=1`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from suntzu_env.binfa.actions import (
    A_ADVANCE,
    A_ARMY,
    A_DEPLOY,
    A_DISLODGE,
    A_MOVE,
    A_PAWN,
    A_RESUPPLY,
    A_RETREAT,
    A_ROLL,
    A_STOP,
    A_TRANSFER,
    MAX_N,
)
from suntzu_env.binfa.geometry import (
    CENTRAL,
    CIRCLE_SECTOR,
    CIRCLES_PER_SECTOR,
    EDGE_FROM,
    EDGE_OF,
    EDGE_TO,
    ELIMINATION_UNITS,
    N_CIRCLES,
    N_COLOURS,
    N_TERRAIN,
    N_TRIANGLES,
    N_UNITS,
    N_WHIRLPOOLS,
    NEIGHBOURS,
    PER_SECTOR,
    RING_COLOUR,
    STORE_TOKENS,
    UNITS_PER_ARMY,
)
from suntzu_env.binfa.layout import (
    ALIVE,
    ARMIES_PER,
    ARMY_PLAYER,
    ATTACK_FROM,
    ATTACK_TO,
    DEC_KIND,
    DEPLOY_ARMY,
    DEPLOY_LEFT,
    DEPLOY_RANDOM,
    DICE,
    DICE_Q,
    DICE_QLEN,
    DICE_QPOS,
    DK_ARMY,
    DK_DECLARE,
    DK_DEPLOY,
    DK_MOVE,
    DK_NONE,
    DK_PAWN,
    DK_RESUPPLY,
    DK_RETREAT,
    DK_TRANSFER,
    FRESH,
    GENERATOR_OF,
    HEIGHT,
    LEVEL,
    MAX_PLAYERS,
    MAX_STACK_UNITS,
    MAX_TURNS,
    MODE,
    MODE_MOVE,
    MODE_NONE,
    MODE_RESUPPLY,
    MOVES_LEFT,
    OUT_RANK,
    PAWN,
    PH_DEPLOY,
    PH_OVER,
    PH_PAWNS,
    PH_PLAY,
    PHASE,
    PLAYER_SECTOR,
    PLAYERS,
    REMOVED,
    RETREAT_AT,
    RETREAT_N,
    RETREAT_STEP,
    RNG,
    RULES,
    RULES_V1,
    RULES_V1_1,
    RUN,
    STATE_DTYPE,
    STATE_SIZE,
    STORE,
    TERRAIN,
    TO_ACT,
    TOKENS,
    TOP,
    TRANSFER_FROM,
    TRANSFER_TO,
    TRANSIT,
    TURN_ARMY,
    TURN_PLAYER,
    TURNS,
    UNDECIDED,
    UNIT_AT,
    UNIT_LEVEL,
    WHIRLPOOLS,
    WINNER,
)
from suntzu_env.core.rng import draw_below, rng_below, rng_seed, setup_seed, xorshift32

MASK32 = 0xFFFFFFFF
LEGAL_CAPACITY = 512  # more than any decision offers (a turn army's moves are at most 3 x (12 + 12))
OPEN, MARKER, WHIRLPOOL = 0, 1, 2  # TERRAIN codes

# ------------------------------------------------------------------ randomness (B0.5)


@njit(cache=True)
def seed_state(s: np.ndarray, seed: int, legacy: bool) -> None:
    """Seeds the game's generator from any seed in [0, 2**63): the one generator of new games (`rng_seed`), or with
    `legacy` that of records made before it (`legacy_seed`, 32 bits)."""
    s[GENERATOR_OF] = 0 if legacy else 1
    store_generator(s, setup_seed(seed, legacy)[0])


@njit(cache=True, inline="always")
def generator_state(s: np.ndarray) -> int:
    """The generator's 64-bit state (an int64's bits) from its two int32 halves."""
    return (np.int64(s[RNG + 1]) << 32) | (np.int64(s[RNG]) & MASK32)


@njit(cache=True, inline="always")
def store_generator(s: np.ndarray, x: int) -> None:
    """Writes the generator state `x` (an int64's bits) as two int32 halves."""
    lo = np.int64(x) & MASK32
    hi = (np.int64(x) >> 32) & MASK32
    s[RNG] = lo - (1 << 32) if lo >= (1 << 31) else lo
    s[RNG + 1] = hi - (1 << 32) if hi >= (1 << 31) else hi


@njit(cache=True)
def below(s: np.ndarray, n: int) -> int:
    """A uniform integer in [0, n) from the state's generator (as the older records' drew it, where it is theirs)."""
    if s[GENERATOR_OF] == 0:
        x = xorshift32(np.int64(s[RNG]) & MASK32)
        store_generator(s, x)
        return x % n
    k, x = draw_below(generator_state(s), n)
    store_generator(s, x)
    return k


@njit(cache=True)
def throw(s: np.ndarray) -> None:
    """B0.5: two dice into DICE, from the record's preset throws first, then from the generator."""
    pos = s[DICE_QPOS]
    if pos < s[DICE_QLEN]:
        s[DICE] = s[DICE_Q + 2 * pos]
        s[DICE + 1] = s[DICE_Q + 2 * pos + 1]
        s[DICE_QPOS] = pos + 1
    else:
        s[DICE] = below(s, 6) + 1
        s[DICE + 1] = below(s, 6) + 1


@njit(cache=True)
def preset_throws(s: np.ndarray, dice: np.ndarray) -> None:
    """B0.5: the next throws are the rows of `dice` ((k, 2), dice 1..6, k <= DICE_CAPACITY), in order, in
    place of any preset ones; the generator throws after them. A record's `dice` list is set here."""
    for i in range(dice.shape[0]):
        s[DICE_Q + 2 * i] = dice[i, 0]
        s[DICE_Q + 2 * i + 1] = dice[i, 1]
    s[DICE_QLEN] = dice.shape[0]
    s[DICE_QPOS] = 0


# ------------------------------------------------------------------ stacks (B1, B4, B7)


@njit(cache=True)
def refresh(s: np.ndarray, t: int) -> None:
    """Recomputes TOP and RUN of place `t` from its units."""
    h = s[HEIGHT + t]
    if h == 0:
        s[TOP + t] = -1
        s[RUN + t] = 0
        if t < N_TRIANGLES:
            s[FRESH + t] = 0
        return
    top = -1
    for u in range(N_UNITS):
        if s[UNIT_AT + u] == t and s[UNIT_LEVEL + u] == h - 1:
            top = u // UNITS_PER_ARMY
            break
    lowest = -1
    for u in range(N_UNITS):
        if s[UNIT_AT + u] == t and u // UNITS_PER_ARMY != top and s[UNIT_LEVEL + u] > lowest:
            lowest = s[UNIT_LEVEL + u]
    s[TOP + t] = top
    s[RUN + t] = h - 1 - lowest


@njit(cache=True)
def move_top(s: np.ndarray, a: int, b: int, n: int) -> None:
    """B4: the top `n` units of place `a` go, in order, on top of place `b` (covering what is there, B7)."""
    h = s[HEIGHT + a]
    base = h - n
    hb = s[HEIGHT + b]
    c = s[TOP + a]
    run = s[RUN + a]
    for u in range(N_UNITS):
        if s[UNIT_AT + u] == a and s[UNIT_LEVEL + u] >= base:
            s[UNIT_AT + u] = b
            s[UNIT_LEVEL + u] = hb + s[UNIT_LEVEL + u] - base
    s[HEIGHT + a] = base
    s[HEIGHT + b] = hb + n
    # the stacks' colours and runs follow without a scan, except when a covered unit is uncovered
    if n < run:
        s[RUN + a] = run - n
    else:
        refresh(s, a)
    if n > run:
        s[RUN + b] = run
    elif s[TOP + b] == c:
        s[RUN + b] += n
    else:
        s[RUN + b] = n
    s[TOP + b] = c


@njit(cache=True)
def remove_top(s: np.ndarray, t: int, n: int) -> None:
    """The top `n` units of place `t` leave the game (captured, lost or eliminated)."""
    base = s[HEIGHT + t] - n
    for u in range(N_UNITS):
        if s[UNIT_AT + u] == t and s[UNIT_LEVEL + u] >= base:
            s[UNIT_AT + u] = -1
            s[REMOVED + u // UNITS_PER_ARMY] += 1
    s[HEIGHT + t] = base
    refresh(s, t)


@njit(cache=True)
def room(s: np.ndarray, t: int) -> int:
    """BD31: how many units place `t` may still receive: up to 12 a stack under rules v1.1, no limit under v1."""
    if s[RULES] == RULES_V1:
        return N_UNITS
    return MAX_STACK_UNITS - s[HEIGHT + t]


@njit(cache=True)
def may_enter(s: np.ndarray, colour: int, t: int) -> bool:
    """B6, B7, B22: units of `colour` may enter open triangle `t` (empty, one unit, or their own colour)."""
    return s[TERRAIN + t] == OPEN and (s[HEIGHT + t] < 2 or s[TOP + t] == colour)


@njit(cache=True)
def surrounded(s: np.ndarray, t: int) -> bool:
    """B10, B11, B23, B43: the stack on `t` (2 units or more) has every neighbour held by a stack of 2 or
    more of another colour, or by terrain; a whirlpool never surrounds."""
    if s[HEIGHT + t] < 2 or s[TERRAIN + t] != OPEN:
        return False
    c = s[TOP + t]
    for j in range(3):
        u = NEIGHBOURS[t, j]
        if u < 0:
            continue
        if s[TERRAIN + u] == MARKER:
            continue
        if s[TERRAIN + u] == WHIRLPOOL or s[HEIGHT + u] < 2 or s[TOP + u] == c:
            return False
    return True


@njit(cache=True)
def strength(s: np.ndarray, c: int) -> int:
    """B12: the units of army `c`: those of every stack it tops, covered units included."""
    total = 0
    for t in range(N_TRIANGLES + 1):
        if s[TOP + t] == c:
            total += s[HEIGHT + t]
    return total


# ------------------------------------------------------------------ capture, elimination, the end


@njit(cache=True)
def game_over(s: np.ndarray, winner: int) -> None:
    s[WINNER] = winner
    s[PHASE] = PH_OVER
    s[DEC_KIND] = DK_NONE
    s[TO_ACT] = -1


@njit(cache=True)
def eliminate(s: np.ndarray, c: int, by_whirlpool: bool) -> None:
    """B12: army `c` leaves the game with every stack it tops; its tokens go to the army that played
    (B37) or, after a loss in a whirlpool, back to the store (B44) (BD19)."""
    s[ALIVE + c] = 0
    for t in range(N_TRIANGLES + 1):
        if s[TOP + t] == c:
            remove_top(s, t, s[HEIGHT + t])
    taker = s[TURN_ARMY]
    if by_whirlpool or taker < 0 or taker == c or s[ALIVE + taker] == 0:
        s[STORE] += s[TOKENS + c]
    else:
        s[TOKENS + taker] += s[TOKENS + c]
    s[TOKENS + c] = 0
    s[PAWN + c] = -1


@njit(cache=True)
def settle(s: np.ndarray, by_whirlpool: bool) -> bool:
    """After every move, retreat, transfer or loss (BD9): surrounded stacks are captured all at once
    (B10, B11), armies of 3 units or fewer are eliminated (B12), a lone unit of an eliminated army
    leaves (BD20), and the last player in the game wins (B13). True when the game is over."""
    lo = 0
    hi = 0
    for t in range(N_TRIANGLES):
        if surrounded(s, t):
            if t < 64:
                lo |= 1 << t
            else:
                hi |= 1 << (t - 64)
    if lo != 0 or hi != 0:
        for t in range(N_TRIANGLES):
            if (t < 64 and (lo >> t) & 1) or (t >= 64 and (hi >> (t - 64)) & 1):
                remove_top(s, t, s[HEIGHT + t])
    units = np.zeros(N_COLOURS, dtype=np.int64)
    for t in range(N_TRIANGLES + 1):
        c = s[TOP + t]
        if c >= 0:
            if s[ALIVE + c] == 0:  # BD20: a lone unit of an eliminated army, uncovered
                remove_top(s, t, s[HEIGHT + t])
            else:
                units[c] += s[HEIGHT + t]
    eliminated = False
    for c in range(N_COLOURS):
        if s[ALIVE + c] == 1 and units[c] <= ELIMINATION_UNITS:
            eliminate(s, c, by_whirlpool)
            eliminated = True
    if not eliminated:
        return False
    out = 0
    for p in range(s[PLAYERS]):
        if s[OUT_RANK + p] > 0:
            out += 1
    for p in range(s[PLAYERS]):
        if s[OUT_RANK + p] == 0:
            has = False
            for c in range(N_COLOURS):
                if s[ARMY_PLAYER + c] == p and s[ALIVE + c] == 1:
                    has = True
            if not has:
                out += 1
                s[OUT_RANK + p] = out
    if out >= s[PLAYERS] - 1:
        winner = UNDECIDED  # BD21: nobody left
        for p in range(s[PLAYERS]):
            if s[OUT_RANK + p] == 0:
                winner = p
        game_over(s, winner)
        return True
    return False


@njit(cache=True)
def lose_whirlpools(s: np.ndarray, c: int, old_only: bool) -> bool:
    """B40-B42: the units of army `c` in whirlpools are lost (only those that came before this throw
    when `old_only`). True when any were."""
    lost = False
    for i in range(N_WHIRLPOOLS):
        w = s[WHIRLPOOLS + i]
        if w >= 0 and s[TOP + w] == c and (not old_only or s[FRESH + w] == 0):
            remove_top(s, w, s[HEIGHT + w])
            lost = True
    return lost


# ------------------------------------------------------------------ turns (B2, B8, B9, B47, B48)


@njit(cache=True)
def next_player(s: np.ndarray, p: int) -> int:
    """BD7: the next player clockwise (by the sector of its first army) still in the game."""
    for step_ in range(1, N_COLOURS + 1):
        sector = (s[PLAYER_SECTOR + p] + step_) % N_COLOURS
        for q in range(s[PLAYERS]):
            if q != p and s[PLAYER_SECTOR + q] == sector and s[OUT_RANK + q] == 0:
                return q
    return p


@njit(cache=True)
def begin_turn(s: np.ndarray, p: int) -> None:
    """The player `p` takes the dice: it names an army when it has several (B48)."""
    s[TURN_PLAYER] = p
    s[TO_ACT] = p
    s[MODE] = MODE_NONE
    s[MOVES_LEFT] = 0
    s[ATTACK_FROM] = -1
    s[ATTACK_TO] = -1
    s[RETREAT_AT] = -1
    s[TRANSFER_FROM] = -1
    s[TURN_ARMY] = -1
    alive = 0
    last = -1
    for c in range(N_COLOURS):
        if s[ARMY_PLAYER + c] == p and s[ALIVE + c] == 1:
            alive += 1
            last = c
    if alive == 1:
        s[TURN_ARMY] = last
        s[DEC_KIND] = DK_DECLARE
    else:
        s[DEC_KIND] = DK_ARMY


@njit(cache=True)
def end_turn(s: np.ndarray) -> None:
    """The dice pass clockwise (B2, B47); the game ends undecided after max_turns turns (BD5)."""
    s[TURNS] += 1
    if s[TURNS] >= s[MAX_TURNS]:
        game_over(s, UNDECIDED)
        return
    begin_turn(s, next_player(s, s[TURN_PLAYER]))


@njit(cache=True)
def settled(s: np.ndarray, by_whirlpool: bool) -> bool:
    """`settle`, then the turn ends if its army left the game. True when play moved on (over or next turn)."""
    if settle(s, by_whirlpool):
        return True
    if s[TURN_ARMY] >= 0 and s[ALIVE + s[TURN_ARMY]] == 0:
        end_turn(s)
        return True
    return False


@njit(cache=True)
def new_throw(s: np.ndarray, c: int) -> None:
    """B39, B40: at its army's next move throw, units waiting in whirlpools may leave (and must)."""
    for i in range(N_WHIRLPOOLS):
        w = s[WHIRLPOOLS + i]
        if w >= 0 and s[TOP + w] == c:
            s[FRESH + w] = 0


@njit(cache=True)
def double_ends_turn(s: np.ndarray) -> None:
    """B8, B41: a double ends the turn; the army's units in whirlpools are lost."""
    if lose_whirlpools(s, s[TURN_ARMY], False) and settled(s, True):
        return
    end_turn(s)


@njit(cache=True)
def end_throw(s: np.ndarray) -> None:
    """The throw's moves are made (or lapse, BD15): units still waiting in whirlpools are lost (B40, B42);
    the player declares again (B8, B9)."""
    if lose_whirlpools(s, s[TURN_ARMY], True) and settled(s, True):
        return
    s[MOVES_LEFT] = 0
    s[DEC_KIND] = DK_DECLARE
    s[TO_ACT] = s[TURN_PLAYER]


@njit(cache=True)
def finish_move(s: np.ndarray) -> None:
    s[MOVES_LEFT] -= 1
    if settled(s, False):
        return
    if s[MOVES_LEFT] == 0:
        end_throw(s)
    else:
        s[DEC_KIND] = DK_MOVE


@njit(cache=True)
def pay(s: np.ndarray) -> None:
    """B28: at level 3 and up, a move throw costs one token, paid to the store before the throw."""
    if s[LEVEL] >= 3:
        s[TOKENS + s[TURN_ARMY]] -= 1
        s[STORE] += 1


# ------------------------------------------------------------------ dislodging (B14-B20, B43, B45, B46)


@njit(cache=True)
def attacker_advances(s: np.ndarray, second: int) -> bool:
    """B16, B18: the attacking stack moves whole onto the freed triangle, then for a double six on to the
    second triangle left when it may enter it (BD17); never to make a stack over 12 units (BD31: it stays).
    True when play moved on."""
    a = s[ATTACK_FROM]
    b = s[ATTACK_TO]
    c = s[TURN_ARMY]
    s[RETREAT_AT] = -1
    if s[HEIGHT + a] > 0 and s[TOP + a] == c and may_enter(s, c, b) and s[HEIGHT + a] <= room(s, b):
        move_top(s, a, b, s[HEIGHT + a])
        if second >= 0 and may_enter(s, c, second) and s[HEIGHT + b] <= room(s, second):
            move_top(s, b, second, s[HEIGHT + b])
        if settled(s, False):
            return True
    return False


@njit(cache=True)
def retreat_done(s: np.ndarray) -> None:
    """After a retreat step: more units to retreat, the second step, or the attacker's advance."""
    step_ = s[RETREAT_STEP]
    at = s[RETREAT_AT]
    b = s[ATTACK_TO]
    c = s[TURN_ARMY]
    if step_ == 0:
        if s[HEIGHT + b] > 0 and s[TOP + b] != c:
            s[TO_ACT] = s[ARMY_PLAYER + s[TOP + b]]  # BD23: the owner of the units now on top retreats them
            s[DEC_KIND] = DK_RETREAT
            return
        if attacker_advances(s, -1):
            return
        s[ATTACK_FROM] = -1
        s[ATTACK_TO] = -1
        s[MOVES_LEFT] = abs(s[DICE] - s[DICE + 1])
        s[TO_ACT] = s[TURN_PLAYER]
        s[DEC_KIND] = DK_MOVE
        return
    if step_ == 1 and at >= 0 and s[HEIGHT + at] >= s[RETREAT_N] and s[HEIGHT + at] > 0:
        s[RETREAT_STEP] = 2
        s[TO_ACT] = s[ARMY_PLAYER + s[TOP + at]]
        s[DEC_KIND] = DK_RETREAT
        return
    if attacker_advances(s, at):
        return
    double_ends_turn(s)  # B18: 6 - 6 = 0 moves, and a double


@njit(cache=True)
def retreat_lost(s: np.ndarray) -> None:
    """B20, B43, B45: the retreating units have nowhere to go: they are lost."""
    at = s[RETREAT_AT]
    n = s[HEIGHT + at] if s[RETREAT_STEP] < 2 else s[RETREAT_N]
    into_whirlpool = False
    for j in range(3):
        u = NEIGHBOURS[at, j]
        if u >= 0 and s[TERRAIN + u] == WHIRLPOOL:
            into_whirlpool = True
    remove_top(s, at, n)
    if s[RETREAT_STEP] == 1:
        s[RETREAT_AT] = -1  # nothing took the first step: the attacker stops on the freed triangle
    if settled(s, into_whirlpool):
        return
    retreat_done(s)


# ------------------------------------------------------------------ supply (B24-B37)


@njit(cache=True)
def holds_in_sector(s: np.ndarray, c: int, sector: int) -> bool:
    """B31: army `c` tops a stack on an open triangle of `sector`."""
    for i in range(PER_SECTOR):
        t = PER_SECTOR * sector + i
        if s[TOP + t] == c and s[TERRAIN + t] == OPEN:
            return True
    return False


@njit(cache=True)
def landing_free(s: np.ndarray, c: int, circle: int) -> bool:
    """B34: no other pawn stands on `circle`."""
    for x in range(N_COLOURS):
        if x != c and s[PAWN + x] == circle:
            return False
    return True


@njit(cache=True)
def resupply_after(s: np.ndarray) -> None:
    """B27: a double throws again, else the turn ends."""
    if s[DICE] == s[DICE + 1]:
        throw(s)
        s[DEC_KIND] = DK_RESUPPLY
    else:
        end_turn(s)


@njit(cache=True)
def advance_pawn(s: np.ndarray, k: int) -> None:
    """B29-B33: the pawn moves `k` circles clockwise and the army takes its tokens."""
    c = s[TURN_ARMY]
    circle = (s[PAWN + c] + k) % N_CIRCLES
    s[PAWN + c] = circle
    sector = CIRCLE_SECTOR[circle]
    owner = sector  # the army of that base
    if circle == CENTRAL[sector] and s[ALIVE + owner] == 1 and s[ARMY_PLAYER + owner] != s[ARMY_PLAYER + c]:
        take = min(k, s[TOKENS + owner])  # B32 (BD11), B33
        s[TOKENS + owner] -= take
        s[TOKENS + c] += take
    elif RING_COLOUR[circle] == c or holds_in_sector(s, c, RING_COLOUR[circle]):
        take = min(k, s[STORE])  # B30, B31, B33
        s[STORE] -= take
        s[TOKENS + c] += take
    resupply_after(s)


# ------------------------------------------------------------------ setup (B1, B2, B21, B24, B25, B38)


@njit(cache=True)
def connected(blocked: np.ndarray) -> bool:
    """B21: the triangles not blocked (terrain or whirlpool, BD22) form one connected field."""
    seen = np.zeros(N_TRIANGLES, dtype=np.int8)
    queue = np.zeros(N_TRIANGLES, dtype=np.int64)
    start = -1
    total = 0
    for t in range(N_TRIANGLES):
        if blocked[t] == 0:
            total += 1
            if start < 0:
                start = t
    if start < 0:
        return False
    queue[0] = start
    seen[start] = 1
    head, tail = 0, 1
    while head < tail:
        t = queue[head]
        head += 1
        for j in range(3):
            u = NEIGHBOURS[t, j]
            if u >= 0 and blocked[u] == 0 and seen[u] == 0:
                seen[u] = 1
                queue[tail] = u
                tail += 1
    return tail == total


@njit(cache=True)
def army_of(s: np.ndarray, k: int) -> int:
    """The army at seat-order index `k`: players in seat order, each player's armies clockwise (BD6)."""
    per = s[ARMIES_PER]
    return (s[PLAYER_SECTOR + k // per] + k % per) % N_COLOURS


@njit(cache=True)
def lowest_throw(s: np.ndarray, candidates: np.ndarray) -> int:
    """B2, B25: the candidates throw two dice; the lowest total wins, ties throw again."""
    while True:
        best = 99
        for p in range(s[PLAYERS]):
            if candidates[p] == 1:
                throw(s)
                total = s[DICE] + s[DICE + 1]
                candidates[p] = 10 + total  # marks this round's totals
                if total < best:
                    best = total
        n = 0
        winner = -1
        for p in range(s[PLAYERS]):
            if candidates[p] >= 10:
                if candidates[p] - 10 == best:
                    candidates[p] = 1
                    n += 1
                    winner = p
                else:
                    candidates[p] = 0
        if n == 1:
            return winner


@njit(cache=True)
def start_play(s: np.ndarray) -> None:
    """B2 (levels 1-2) or B25 (levels 3-4): who starts, then the first turn."""
    candidates = np.zeros(MAX_PLAYERS, dtype=np.int64)
    if s[LEVEL] >= 3:
        for k in range(s[PLAYERS] * s[ARMIES_PER]):
            c = army_of(s, k)
            throw(s)
            take = min(s[DICE] + s[DICE + 1], s[STORE])
            s[STORE] -= take
            s[TOKENS + c] += take
        fewest = 1 << 30
        for p in range(s[PLAYERS]):
            total = 0
            for c in range(N_COLOURS):
                if s[ARMY_PLAYER + c] == p:
                    total += s[TOKENS + c]
            candidates[p] = total
            fewest = min(fewest, total)
        for p in range(s[PLAYERS]):
            candidates[p] = 1 if candidates[p] == fewest else 0
    else:
        for p in range(s[PLAYERS]):
            candidates[p] = 1
    n = 0
    first = -1
    for p in range(s[PLAYERS]):
        if candidates[p] == 1:
            n += 1
            first = p
    if n > 1:
        first = lowest_throw(s, candidates)
    s[PHASE] = PH_PLAY
    begin_turn(s, first)


@njit(cache=True)
def deployed(s: np.ndarray) -> None:
    """All units stand: a stack deployed in a pocket closed by terrain is surrounded already and is captured
    (BD9, BD26); then pawns (level 3+, B24), else who starts."""
    if settle(s, False):
        return
    if s[LEVEL] >= 3:
        s[PHASE] = PH_PAWNS
        s[DEPLOY_ARMY] = 0
        s[DEC_KIND] = DK_PAWN
        s[TO_ACT] = 0
    else:
        start_play(s)


@njit(cache=True)
def place_unit(s: np.ndarray, c: int, t: int) -> None:
    u = UNITS_PER_ARMY * c + UNITS_PER_ARMY - s[DEPLOY_LEFT]
    s[UNIT_AT + u] = t
    s[UNIT_LEVEL + u] = s[HEIGHT + t]
    s[HEIGHT + t] += 1
    s[TOP + t] = c
    s[RUN + t] += 1
    s[REMOVED + c] -= 1
    s[DEPLOY_LEFT] -= 1


@njit(cache=True)
def init_state(
    s: np.ndarray,
    seed: int,
    level: int,
    players: int,
    armies: int,
    random_deploy: int,
    max_turns: int,
    chosen: int,
    terrain: np.ndarray,
    whirlpools: np.ndarray,
    legal: np.ndarray,
    legacy: bool = False,
    rules: int = RULES_V1_1,
) -> int:
    """Sets a new game up from `seed`; with `chosen`, `terrain`/`whirlpools` hold the chosen triangles, else
    the seed draws them (B21, B38). Runs on to the first decision and returns its number of legal answers.
    `legacy`: seeded as a record that names no generator was (`seed_state`); `rules`: the rules played
    (`layout.RULES_VERSIONS` index; v1 only to replay the records made under it)."""
    s[:] = 0
    s[RULES] = rules
    s[LEVEL] = level
    s[PLAYERS] = players
    s[ARMIES_PER] = armies
    s[DEPLOY_RANDOM] = random_deploy
    s[MAX_TURNS] = max_turns
    seed_state(s, seed, legacy)
    s[WINNER] = -1
    s[STORE] = STORE_TOKENS
    for c in range(N_COLOURS):
        s[ARMY_PLAYER + c] = -1
        s[PAWN + c] = -1
    for t in range(N_TRIANGLES + 1):
        s[TOP + t] = -1
    for u in range(N_UNITS):
        s[UNIT_AT + u] = -1
    for i in range(N_WHIRLPOOLS):
        s[WHIRLPOOLS + i] = -1
    for p in range(MAX_PLAYERS):
        s[PLAYER_SECTOR + p] = -1
    s[ATTACK_FROM] = -1
    s[ATTACK_TO] = -1
    s[RETREAT_AT] = -1
    s[TRANSFER_FROM] = -1
    s[TURN_ARMY] = -1
    s[TO_ACT] = -1
    # B21, B38: terrain before the armies are drawn
    if level >= 2:
        n_marks = N_TERRAIN
        n_pools = 0 if level < 4 else N_WHIRLPOOLS
        if chosen == 0:
            blocked = np.zeros(N_TRIANGLES, dtype=np.int8)
            pick = np.arange(N_TRIANGLES)
            while True:
                for i in range(n_marks + n_pools):  # a uniform draw of distinct triangles
                    j = i + below(s, N_TRIANGLES - i)
                    pick[i], pick[j] = pick[j], pick[i]
                blocked[:] = 0
                for i in range(n_marks + n_pools):
                    blocked[pick[i]] = 1
                if connected(blocked):
                    break
            for i in range(n_marks):
                s[TERRAIN + pick[i]] = MARKER
            for i in range(n_pools):
                s[TERRAIN + pick[n_marks + i]] = WHIRLPOOL
                s[WHIRLPOOLS + i] = pick[n_marks + i]
        else:
            for i in range(terrain.shape[0]):
                s[TERRAIN + terrain[i]] = MARKER
            for i in range(whirlpools.shape[0]):
                s[TERRAIN + whirlpools[i]] = WHIRLPOOL
                s[WHIRLPOOLS + i] = whirlpools[i]
    # B1, BD4: the armies' colours
    if armies == 1:
        order = np.arange(N_COLOURS)
        for i in range(N_COLOURS - 1, 0, -1):
            j = below(s, i + 1)
            order[i], order[j] = order[j], order[i]
        for p in range(players):
            s[PLAYER_SECTOR + p] = order[p]
    else:
        b = below(s, N_COLOURS)
        order = np.arange(players)
        for i in range(players - 1, 0, -1):
            j = below(s, i + 1)
            order[i], order[j] = order[j], order[i]
        for p in range(players):
            s[PLAYER_SECTOR + p] = (b + armies * order[p]) % N_COLOURS
    for p in range(players):
        for k in range(armies):
            c = (s[PLAYER_SECTOR + p] + k) % N_COLOURS
            s[ARMY_PLAYER + c] = p
            s[ALIVE + c] = 1
            s[REMOVED + c] = UNITS_PER_ARMY  # counted back as they are placed
    s[PHASE] = PH_DEPLOY
    s[DEPLOY_ARMY] = 0
    s[DEPLOY_LEFT] = UNITS_PER_ARMY
    if random_deploy == 1:  # B1: the seed places every unit uniformly on its base's open triangles
        free = np.zeros(PER_SECTOR, dtype=np.int64)
        for k in range(players * armies):
            c = army_of(s, k)
            n = 0
            for i in range(PER_SECTOR):
                if s[TERRAIN + PER_SECTOR * c + i] == OPEN:
                    free[n] = PER_SECTOR * c + i
                    n += 1
            s[DEPLOY_LEFT] = UNITS_PER_ARMY
            for _ in range(UNITS_PER_ARMY):
                place_unit(s, c, free[below(s, n)])
        deployed(s)
    else:
        s[DEC_KIND] = DK_DEPLOY
        s[TO_ACT] = 0
    return advance(s, legal)


# ------------------------------------------------------------------ the legal answers


@njit(cache=True)
def push_counts(legal: np.ndarray, n: int, base: int, height: int, run: int, cap: int) -> int:
    """Appends base + count - 1 for every count a stack may give: 1..run, or all of it (B4, BD8), of at most
    `cap` units (where they go has room for, BD31)."""
    for k in range(1, min(run, cap) + 1):
        legal[n] = base + k - 1
        n += 1
    if run < height <= cap:
        legal[n] = base + height - 1
        n += 1
    return n


@njit(cache=True)
def free_whirlpool(s: np.ndarray, entry: int) -> bool:
    """BD13: another whirlpool is empty, so units entering `entry` can be sent on."""
    for i in range(N_WHIRLPOOLS):
        w = s[WHIRLPOOLS + i]
        if w >= 0 and w != entry and s[HEIGHT + w] == 0:
            return True
    return False


@njit(cache=True)
def legal_actions(s: np.ndarray, legal: np.ndarray) -> int:
    """Writes the legal action ids of the pending decision into `legal`; returns how many."""
    kind = s[DEC_KIND]
    n = 0
    if kind == DK_NONE:
        return 0
    if kind == DK_DEPLOY:  # B1, B22
        c = army_of(s, s[DEPLOY_ARMY])
        for i in range(PER_SECTOR):
            t = PER_SECTOR * c + i
            if s[TERRAIN + t] == OPEN:
                legal[n] = A_DEPLOY + t
                n += 1
        return n
    if kind == DK_PAWN:  # B24
        c = army_of(s, s[DEPLOY_ARMY])
        for k in range(CIRCLES_PER_SECTOR):
            legal[n] = A_PAWN + CIRCLES_PER_SECTOR * c + k
            n += 1
        return n
    p = s[TURN_PLAYER]
    empty_store = s[LEVEL] >= 3 and s[STORE] == 0
    if kind == DK_ARMY:  # B48 (B35: an army that can pay)
        for c in range(N_COLOURS):
            if s[ARMY_PLAYER + c] == p and s[ALIVE + c] == 1 and (not empty_store or s[TOKENS + c] > 0):
                legal[n] = A_ARMY + c
                n += 1
        return n
    c = s[TURN_ARMY]
    if kind == DK_DECLARE:  # B9, B15, B26, B28, B35
        can_pay = s[LEVEL] < 3 or s[TOKENS + c] > 0
        if can_pay:
            legal[n] = A_ROLL
            n += 1
            for t in range(N_TRIANGLES):  # B14: a higher stack of the army beside an enemy stack
                if s[TOP + t] != c:
                    continue
                for j in range(3):
                    u = NEIGHBOURS[t, j]
                    if (
                        u >= 0
                        and s[TERRAIN + u] == OPEN
                        and s[HEIGHT + u] > 0
                        and s[TOP + u] != c
                        and s[HEIGHT + t] > s[HEIGHT + u]
                    ):
                        legal[n] = A_DISLODGE + EDGE_OF[t, j]
                        n += 1
        if s[LEVEL] >= 3 and s[MODE] == MODE_NONE and not empty_store:
            legal[n] = A_RESUPPLY
            n += 1
        # B9: v1.1 offers stop only once the turn threw (BD30); v1 before any throw too, unless the store is empty (B35)
        thrown = s[MODE] != MODE_NONE
        if thrown or (s[RULES] == RULES_V1 and not empty_store):
            legal[n] = A_STOP
            n += 1
        return n
    if kind == DK_MOVE:  # B4-B7, B22, B39, B40
        on_board = 0
        for t in range(N_TRIANGLES):
            if s[TOP + t] == c and s[TERRAIN + t] == OPEN:
                on_board += 1
        last = s[MOVES_LEFT] == 1
        for t in range(N_TRIANGLES):
            if s[TOP + t] != c:
                continue
            if s[TERRAIN + t] == WHIRLPOOL and s[FRESH + t] == 1:
                continue  # B39: not before the army's next throw
            h = s[HEIGHT + t]
            run = s[RUN + t]
            exit_ = s[TERRAIN + t] == WHIRLPOOL
            for j in range(3):
                u = NEIGHBOURS[t, j]
                if u < 0 or s[TERRAIN + u] == MARKER:
                    continue
                base = A_MOVE + EDGE_OF[t, j] * MAX_N
                if s[TERRAIN + u] == WHIRLPOOL:
                    if not free_whirlpool(s, u):
                        continue
                    if s[TERRAIN + t] == OPEN and on_board == 1 and not last:
                        # B39: the army's last units on the board may enter only with the throw's last move
                        n = push_counts(legal, n, base, run - 1, run - 1, N_UNITS)
                        continue
                    n = push_counts(legal, n, base, h, run, N_UNITS)
                elif may_enter(s, c, u):
                    if exit_ and s[HEIGHT + u] > 0 and s[TOP + u] != c and s[RULES] != RULES_V1:
                        continue  # BD32: leaving a whirlpool onto a lone unit is a dislodge (B46), never a covering
                    n = push_counts(legal, n, base, h, run, room(s, u))
        return n
    if kind == DK_TRANSFER:  # B39, BD13
        for i in range(N_WHIRLPOOLS):
            w = s[WHIRLPOOLS + i]
            if w >= 0 and w != s[TRANSFER_FROM] and (s[HEIGHT + w] == 0 or s[TRANSFER_TO + w] == 1):
                n = push_counts(legal, n, A_TRANSFER + w * MAX_N, s[HEIGHT + TRANSIT], s[RUN + TRANSIT], room(s, w))
        return n
    if kind == DK_RETREAT:  # B16, B18, B19, B20, B43, B45, BD10, BD31
        at = s[RETREAT_AT]
        col = s[TOP + at]
        step_ = s[RETREAT_STEP]
        for j in range(3):
            u = NEIGHBOURS[at, j]
            if u < 0 or not may_enter(s, col, u) or (step_ == 2 and u == s[ATTACK_TO]):
                continue
            base = A_RETREAT + u * MAX_N
            if step_ == 0:
                n = push_counts(legal, n, base, s[HEIGHT + at], s[RUN + at], room(s, u))
            elif step_ == 1:
                if s[HEIGHT + at] <= room(s, u):
                    legal[n] = base + s[HEIGHT + at] - 1
                    n += 1
            elif s[RETREAT_N] <= room(s, u):
                legal[n] = base + s[RETREAT_N] - 1
                n += 1
        return n
    if kind == DK_RESUPPLY:  # B29, B34
        d1 = s[DICE]
        d2 = s[DICE + 1]
        for k in range(1, 13):
            if (k == d1 or k == d2 or k == d1 + d2) and landing_free(s, c, (s[PAWN + c] + k) % N_CIRCLES):
                legal[n] = A_ADVANCE + k - 1
                n += 1
        return n
    return 0


# ------------------------------------------------------------------ applying an answer


@njit(cache=True)
def apply_action(s: np.ndarray, a: int) -> None:
    """Applies the legal action `a` and runs on to the next decision point."""
    kind = s[DEC_KIND]
    if kind == DK_DEPLOY:
        c = army_of(s, s[DEPLOY_ARMY])
        place_unit(s, c, a - A_DEPLOY)
        if s[DEPLOY_LEFT] == 0:
            s[DEPLOY_ARMY] += 1
            s[DEPLOY_LEFT] = UNITS_PER_ARMY
            if s[DEPLOY_ARMY] == s[PLAYERS] * s[ARMIES_PER]:
                s[DEPLOY_LEFT] = 0
                deployed(s)
                return
        s[TO_ACT] = s[DEPLOY_ARMY] // s[ARMIES_PER]
        return
    if kind == DK_PAWN:
        s[PAWN + army_of(s, s[DEPLOY_ARMY])] = a - A_PAWN
        s[DEPLOY_ARMY] += 1
        if s[DEPLOY_ARMY] == s[PLAYERS] * s[ARMIES_PER]:
            start_play(s)
            return
        s[TO_ACT] = s[DEPLOY_ARMY] // s[ARMIES_PER]
        return
    if kind == DK_ARMY:
        s[TURN_ARMY] = a - A_ARMY
        s[DEC_KIND] = DK_DECLARE
        return
    c = s[TURN_ARMY]
    if kind == DK_DECLARE:
        if a == A_STOP:  # B9
            end_turn(s)
            return
        if a == A_RESUPPLY:  # B26, B27
            s[MODE] = MODE_RESUPPLY
            throw(s)
            s[DEC_KIND] = DK_RESUPPLY
            return
        s[MODE] = MODE_MOVE
        pay(s)
        throw(s)
        d1 = s[DICE]
        d2 = s[DICE + 1]
        new_throw(s, c)
        if a == A_ROLL:  # B3, B8
            if d1 == d2:
                double_ends_turn(s)
                return
            s[MOVES_LEFT] = abs(d1 - d2)
            s[DEC_KIND] = DK_MOVE
            return
        e = a - A_DISLODGE  # B15-B18
        if d1 != 6 and d2 != 6:  # B17: nothing moves
            if d1 == d2:
                double_ends_turn(s)
            return
        s[ATTACK_FROM] = EDGE_FROM[e]
        b = EDGE_TO[e]
        s[ATTACK_TO] = b
        s[RETREAT_AT] = b
        s[RETREAT_STEP] = 1 if d1 == d2 else 0
        s[RETREAT_N] = s[HEIGHT + b]
        s[TO_ACT] = s[ARMY_PLAYER + s[TOP + b]]
        s[DEC_KIND] = DK_RETREAT
        return
    if kind == DK_MOVE:
        e, k = divmod(a - A_MOVE, MAX_N)
        t = EDGE_FROM[e]
        u = EDGE_TO[e]
        if s[TERRAIN + u] == WHIRLPOOL:  # B39: on to the other whirlpools, in the same move
            move_top(s, t, TRANSIT, k + 1)
            s[TRANSFER_FROM] = u
            s[DEC_KIND] = DK_TRANSFER
            return
        move_top(s, t, u, k + 1)
        finish_move(s)
        return
    if kind == DK_TRANSFER:
        w, k = divmod(a - A_TRANSFER, MAX_N)
        move_top(s, TRANSIT, w, k + 1)
        s[TRANSFER_TO + w] = 1
        s[FRESH + w] = 1
        if s[HEIGHT + TRANSIT] == 0:
            for i in range(N_WHIRLPOOLS):
                if s[WHIRLPOOLS + i] >= 0:
                    s[TRANSFER_TO + s[WHIRLPOOLS + i]] = 0
            s[TRANSFER_FROM] = -1
            finish_move(s)
        return
    if kind == DK_RETREAT:
        u, k = divmod(a - A_RETREAT, MAX_N)
        at = s[RETREAT_AT]
        move_top(s, at, u, k + 1)
        if s[RETREAT_STEP] == 1:
            s[RETREAT_AT] = u
        if settled(s, False):
            return
        retreat_done(s)
        return
    if kind == DK_RESUPPLY:
        advance_pawn(s, a - A_ADVANCE + 1)
        return


@njit(cache=True)
def no_answer(s: np.ndarray) -> None:
    """A decision without a legal answer passes as the rules say."""
    kind = s[DEC_KIND]
    if kind == DK_ARMY or kind == DK_DECLARE:  # B35: a player who cannot pay passes
        end_turn(s)
    elif kind == DK_MOVE:  # BD15: no legal move, the throw's moves lapse
        end_throw(s)
    elif kind == DK_RETREAT:  # B20
        retreat_lost(s)
    elif kind == DK_RESUPPLY:  # B34: no landing, the pawn stays
        resupply_after(s)
    else:
        game_over(s, UNDECIDED)  # unreachable: every other decision has answers


@njit(cache=True)
def advance(s: np.ndarray, legal: np.ndarray) -> int:
    """Runs on until a decision with two or more legal answers (or the end); returns how many."""
    while s[PHASE] != PH_OVER:
        n = legal_actions(s, legal)
        if n >= 2:
            return n
        if n == 1:
            apply_action(s, legal[0])
        else:
            no_answer(s)
    return 0


@njit(cache=True)
def step(s: np.ndarray, action: int, legal: np.ndarray) -> int:
    """Applies the legal `action`, runs on; returns the next decision's number of legal answers."""
    apply_action(s, action)
    return advance(s, legal)


@njit(cache=True)
def step_thrown(s: np.ndarray, action: int, dice: np.ndarray, legal: np.ndarray) -> int:
    """`step` with the throws it brings taken from the rows of `dice` (`preset_throws`): the next decision's
    number of legal answers, or -1 when it throws more than `dice` holds. Once the game is set up the generator
    moves only to throw (B0.5), so its moving tells -1; the state then holds the generator's throws too: step
    a copy, and step it again with one throw more."""
    preset_throws(s, dice)
    before = generator_state(s)
    n = step(s, action, legal)
    return -1 if generator_state(s) != before else n


# ------------------------------------------------------------------ invariants and random games

I_UNITS, I_STACKS, I_TOKENS, I_TERRAIN, I_SURROUNDED, I_ELIMINATED, I_PAWNS, I_ANSWERS, I_TRANSIT, I_TALL = range(1, 11)
INVARIANTS: dict[int, str] = {
    I_UNITS: "units: per army, the units on the board plus those removed must make 12 (and none of absent armies)",
    I_STACKS: "board: every stack's height, levels, top colour and run must match its units",
    I_TOKENS: "tokens: the store and the armies' tokens must make 60, none negative",
    I_TERRAIN: "terrain: no unit may stand on a terrain marker (B22), nor outside a whirlpool below level 4",
    I_SURROUNDED: "board: no surrounded stack may remain (B10, B11)",
    I_ELIMINATED: "eliminated: no stack of an eliminated army; every army in the game holds 4 units or more (B12)",
    I_PAWNS: "pawns: on distinct circles, one per army in the game from level 3 once placed (B24, B34)",
    I_ANSWERS: "decision: a pending decision must offer two legal answers or more",
    I_TRANSIT: "transit: units pass between whirlpools only during a transfer decision (B39)",
    I_TALL: "board: no stack taller than 12 units (BD31, rules v1.1)",
}


@njit(cache=True)
def check_invariants(s: np.ndarray, legal: np.ndarray) -> int:
    """0 when the state keeps its invariants, else the code of the first broken one (see `INVARIANTS`)."""
    count = np.zeros(N_COLOURS, dtype=np.int64)
    for u in range(N_UNITS):
        if s[UNIT_AT + u] >= 0:
            count[u // UNITS_PER_ARMY] += 1
    for c in range(N_COLOURS):
        if s[ARMY_PLAYER + c] < 0:
            if count[c] != 0:
                return I_UNITS
        elif count[c] + s[REMOVED + c] != UNITS_PER_ARMY or s[REMOVED + c] < 0:
            return I_UNITS
    # each unit stands at a distinct level below its place's height; a stack's top colour is its top
    # unit's, its run the units above the highest one of another colour (what `refresh` keeps)
    places = N_TRIANGLES + 1
    held = np.zeros(places, dtype=np.int64)
    top = np.full(places, -1, dtype=np.int64)
    other = np.full(places, -1, dtype=np.int64)
    seen = np.zeros(places * N_UNITS, dtype=np.int8)
    for u in range(N_UNITS):
        t = s[UNIT_AT + u]
        if t < 0:
            continue
        if t >= places:
            return I_STACKS
        h = s[HEIGHT + t]
        lv = s[UNIT_LEVEL + u]
        if lv < 0 or lv >= h or seen[t * N_UNITS + lv] == 1:
            return I_STACKS
        seen[t * N_UNITS + lv] = 1
        held[t] += 1
        if lv == h - 1:
            top[t] = u // UNITS_PER_ARMY
    for u in range(N_UNITS):
        t = s[UNIT_AT + u]
        if t >= 0 and u // UNITS_PER_ARMY != top[t] and s[UNIT_LEVEL + u] > other[t]:
            other[t] = s[UNIT_LEVEL + u]
    for t in range(places):
        h = s[HEIGHT + t]
        if held[t] != h:  # distinct levels below h, as many as h: every level is filled
            return I_STACKS
        if s[TOP + t] != top[t] or s[RUN + t] != (h - 1 - other[t] if h > 0 else 0):
            return I_STACKS
        if t < N_TRIANGLES and h > 0 and s[TERRAIN + t] == MARKER:
            return I_TERRAIN
        if s[RULES] != RULES_V1 and h > MAX_STACK_UNITS:
            return I_TALL
    if s[HEIGHT + TRANSIT] > 0 and s[DEC_KIND] != DK_TRANSFER:
        return I_TRANSIT
    tokens = s[STORE]
    if s[STORE] < 0:
        return I_TOKENS
    for c in range(N_COLOURS):
        tokens += s[TOKENS + c]
        if s[TOKENS + c] < 0:
            return I_TOKENS
    if tokens != STORE_TOKENS:
        return I_TOKENS
    if s[DEC_KIND] != DK_TRANSFER and s[PHASE] != PH_DEPLOY:
        for t in range(N_TRIANGLES):
            if surrounded(s, t):
                return I_SURROUNDED
        for c in range(N_COLOURS):
            if s[ALIVE + c] == 1 and strength(s, c) <= ELIMINATION_UNITS:
                return I_ELIMINATED
        for t in range(N_TRIANGLES + 1):
            if s[TOP + t] >= 0 and s[ALIVE + s[TOP + t]] == 0:
                return I_ELIMINATED
    if s[PHASE] == PH_PLAY or s[PHASE] == PH_OVER:
        for c in range(N_COLOURS):
            if s[PAWN + c] >= 0:
                if s[ALIVE + c] == 0 or not landing_free(s, c, s[PAWN + c]):
                    return I_PAWNS
            elif s[LEVEL] >= 3 and s[ALIVE + c] == 1:
                return I_PAWNS
    if s[PHASE] != PH_OVER and legal_actions(s, legal) < 2:
        return I_ANSWERS
    return 0


CHOOSER_SALT = 0x5DEECE66D  # the random players' generator of game `seed`: rng_seed(seed ^ this), apart from the game's


@njit(cache=True)
def random_game(
    s: np.ndarray,
    seed: int,
    level: int,
    players: int,
    armies: int,
    random_deploy: int,
    max_turns: int,
    check: bool,
    patient: bool,
    legal: np.ndarray,
    spare: np.ndarray,
    actions: np.ndarray,
) -> tuple[int, int, int, int, int]:
    """One uniformly random game, its setup and its players' answers both drawn from `seed` (so that
    `Game.new(seed, ...)` and the same answers replay it). Returns the winner (6 undecided), decisions,
    turns, and with `check` the first broken invariant (0 none) and the decision after which it broke
    (0: the setup; -1 none); the game stops there. The first `len(actions)` answers are written to `actions`.
    `patient` players never stop while they have another answer (their turns end at doubles)."""
    empty = np.zeros(0, dtype=np.int64)
    n = init_state(s, seed, level, players, armies, random_deploy, max_turns, 0, empty, empty, legal)
    chooser = rng_seed(seed ^ CHOOSER_SALT)
    code = check_invariants(s, spare) if check else 0
    at = 0 if code else -1
    steps = 0
    while n > 0 and code == 0:
        k = rng_below(chooser, n)
        a = legal[k]
        if patient and a == A_STOP:
            a = legal[(k + 1) % n]
        if steps < actions.shape[0]:
            actions[steps] = a
        n = step(s, a, legal)
        steps += 1
        if check:
            code = check_invariants(s, spare)
            if code:
                at = steps
    return s[WINNER], steps, s[TURNS], code, at


@njit(cache=True)
def random_playouts(n_games: int, seed: int, configurations: np.ndarray, max_turns: int, check: bool) -> np.ndarray:
    """Plays `n_games` uniformly random games (`random_game` of seeds seed..seed+n-1), seed `x` in the
    configuration `configurations[x % len(configurations)]` = (level, players, armies, random_deploy, patient).
    Rows: winner, decisions, turns, and with `check` the first broken invariant (0 none) and the decision after
    which it broke (-1 none). `patient` players never stop while they have another answer: more fighting."""
    out = np.zeros((n_games, 5), dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    legal = np.zeros(LEGAL_CAPACITY, dtype=np.int32)
    spare = np.zeros(LEGAL_CAPACITY, dtype=np.int32)
    none = np.zeros(0, dtype=np.int64)
    for g in range(n_games):
        c = configurations[(seed + g) % configurations.shape[0]]
        w, steps, turns, code, at = random_game(
            s, seed + g, c[0], c[1], c[2], c[3], max_turns, check, c[4] == 1, legal, spare, none
        )
        out[g, 0] = w
        out[g, 1] = steps
        out[g, 2] = turns
        out[g, 3] = code
        out[g, 4] = at
    return out
