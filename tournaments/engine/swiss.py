"""Swiss pairing with an explicit objective, paired optimally.

Scoring and pool
================
Match points: win 3, draw 1, loss 0; a bye is a won match (3 points; 2-0 in games, see
``standings.py``). The pool of a round is the players handed in: dropped players are simply
left out (they stay in their opponents' histories), late entries are handed in with the
points they have (usually 0) and no opponents. Round 1 is the same procedure with every
player on 0 points: a seeded random order, so the same ``seed`` and ``round_number``
always give the same pairings.

The objective (compared lexicographically, smaller is better)
==============================================================
For a pairing of the pool (pairs plus, when the pool is odd, one bye):

1. ``rematches`` — pairs whose players already met in this event;
2. the bye rule, in two parts:
   ``second_byes`` — 1 if the bye goes to a player who already had one, and
   ``bye_groups_skipped`` — how many score groups that contain a bye-eligible player (no
   bye yet; everyone, if nobody is eligible) lie *below* the receiver's group; 0 means the
   bye went to the lowest possible group;
3. ``floats`` — for every pair, the number of score-group boundaries between its two
   players, summed. Pairing a 9-point player with a 6-point player when the groups are
   9, 7, 6 floats the 9-point player through two boundaries and counts 2. Counted this way
   a float is "a player moved from one score group into the next one", the unit of the
   usual top-down procedure (a player carried down through two groups is a downfloater in
   each). Merely counting the players paired outside their group can prefer fewer but
   longer floats — when three players must leave each of two groups that have a group
   between them, six short cross pairs become four with two of them spanning the middle
   group — which raises the score gaps, against "as short a distance as possible". When no
   rematch forces extra floats, both counts lead to the same minimal score gaps;
4. ``score_gap_sum`` — the sum over pairs of the match-point difference (the bye adds
   nothing). This is the figure ``check_pairing.py`` reports.

Within those, which equal-cost pairing is produced is decided by the seeded random order
(the MTR convention pairs players of a group at random; tiebreakers are not used).
Tables are numbered from the top: table 1 has the pair with the most points.

Why the result is optimal
=========================
Write the score groups top-down as levels 0..m-1 and cut ``j`` as the boundary between
levels j and j+1 (``d_j`` points apart). For a pairing let ``c_j`` be the number of pairs
that cross cut j. Then ``floats = Σ c_j`` and ``score_gap_sum = Σ c_j·d_j``: both objectives
3 and 4 depend only on the crossing numbers.

*Counting bound.* Every pair inside the players above a cut uses two of them, so
``c_j ≡ a_j (mod 2)`` where ``a_j`` counts the paired players above the cut (the bye
receiver excluded). If rematches are 0 and the bye is ideal (receiver in the lowest group
``L`` holding an eligible player; the bottom group if nobody is eligible), ``a_j`` is fixed,
so ``c_j ≥ π_j := a_j mod 2`` and ``(0, bye_min, Σπ_j, Σπ_j·d_j)`` is a lexicographic lower
bound on every pairing. The pairer first builds a pairing quickly (top-down: incoming
floaters first, a greedy rematch-free matching of each group with local repairs, the odd
player floated down). When that pairing meets the bound it is optimal, and this is what
happens on large events, where groups are big and rematches are easy to dodge.

*Exact solve otherwise.* The objective is additive over pairs, so packing it into one
integer (weights larger than any possible total of the later criteria) turns it into a
minimum-cost perfect matching problem: players are vertices, a pair costs
``W_r·[rematch] + W_f·(levels between) + |points difference|``, and for an odd pool a
"bye" vertex joins every player at cost ``W_2·[had a bye] + W_s·(groups skipped)``. This is
solved exactly by Edmonds' blossom algorithm (``matching.py``) on a reduced graph that is
proved to contain an optimal pairing:

* *Few players of a group leave it.* Let ``r`` be the largest number of earlier opponents
  a player has in the pool. Suppose an optimal pairing sends more than ``2r+1`` players of
  group S to partners outside S (the bye receiver not counted). Then two of them, x and
  x', have not met each other and their partners y and y' have not met each other either
  (in the "conflict" graph on those players each one has at most 2r neighbours: r from
  its own history, r from its partner's). Replacing (x,y), (x',y') by (x,x'), (y,y') adds
  no rematch and, because the levels lie on a line, the pair (y,y') crosses only cuts
  that the two old pairs crossed: no objective gets worse, and fewer players leave their
  groups. Repeating this, some optimal pairing sends at most ``q = 2r+1`` players out of
  every group. When the fast pairing had no rematch and an ideal bye, every optimum has
  ``Σ(c_j − π_j) ≤ s`` with ``s = floats(fast) − Σπ_j``, so at most
  ``π_above + π_below + s`` players leave S; ``q`` is the smaller of the two bounds.
* *Big groups can be cut down.* Keep ``k ≥ q + b + 2r + 2`` players S' of a bigger group
  S (``b`` = 1 if S may receive the bye, and then S' holds an eligible player), with
  ``|S \\ S'|`` even, and pair ``S \\ S'`` among themselves without rematches (checked; if
  that fails the leftovers join S'). Any optimal pairing can be copied onto the kept
  players at no higher cost: give the bye to the eligible kept player, give each outside
  partner a distinct kept player it has not met (at most q + b are taken and r ruled out,
  so one is free), and pair the rest of S' — at least 2r+2 players, each ruling out at most
  r, so every one of them may meet at least half of the others and Dirac's theorem gives a
  rematch-free perfect matching. Pairs between two cut-down groups are copied the same
  way; small groups are kept whole and copied as they are.
* *Edges that cannot be in an optimum are dropped* when the fast pairing had no rematch
  and an ideal bye: rematch edges, bye edges other than ideal ones, and pairs crossing
  more than ``s/2`` cuts with ``π_j = 0`` (such a cut then needs ``c_j ≥ 2``, so the
  floats would exceed the fast pairing's).

The reduced graph therefore has the same optimum as the full problem; the blossom
algorithm finds it, warm-started from the fast pairing's rematch-free in-group pairs.
``tests/tournaments/engine/test_swiss.py`` compares the objective with an exhaustive
search over all pairings of many small late-round events.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .errors import PairingError
from .matching import NoPerfectMatching, min_cost_perfect_matching

PlayerId = Hashable

WIN_POINTS = 3
DRAW_POINTS = 1
LOSS_POINTS = 0
BYE_POINTS = 3


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    """A player in the pool of the next round."""

    id: PlayerId
    match_points: int
    opponents: frozenset = frozenset()
    had_bye: bool = False


@dataclass(frozen=True, slots=True, order=True)
class PairingObjective:
    """The lexicographic objective of a pairing (see the module docstring)."""

    rematches: int
    second_byes: int
    bye_groups_skipped: int
    floats: int
    score_gap_sum: int


@dataclass(frozen=True, slots=True)
class Table:
    """A pair of the round at its table; ``player1`` has at least ``player2``'s points."""

    number: int
    player1: PlayerId
    player2: PlayerId


