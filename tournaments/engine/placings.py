"""Final placings: the Swiss standings with the top cut's bracket on top.

After a single-elimination top cut the event's finishing order follows the bracket, not
the Swiss standings: the winner of the final is 1st, its loser 2nd, the two semifinal
losers 3rd–4th, the quarterfinal losers 5th–8th and so on; players eliminated in the same
round are ordered among themselves by their Swiss standing (what Melee, EventLink and
TOM print, and what MTR/Play! Pokémon final standings show). Everyone who did not make the
cut follows, in Swiss order (dropped players keep their Swiss place there).

While the cut is in progress the placings say what is decided so far: players still in
the bracket come first, in their Swiss order among themselves (their places among the
top are not decided: ``Placing.decided`` is False), then the players already eliminated,
the later the round the better, each round's losers by Swiss standing, then everyone
outside the cut. So the placings of a finished cut are the last state of these.

``top_cut_result`` names the furthest the player went: ``"champion"`` (won the final),
``"finalist"`` (played the final), ``"semifinal"``, ``"quarterfinal"``, ``"round_of_16"``,
… (played that round, and for a finished cut: lost it); None outside the cut. A player
who won a round whose next round is not yet paired has reached that next round.

Pure functions over plain data; no Django.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from .bracket import cut_rounds, round_name
from .errors import BracketError

PlayerId = Hashable

CHAMPION = "champion"
FINALIST = "finalist"


@dataclass(frozen=True, slots=True)
class CutMatch:
    """One match of the top cut as played so far.

    ``round_number``: 1 = the first round of the cut. ``winner``: None while undecided;
    a match without ``player2`` is a bye (``player1`` goes through).
    """

    round_number: int
    player1: PlayerId
    player2: PlayerId | None
    winner: PlayerId | None = None


@dataclass(frozen=True, slots=True)
class Placing:
    player: PlayerId
    placing: int  # 1 = first; equal only for players outside the cut tied on everything
    top_cut_result: str | None  # see the module docstring; None: not in the cut
    decided: bool  # False: still in the bracket, the place may change


def result_name(size: int, reached: int, *, won_final: bool = False) -> str:
    """The ``top_cut_result`` of a player who reached round ``reached`` of a top ``size``
    cut (and, in the final, whether they won it)."""
    if won_final:
        return CHAMPION
    name = round_name(size, reached)
    return FINALIST if name == "final" else name


def final_placings(
    swiss: Sequence[tuple[PlayerId, int]], cut: Iterable[CutMatch]
) -> tuple[Placing, ...]:
    """Every player of ``swiss`` (``(player, Swiss rank)``, best first) placed after the
    top cut ``cut`` (its matches so far; none: the Swiss standings are the placings).

    Players outside the cut share a placing when they share a Swiss rank, as the Swiss
    standings do. A cut player missing from ``swiss`` (disqualified) is left out and the
    players below move up. Raises :class:`BracketError` for a cut that is not a bracket
    (a first round that is not a power of two, a player twice in a round, a winner who
    did not play the match, a round beyond the final).
    """
    matches = list(cut)
    position = {player: index for index, (player, _rank) in enumerate(swiss)}
    if len(position) != len(swiss):
        raise BracketError("duplicate_player", "a player appears twice in the standings")
    reached: dict[PlayerId, int] = {}
    won_final: PlayerId | None = None
    eliminated: set[PlayerId] = set()
    size = rounds = 0
    if matches:
        first_round = [m for m in matches if m.round_number == 1]
        size = 2 * len(first_round)
        rounds = cut_rounds(size) if size else 0
        if not rounds or size & (size - 1):
            raise BracketError("cut_size", f"the first round of the cut has {size} players")
        seen: set[tuple[int, PlayerId]] = set()
        for match in matches:
            if not 1 <= match.round_number <= rounds:
                raise BracketError(
                    "round_number", f"a top {size} cut has no round {match.round_number}"
                )
            players = [p for p in (match.player1, match.player2) if p is not None]
            for player in players:
                if (match.round_number, player) in seen:
                    raise BracketError(
                        "played_twice", f"{player!r} twice in round {match.round_number}"
                    )
                seen.add((match.round_number, player))
                reached[player] = max(reached.get(player, 0), match.round_number)
            winner = match.winner if match.player2 is not None else match.player1
            if winner is None:
                continue
            if winner not in players:
                raise BracketError(
                    "winner_not_in_match", f"{winner!r} did not play in round {match.round_number}"
                )
            eliminated.update(p for p in players if p != winner)
            if match.round_number == rounds:
                won_final = winner
            else:
                reached[winner] = max(reached[winner], match.round_number + 1)

    def cut_key(player: PlayerId) -> tuple:
        depth = rounds + 1 if player == won_final else reached[player]
        return (-depth, player in eliminated, position[player])

    in_cut = sorted((p for p in reached if p in position), key=cut_key)
    placings = [
        Placing(
            player=player,
            placing=index + 1,
            top_cut_result=result_name(size, reached[player], won_final=player == won_final),
            decided=player == won_final or player in eliminated,
        )
        for index, player in enumerate(in_cut)
    ]
    offset = len(placings)
    previous_rank = None
    placing = 0
    rest = [(player, rank) for player, rank in swiss if player not in reached]
    for index, (player, rank) in enumerate(rest):
        if rank != previous_rank:
            placing = offset + index + 1
            previous_rank = rank
        placings.append(Placing(player, placing, None, True))
    return tuple(placings)
