"""Why each player of a Swiss round got their opponent (or the bye): plain data from the
pairer's own objective (``swiss.py``'s module docstring).

The pairer minimises, in order: rematches, the bye rule (a second bye, then score groups
with a bye-eligible player skipped below the receiver), floats (score-group boundaries
between the two players of a pair, summed) and the score-gap sum. For one round this
module lays those terms out per table and per boundary, so a player or a judge can read
*why*:

* **Score groups** — the players of the pool by match points as they enter the round,
  top-down (level 0 is the top group).
* **Boundaries** — between two neighbouring groups. ``minimum`` is 1 when an odd number
  of players above the boundary has to be paired (the bye receiver not counted): then one
  pair must cross it, whatever the pairing — the counting bound of ``swiss.py``.
  ``crossings`` is how many pairs do. Crossings beyond the minimum come in twos; in an
  optimal pairing they are there only because pairing inside the groups would repeat a
  match (without rematches to avoid, the top-down pairing meets the bound).
* **Tables** — each pair's points, the boundaries between its players (the float: the
  higher player is paired down, the lower one up, by ``point_gap`` points) and why:
  :class:`TableReason` ``same_group``, ``odd_group`` (every boundary it crosses needed a
  crossing: a group had an odd number of players), ``avoids_rematch`` (a crossing beyond
  the minimum in an optimal pairing), ``not_optimal`` (beyond the minimum in a pairing
  worse than the optimum: changed by hand) and ``rematch`` (the two met before).
* **Bye** — who, with how many points, and :class:`ByeReason`: ``lowest_eligible`` (in
  the lowest group that holds a player without a bye), ``everyone_had_bye`` (nobody is
  without one: the lowest group), ``avoids_rematch`` (a higher group, or a second bye,
  because the ideal one would force a rematch; the optimum does the same) or
  ``not_optimal``.

The optimum is what :func:`swiss.pair_round` finds for the same pool (its objective is
exactly optimal); :attr:`RoundExplanation.optimal` compares the pairing with it. No side
effects, no Django: the site and the replay verifier (``replay.py``) both call
:func:`explain_round`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum

from .errors import PairingError
from .swiss import (
    PairingObjective,
    PlayerId,
    RoundPairing,
    SwissPlayer,
    evaluate_pairing,
    pair_round,
)


class TableReason(StrEnum):
    SAME_GROUP = "same_group"
    ODD_GROUP = "odd_group"
    AVOIDS_REMATCH = "avoids_rematch"
    NOT_OPTIMAL = "not_optimal"
    REMATCH = "rematch"


class ByeReason(StrEnum):
    LOWEST_ELIGIBLE = "lowest_eligible"
    EVERYONE_HAD_BYE = "everyone_had_bye"
    AVOIDS_REMATCH = "avoids_rematch"
    NOT_OPTIMAL = "not_optimal"


@dataclass(frozen=True, slots=True)
class ScoreGroup:
    level: int  # 0 = the top group
    points: int
    size: int  # players of the pool with these points
    without_bye: int  # of them, players who have not had a bye


@dataclass(frozen=True, slots=True)
class Boundary:
    """The boundary between score group ``level`` and the one below it."""

    level: int
    upper_points: int
    lower_points: int
    players_above: int  # paired players above the boundary (the bye receiver not counted)
    minimum: int  # 1 when players_above is odd: one pair must cross
    crossings: int  # pairs of this pairing that cross it

    @property
    def gap(self) -> int:
        return self.upper_points - self.lower_points

    @property
    def extra(self) -> int:
        return self.crossings - self.minimum


@dataclass(frozen=True, slots=True)
class TableExplanation:
    table: int
    player1: PlayerId
    player2: PlayerId
    points1: int
    points2: int
    groups_crossed: int  # the pair's float term
    point_gap: int  # the pair's score-gap term
    rematch: bool
    reason: TableReason

    @property
    def paired_down(self) -> PlayerId | None:
        """The player with more points, when the pair is not in one group."""
        if not self.groups_crossed:
            return None
        return self.player1 if self.points1 > self.points2 else self.player2

    @property
    def paired_up(self) -> PlayerId | None:
        if not self.groups_crossed:
            return None
        return self.player2 if self.points1 > self.points2 else self.player1


@dataclass(frozen=True, slots=True)
class ByeExplanation:
    player: PlayerId
    points: int
    had_bye_before: bool
    groups_skipped: int  # groups with a bye-eligible player below the receiver's
    lowest_eligible_points: int  # the points of the lowest group the bye should go to
    reason: ByeReason


@dataclass(frozen=True, slots=True)
class RoundExplanation:
    groups: tuple[ScoreGroup, ...]
    boundaries: tuple[Boundary, ...]
    tables: tuple[TableExplanation, ...]
    bye: ByeExplanation | None
    objective: PairingObjective  # of this pairing
    optimum: PairingObjective  # the best any pairing of this pool can do
    lower_bound: PairingObjective  # the counting bound (the optimum without rematches)

    @property
    def optimal(self) -> bool:
        return self.objective == self.optimum

    @property
    def score_gap_over_optimum(self) -> int:
        return self.objective.score_gap_sum - self.optimum.score_gap_sum

    def as_dict(self) -> dict:
        """JSON-ready (the API's answer; player ids as given)."""

        def table(t: TableExplanation) -> dict:
            return {
                **asdict(t),
                "reason": t.reason.value,
                "paired_down": t.paired_down,
                "paired_up": t.paired_up,
            }

        return {
            "optimal": self.optimal,
            "score_gap_over_optimum": self.score_gap_over_optimum,
            "objective": asdict(self.objective),
            "optimum": asdict(self.optimum),
            "lower_bound": asdict(self.lower_bound),
            "groups": [asdict(g) for g in self.groups],
            "boundaries": [{**asdict(b), "gap": b.gap, "extra": b.extra} for b in self.boundaries],
            "tables": [table(t) for t in self.tables],
            "bye": None if self.bye is None else {**asdict(self.bye), "reason": self.bye.reason},
        }


TableRow = tuple[int, PlayerId, PlayerId | None]


def _rows(pairing: RoundPairing | Iterable[TableRow]) -> tuple[list[TableRow], PlayerId | None]:
    """Tables ``(number, player1, player2)`` and the bye receiver, from either form."""
    if isinstance(pairing, RoundPairing):
        return [(t.number, t.player1, t.player2) for t in pairing.tables], pairing.bye
    tables: list[TableRow] = []
    bye = None
    for number, player1, player2 in pairing:
        if player2 is None:
            if bye is not None:
                raise PairingError("two_byes", f"a round has at most one bye: {bye!r}, {player1!r}")
            bye = player1
        else:
            tables.append((number, player1, player2))
    return tables, bye


def explain_round(
    players: Sequence[SwissPlayer],
    pairing: RoundPairing | Iterable[TableRow],
    *,
    optimum: PairingObjective | None = None,
) -> RoundExplanation:
    """Explain a round's pairing of ``players`` (the pool as it entered the round).

    ``pairing`` is the pairer's :class:`RoundPairing` or the round's rows ``(table,
    player1, player2)`` with ``player2`` None for the bye (as stored, possibly edited).
    ``optimum`` is the best objective for this pool when the caller knows it; otherwise
    the pairer is run to find it. Pure. Raises PairingError (``unknown_player``,
    ``paired_twice``, ``unpaired``, ``two_byes``, ``bye_in_even_pool``) when the pairing
    is not a pairing of exactly this pool.
    """
    tables, bye = _rows(pairing)
    by_id = {p.id: p for p in players}
    seen: set = set()
    for number, *pair in tables:
        for pid in pair:
            if pid not in by_id:
                raise PairingError("unknown_player", f"table {number}: {pid!r} is not in the pool")
            if pid in seen:
                raise PairingError("paired_twice", f"table {number}: {pid!r} plays twice")
            seen.add(pid)
    if bye is not None:
        if bye not in by_id:
            raise PairingError("unknown_player", f"bye: {bye!r} is not in the pool")
        if bye in seen:
            raise PairingError("paired_twice", f"bye: {bye!r} also has a table")
        if len(players) % 2 == 0:
            raise PairingError("bye_in_even_pool", f"bye to {bye!r} in a pool of {len(players)}")
        seen.add(bye)
    missing = [p.id for p in players if p.id not in seen]
    if missing:
        raise PairingError("unpaired", f"players without a table or bye: {missing!r}")

    objective, lower_bound = evaluate_pairing(players, [(a, b) for _n, a, b in tables], bye)
    if optimum is None:
        optimum = pair_round(players, round_number=1, seed=0).objective
    optimal = objective == optimum

    points = sorted({p.match_points for p in players}, reverse=True)
    level = {value: k for k, value in enumerate(points)}
    sizes = [0] * len(points)
    without_bye = [0] * len(points)
    for p in players:
        sizes[level[p.match_points]] += 1
        without_bye[level[p.match_points]] += not p.had_bye
    groups = tuple(ScoreGroup(k, points[k], sizes[k], without_bye[k]) for k in range(len(points)))

    # Crossings per boundary: a pair between levels a < b crosses boundaries a .. b-1.
    crossings = [0] * max(len(points) - 1, 0)
    for _n, a, b in tables:
        low, high = sorted((level[by_id[a].match_points], level[by_id[b].match_points]))
        for cut in range(low, high):
            crossings[cut] += 1
    bye_level = level[by_id[bye].match_points] if bye is not None else None
    boundaries = []
    above = 0
    for cut in range(len(points) - 1):
        above += sizes[cut]
        paired_above = above - (1 if bye_level is not None and bye_level <= cut else 0)
        boundaries.append(
            Boundary(
                level=cut,
                upper_points=points[cut],
                lower_points=points[cut + 1],
                players_above=paired_above,
                minimum=paired_above & 1,
                crossings=crossings[cut],
            )
        )

    def met(a: PlayerId, b: PlayerId) -> bool:
        # A meeting recorded on one side only counts for both (as in the pairer).
        return b in by_id[a].opponents or a in by_id[b].opponents

    explained = []
    for number, a, b in sorted(tables):
        pa, pb = by_id[a].match_points, by_id[b].match_points
        low, high = sorted((level[pa], level[pb]))
        rematch = met(a, b)
        if rematch:
            reason = TableReason.REMATCH
        elif low == high:
            reason = TableReason.SAME_GROUP
        elif all(boundaries[cut].extra == 0 for cut in range(low, high)):
            reason = TableReason.ODD_GROUP
        elif optimal:
            reason = TableReason.AVOIDS_REMATCH
        else:
            reason = TableReason.NOT_OPTIMAL
        explained.append(
            TableExplanation(
                table=number,
                player1=a,
                player2=b,
                points1=pa,
                points2=pb,
                groups_crossed=high - low,
                point_gap=abs(pa - pb),
                rematch=rematch,
                reason=reason,
            )
        )

    bye_explained = None
    if bye is not None:
        receiver = by_id[bye]
        eligible = [p for p in players if not p.had_bye]
        lowest = min(p.match_points for p in (eligible or players))
        if objective.second_byes == 0 and objective.bye_groups_skipped == 0:
            bye_reason = ByeReason.LOWEST_ELIGIBLE
        elif not eligible and objective.bye_groups_skipped == 0:
            bye_reason = ByeReason.EVERYONE_HAD_BYE
        elif optimal:
            bye_reason = ByeReason.AVOIDS_REMATCH
        else:
            bye_reason = ByeReason.NOT_OPTIMAL
        bye_explained = ByeExplanation(
            player=bye,
            points=receiver.match_points,
            had_bye_before=receiver.had_bye,
            groups_skipped=objective.bye_groups_skipped,
            lowest_eligible_points=lowest,
            reason=bye_reason,
        )

    return RoundExplanation(
        groups=groups,
        boundaries=tuple(boundaries),
        tables=tuple(explained),
        bye=bye_explained,
        objective=objective,
        optimum=optimum,
        lower_bound=lower_bound,
    )