@dataclass(frozen=True, slots=True)
class RoundPairing:
    """The pairings of one round and how their optimality was established.

    ``proof`` is ``"counting-bound"`` when the pairing meets the lower bound of the module
    docstring, ``"blossom"`` when the exact matching solver decided it (``solver_vertices``
    is then the size of the reduced graph it solved).
    """

    round_number: int
    tables: tuple[Table, ...]
    bye: PlayerId | None
    objective: PairingObjective
    lower_bound: PairingObjective
    proof: str
    solver_vertices: int = 0


class SwissResult(StrEnum):
    """Result of a past Swiss match, as the pairer needs it."""

    PLAYER1 = "p1"
    PLAYER2 = "p2"
    DRAW = "draw"
    BYE = "bye"


@dataclass(frozen=True, slots=True)
class PastMatch:
    """A completed match (``player2`` is ``None`` and ``outcome`` BYE for a bye)."""

    round_number: int
    player1: PlayerId
    player2: PlayerId | None
    outcome: SwissResult


def swiss_players_from_history(
    pool: Iterable[PlayerId],
    history: Iterable[PastMatch],
    *,
    scoring: Mapping[str, int] | None = None,
) -> list[SwissPlayer]:
    """Build the pool of the next round from the matches played so far.

    ``pool`` lists the players still in the event (dropped players left out, late
    entries included). Matches of dropped players still count for their opponents.
    ``scoring`` may override ``{"win": 3, "draw": 1, "loss": 0, "bye": 3}``.
    """
    points_for = {"win": WIN_POINTS, "draw": DRAW_POINTS, "loss": LOSS_POINTS, "bye": BYE_POINTS}
    if scoring:
        points_for.update(scoring)
    points: dict[PlayerId, int] = {}
    opponents: dict[PlayerId, set] = {}
    byes: set = set()
    for match in history:
        a, b = match.player1, match.player2
        if b is None or match.outcome is SwissResult.BYE:
            if b is not None:
                raise PairingError("bye_with_opponent", f"round {match.round_number}: {a!r}")
            points[a] = points.get(a, 0) + points_for["bye"]
            byes.add(a)
            continue
        opponents.setdefault(a, set()).add(b)
        opponents.setdefault(b, set()).add(a)
        if match.outcome is SwissResult.PLAYER1:
            points[a] = points.get(a, 0) + points_for["win"]
            points[b] = points.get(b, 0) + points_for["loss"]
        elif match.outcome is SwissResult.PLAYER2:
            points[b] = points.get(b, 0) + points_for["win"]
            points[a] = points.get(a, 0) + points_for["loss"]
        else:
            points[a] = points.get(a, 0) + points_for["draw"]
            points[b] = points.get(b, 0) + points_for["draw"]
    return [
        SwissPlayer(
            id=pid,
            match_points=points.get(pid, 0),
            opponents=frozenset(opponents.get(pid, ())),
            had_bye=pid in byes,
        )
        for pid in pool
    ]


