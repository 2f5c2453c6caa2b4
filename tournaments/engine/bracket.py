"""Single-elimination top cut seeded from the Swiss standings.

Seeding follows MTR 10.4 (playoff pairing by final Swiss standing): top 8 plays 1v8, 4v5,
2v7, 3v6, the winners of 1/8 and 4/5 meet, as do those of 2/7 and 3/6; top 4 plays 1v4,
2v3. Larger cuts use the same rule recursively — seed ``s`` of a bracket of ``2k`` meets
seed ``2k + 1 − s`` in the first round and the halves are ordered so that, if the better
seed always wins, seeds 1 and 2 meet only in the final, 1–4 only in the semi-finals and so
on. Matches cannot be drawn: results must come from a winner-required match (see
``games.match_result(..., winner_required=True)`` and ``TimeoutPolicy.MORE_HP_WINS``).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from .errors import BracketError

PlayerId = Hashable


def bracket_order(size: int) -> tuple[int, ...]:
    """Seeds in bracket-line order; consecutive pairs play each other in round one.

    ``bracket_order(8) == (1, 8, 4, 5, 2, 7, 3, 6)``.
    """
    if size < 2 or size & (size - 1):
        raise BracketError("cut_size", f"a top cut needs a power of two ≥ 2 players, not {size}")
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for s in order for seed in (s, total - s)]
    return tuple(order)


@dataclass(frozen=True, slots=True)
class BracketMatch:
    """One match of the cut; ``player1`` is the better seed (plays first, reports first)."""

    round_number: int  # 1 = first round of the cut
    position: int  # 0-based, top of the bracket first
    seed1: int
    seed2: int
    player1: PlayerId
    player2: PlayerId


def seed_top_cut(standings_order: Sequence[PlayerId], size: int) -> tuple[BracketMatch, ...]:
    """First round of a top ``size`` cut from players in final Swiss order (best first)."""
    order = bracket_order(size)
    if len(standings_order) < size:
        raise BracketError(
            "not_enough_players", f"a top {size} needs {size} players, got {len(standings_order)}"
        )
    if len(set(standings_order[:size])) != size:
        raise BracketError("duplicate_player", "a player appears twice in the standings")
    matches = []
    for position in range(size // 2):
        high, low = order[2 * position], order[2 * position + 1]
        matches.append(
            BracketMatch(
                round_number=1,
                position=position,
                seed1=high,
                seed2=low,
                player1=standings_order[high - 1],
                player2=standings_order[low - 1],
            )
        )
    return tuple(matches)


def advance(
    matches: Sequence[BracketMatch], winners: Mapping[int, PlayerId]
) -> tuple[BracketMatch, ...]:
    """Pair the winners of one round (``winners`` maps match position → winner).

    Returns the next round's matches; an empty tuple after the final. Raises
    :class:`BracketError` for a missing result or a "winner" not in that match (a draw
    cannot advance anyone).
    """
    if not matches:
        raise BracketError("empty_round", "no matches given")
    ordered = sorted(matches, key=lambda m: m.position)
    if [m.position for m in ordered] != list(range(len(ordered))):
        raise BracketError("incomplete_round", "the matches of a whole round are needed")
    advancing: list[tuple[int, PlayerId]] = []
    for match in ordered:
        if match.position not in winners:
            raise BracketError(
                "result_missing",
                f"no winner for match {match.position} of round "
                f"{match.round_number}; a top-cut match cannot end in a draw",
            )
        winner = winners[match.position]
        if winner == match.player1:
            advancing.append((match.seed1, winner))
        elif winner == match.player2:
            advancing.append((match.seed2, winner))
        else:
            raise BracketError(
                "winner_not_in_match",
                f"{winner!r} did not play match {match.position} of round {match.round_number}",
            )
    if len(advancing) == 1:
        return ()
    next_round = ordered[0].round_number + 1
    result = []
    for position in range(len(advancing) // 2):
        (seed_a, a), (seed_b, b) = advancing[2 * position], advancing[2 * position + 1]
        if seed_b < seed_a:
            (seed_a, a), (seed_b, b) = (seed_b, b), (seed_a, a)
        result.append(BracketMatch(next_round, position, seed_a, seed_b, a, b))
    return tuple(result)


def cut_rounds(size: int) -> int:
    """How many rounds a top ``size`` cut plays (8 → 3: quarterfinal, semifinal, final)."""
    bracket_order(size)  # validates the size
    return size.bit_length() - 1


def round_name(size: int, round_number: int) -> str:
    """The name of round ``round_number`` (1 = first) of a top ``size`` cut, by the number
    of players it starts with: ``"final"`` (2), ``"semifinal"`` (4), ``"quarterfinal"``
    (8), then ``"round_of_16"``, ``"round_of_32"``, … The pages translate these keys."""
    rounds = cut_rounds(size)
    if not 1 <= round_number <= rounds:
        raise BracketError(
            "round_number", f"a top {size} cut has rounds 1 to {rounds}, not {round_number}"
        )
    players = size >> (round_number - 1)
    return {2: "final", 4: "semifinal", 8: "quarterfinal"}.get(players, f"round_of_{players}")