# ---------------------------------------------------------------------------------------
# Internal problem representation: players are indices 0..n-1 in processing order
# (seeded shuffle, then points descending, so each score group is in random order).


class _Pool:
    __slots__ = (
        "bye_level",
        "bye_minimum",
        "cut_gap",
        "eligible_levels",
        "had_bye",
        "ids",
        "level",
        "level_count",
        "level_start",
        "opponents",
        "parity",
        "points",
        "size",
    )

    def __init__(self, players: Sequence[SwissPlayer], rng: random.Random) -> None:
        order = list(range(len(players)))
        rng.shuffle(order)
        order.sort(key=lambda k: -players[k].match_points)
        ordered = [players[k] for k in order]
        self.size = n = len(ordered)
        self.ids = [p.id for p in ordered]
        index = {pid: i for i, pid in enumerate(self.ids)}
        self.points = points = [p.match_points for p in ordered]
        self.had_bye = [bool(p.had_bye) for p in ordered]
        opponents: list[set[int]] = []
        get = index.get
        for i, p in enumerate(ordered):
            met = {j for j in map(get, p.opponents) if j is not None}
            if i in met:
                raise PairingError("self_opponent", f"player {p.id!r} lists itself as opponent")
            opponents.append(met)
        # A meeting recorded on one side only still counts for both players.
        for i, met in enumerate(opponents):
            for j in met:
                if i not in opponents[j]:
                    opponents[j].add(i)
        self.opponents = opponents
        level = [0] * n
        starts = [0]
        for i in range(1, n):
            if points[i] != points[i - 1]:
                starts.append(i)
            level[i] = len(starts) - 1
        starts.append(n)
        self.level = level
        self.level_start = starts
        self.level_count = m = len(starts) - 1 if n else 0
        self.cut_gap = [points[starts[j]] - points[starts[j + 1]] for j in range(m - 1)]
        # Bye: the lowest group holding a player without a bye (any player if none).
        eligible_levels = sorted({level[i] for i in range(n) if not self.had_bye[i]})
        if not eligible_levels:
            eligible_levels = list(range(m))
        # Best achievable bye-rule figures: a second bye only if nobody is eligible.
        self.bye_minimum = (1, 0) if n % 2 and all(self.had_bye) else (0, 0)
        self.eligible_levels = eligible_levels
        self.bye_level = eligible_levels[-1] if n % 2 and m else -1
        # Parity of each cut with the bye in its ideal group.
        parity = []
        above = 0
        for j in range(m - 1):
            above += starts[j + 1] - starts[j]
            paired_above = above - (1 if 0 <= self.bye_level <= j else 0)
            parity.append(paired_above & 1)
        self.parity = parity

    def groups_skipped(self, i: int) -> int:
        """Eligible groups strictly below player i's group (bye rule, part two)."""
        levels = self.eligible_levels
        return len(levels) - bisect_right(levels, self.level[i])

    def bye_is_eligible(self, i: int) -> bool:
        return not self.had_bye[i] or self.bye_minimum[0] == 1

    def objective(self, pairs: Iterable[tuple[int, int]], bye: int | None) -> PairingObjective:
        rematches = floats = gaps = 0
        level, points, opponents = self.level, self.points, self.opponents
        for a, b in pairs:
            if b in opponents[a]:
                rematches += 1
            floats += abs(level[a] - level[b])
            gaps += abs(points[a] - points[b])
        if bye is None:
            second, skipped = 0, 0
        else:
            second, skipped = int(self.had_bye[bye]), self.groups_skipped(bye)
        return PairingObjective(rematches, second, skipped, floats, gaps)

    def lower_bound(self) -> PairingObjective:
        floats = sum(self.parity)
        gaps = sum(g for g, odd in zip(self.cut_gap, self.parity, strict=True) if odd)
        return PairingObjective(0, *self.bye_minimum, floats, gaps)


def _pair_greedily(members: list[int], opponents: Sequence) -> tuple[list[tuple[int, int]], list]:
    """Pair members without rematches where it can: greedy in order, then local repairs.

    Returns ``(pairs, leftovers)``; leftovers are players it could not place (one when the
    count is odd and all went well).
    """
    order = list(members)
    size = len(order)
    pairs: list[tuple[int, int]] = []
    left: list[int] = []
    i = 0
    while i < size:
        a = order[i]
        met = opponents[a]
        j = i + 1
        while j < size and order[j] in met:
            j += 1
        if j >= size:
            left.append(a)
            i += 1
            continue
        order[i + 1], order[j] = order[j], order[i + 1]
        pairs.append((a, order[i + 1]))
        i += 2
    # Repair: two leftovers u, v and a pair (a, b) with u-a and v-b new become two pairs.
    stuck: list[int] = []
    while len(left) >= 2:
        u = left.pop()
        placed = False
        for idx, v in enumerate(left):
            if v not in opponents[u]:
                pairs.append((u, v))
                left.pop(idx)
                placed = True
                break
        if not placed:
            for idx, v in enumerate(left):
                for t, (a, b) in enumerate(pairs):
                    if a not in opponents[u] and b not in opponents[v]:
                        pairs[t] = (u, a)
                        pairs.append((v, b))
                    elif b not in opponents[u] and a not in opponents[v]:
                        pairs[t] = (u, b)
                        pairs.append((v, a))
                    else:
                        continue
                    left.pop(idx)
                    placed = True
                    break
                if placed:
                    break
        if not placed:
            stuck.append(u)
    return pairs, left + stuck


def _choose_bye(pool: _Pool) -> int | None:
    if pool.bye_level < 0:
        return None
    start, end = pool.level_start[pool.bye_level], pool.level_start[pool.bye_level + 1]
    candidates = [i for i in range(start, end) if pool.bye_is_eligible(i)]
    level, opponents = pool.level, pool.opponents
    near = (pool.bye_level - 1, pool.bye_level)

    # Prefer the candidate hardest to pair: most opponents in its own and the next group.
    def crowded(i: int) -> int:
        return sum(1 for j in opponents[i] if level[j] in near)

    return max(candidates, key=crowded)


def _construct(pool: _Pool) -> tuple[list[tuple[int, int]], int | None]:
    """Fast top-down pairing (the candidate the counting bound may prove optimal)."""
    opponents = pool.opponents
    bye = _choose_bye(pool)
    pairs: list[tuple[int, int]] = []
    carry: list[int] = []
    for lv in range(pool.level_count):
        members = [i for i in range(pool.level_start[lv], pool.level_start[lv + 1]) if i != bye]
        still_floating = []
        for f in carry:
            met = opponents[f]
            for idx, x in enumerate(members):
                if x not in met:
                    pairs.append((f, members.pop(idx)))
                    break
            else:
                still_floating.append(f)
        group_pairs, left = _pair_greedily(members, opponents)
        pairs.extend(group_pairs)
        carry = still_floating + left
    if carry:
        rest_pairs, rest = _pair_greedily(carry, opponents)
        pairs.extend(rest_pairs)
        # Whatever is left has met everyone left: pair in order (rematches) ...
        pairs.extend((rest[k], rest[k + 1]) for k in range(0, len(rest) - 1, 2))
        # ... then try to undo each rematch by swapping partners with another pair,
        # nearest first (the exact solver needs a rematch-free start to prune well).
        for t in range(len(pairs) - 1, -1, -1):
            a, b = pairs[t]
            if b not in opponents[a]:
                continue
            for u in range(len(pairs) - 1, -1, -1):
                c, d = pairs[u]
                if u == t:
                    continue
                if c not in opponents[a] and d not in opponents[b]:
                    pairs[t], pairs[u] = (a, c), (b, d)
                elif d not in opponents[a] and c not in opponents[b]:
                    pairs[t], pairs[u] = (a, d), (b, c)
                else:
                    continue
                break
    return pairs, bye


def _solve_exactly(
    pool: _Pool, fast_pairs: list[tuple[int, int]], fast_bye: int | None
) -> tuple[list[tuple[int, int]], int | None, int]:
    """Minimum-cost perfect matching on the reduced graph of the module docstring."""
    n = pool.size
    fast = pool.objective(fast_pairs, fast_bye)
    prune = fast.rematches == 0 and (fast.second_byes, fast.bye_groups_skipped) == pool.bye_minimum
    parity = pool.parity
    slack = fast.floats - sum(parity) if prune else 0
    opponents, level, points = pool.opponents, pool.level, pool.points
    rounds = max((len(o) for o in opponents), default=0)
    odd = n % 2 == 1
    m = pool.level_count

    kept: list[list[int]] = []
    fixed_pairs: list[tuple[int, int]] = []
    for lv in range(m):
        members = list(range(pool.level_start[lv], pool.level_start[lv + 1]))
        leaving = 2 * rounds + 1
        if prune:
            above = parity[lv - 1] if lv > 0 else 0
            below = parity[lv] if lv < m - 1 else 0
            leaving = min(leaving, above + below + slack)
        bye_slot = 1 if odd and (not prune or lv == pool.bye_level) else 0
        need = leaving + bye_slot + 2 * rounds + 2
        if len(members) <= need + 1:
            kept.append(members)
            continue
        keep = members[:need]
        if (len(members) - need) % 2:
            keep.append(members[need])
        if bye_slot and not any(pool.bye_is_eligible(i) for i in keep):
            extra = next((i for i in members if pool.bye_is_eligible(i)), None)
            if extra is not None:
                # Swap it in for the last kept player to keep the parity of the rest even.
                keep[-1] = extra
        keep_set = set(keep)
        rest = [i for i in members if i not in keep_set]
        rest_pairs, rest_left = _pair_greedily(rest, opponents)
        keep.extend(rest_left)  # an even number: the parity of S' is unchanged
        fixed_pairs.extend(rest_pairs)
        kept.append(keep)

    vertices = [i for group in kept for i in group]
    vertex_of = {i: v for v, i in enumerate(vertices)}
    bye_vertex = len(vertices) if odd else -1
    vertex_count = len(vertices) + (1 if odd else 0)

    span = (points[0] - points[-1]) if n else 0
    pair_count = vertex_count // 2 + 1
    w_float = pair_count * span + 1
    w_skip = (pair_count * max(m - 1, 0) + 1) * w_float
    w_second = (m + 1) * w_skip
    w_rematch = 2 * w_second

    zero_prefix = [0]
    for j in range(m - 1):
        zero_prefix.append(zero_prefix[-1] + (0 if parity[j] else 1))
    edges: list[tuple[int, int, int]] = []
    for la in range(m):
        group_a = kept[la]
        for lb in range(la, m):
            if prune and zero_prefix[lb] - zero_prefix[la] > slack // 2:
                break
            group_b = kept[lb]
            base_cost = (lb - la) * w_float
            for ia, a in enumerate(group_a):
                met = opponents[a]
                va = vertex_of[a]
                pa = points[a]
                partners = group_b[ia + 1 :] if la == lb else group_b
                for b in partners:
                    if b in met:
                        if prune:
                            continue
                        cost = w_rematch + base_cost + abs(pa - points[b])
                    else:
                        cost = base_cost + abs(pa - points[b])
                    edges.append((va, vertex_of[b], cost))
    if odd:
        for v, i in enumerate(vertices):
            if prune and (level[i] != pool.bye_level or not pool.bye_is_eligible(i)):
                continue
            cost = w_second * int(pool.had_bye[i]) + w_skip * pool.groups_skipped(i)
            edges.append((bye_vertex, v, cost))

    warm = [
        (vertex_of[a], vertex_of[b])
        for a, b in fast_pairs
        if a in vertex_of and b in vertex_of and level[a] == level[b] and b not in opponents[a]
    ]
    if fast_bye is not None and fast_bye in vertex_of:
        warm.append((bye_vertex, vertex_of[fast_bye]))
    mate = min_cost_perfect_matching(vertex_count, edges, warm_start=warm)
    pairs = list(fixed_pairs)
    bye = None
    for v, partner in enumerate(mate):
        if v < partner:
            if partner == bye_vertex:
                bye = vertices[v]
            else:
                pairs.append((vertices[v], vertices[partner]))
    return pairs, bye, vertex_count


def _seat(pool: _Pool, pairs: list[tuple[int, int]]) -> tuple[Table, ...]:
    points = pool.points
    # Lower index = more points (or earlier in the random order): that player sits first.
    ordered = sorted((min(a, b), max(a, b)) for a, b in pairs)
    ordered.sort(key=lambda ab: (-points[ab[0]], -points[ab[1]]))
    return tuple(
        Table(number, pool.ids[a], pool.ids[b]) for number, (a, b) in enumerate(ordered, 1)
    )


def _validated(players: Sequence[SwissPlayer]) -> None:
    seen = set()
    for p in players:
        if p.id in seen:
            raise PairingError("duplicate_player", f"player {p.id!r} is in the pool twice")
        seen.add(p.id)
        if not isinstance(p.match_points, int) or p.match_points < 0:
            raise PairingError(
                "invalid_points",
                f"player {p.id!r}: match points must be a whole number ≥ 0, got {p.match_points!r}",
            )


def evaluate_pairing(
    players: Sequence[SwissPlayer],
    pairs: Iterable[tuple[PlayerId, PlayerId]],
    bye: PlayerId | None,
) -> tuple[PairingObjective, PairingObjective]:
    """The objective of a given pairing of ``players`` and the counting lower bound.

    For pairings the pairer did not make (edited by hand, or read from a file): the same
    terms :func:`pair_round` minimises, computed the same way. Pure; raises PairingError
    for a player not in ``players``. Whether every player is paired once is the caller's
    check (``explain.explain_round`` makes it).
    """
    _validated(players)
    pool = _Pool(players, random.Random(0))
    index = {pid: i for i, pid in enumerate(pool.ids)}

    def at(pid: PlayerId) -> int:
        try:
            return index[pid]
        except (KeyError, TypeError):
            raise PairingError("unknown_player", f"player {pid!r} is not in the pool") from None

    indexed = [(at(a), at(b)) for a, b in pairs]
    return pool.objective(indexed, None if bye is None else at(bye)), pool.lower_bound()


def pair_round(
    players: Sequence[SwissPlayer], *, round_number: int, seed: int | str = 0
) -> RoundPairing:
    """Pair one Swiss round optimally for the objective of the module docstring.

    Pure function: no side effects. The same players, ``round_number`` and ``seed`` always
    give the same result (the order of ``players`` does not matter).
    """
    _validated(players)
    canonical = sorted(players, key=lambda p: repr(p.id))
    rng = random.Random(f"swiss:{seed}:{round_number}")
    pool = _Pool(canonical, rng)
    bound = pool.lower_bound()
    pairs, bye = _construct(pool)
    found = pool.objective(pairs, bye)
    proof, solver_vertices = "counting-bound", 0
    if found != bound:
        try:
            pairs, bye, solver_vertices = _solve_exactly(pool, pairs, bye)
        except NoPerfectMatching as exc:  # the reduction is proved sound; this is a bug
            raise PairingError(
                "internal", f"exact solver found no perfect matching: {exc}"
            ) from exc
        proof = "blossom"
        found = pool.objective(pairs, bye)
    return RoundPairing(
        round_number=round_number,
        tables=_seat(pool, pairs),
        bye=pool.ids[bye] if bye is not None else None,
        objective=found,
        lower_bound=bound,
        proof=proof,
        solver_vertices=solver_vertices,
    )
