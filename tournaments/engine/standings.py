"""Standings: match points, then the event's tiebreak profile, with per-player working.

Input is the list of players and every reported match (a bye is a match with no second
player). Output ranks every player — dropped players included, they keep their place —
and can explain each figure: the opponents, their records, the floors or caps applied and
the result.

Profile ``mtr`` (default; Magic Tournament Rules, Appendix C)
-----------------------------------------------------------------
Order: match points → opponents' match-win % (OMW%) → game-win % (GW%) → opponents'
game-win % (OGW%).

* Match points: win 3, draw 1, loss 0; a bye is a match win (3).
* A player's match-win % is ``match points ÷ (3 × rounds played)``; rounds played count
  the player's byes (App. C: "3-2-0 including a round-1 bye, then withdraws: 9/15 = 0.60").
  Values below 0.33 count as 0.33 (App. C: 1-3 and withdrawn → 3/12 = 0.25 → 0.33).
* GW% is ``game points ÷ (3 × games played)`` (game win 3, drawn game 1); a bye counts as
  a 2-0 win, i.e. 6 game points over 2 games; floor 0.33 (App. C: 21/30 → 0.70).
* OMW% / OGW% are the plain means of the opponents' MW% / GW%, each floored first. A bye is
  not an opponent: it adds nothing to these means. Opponents who dropped still count, with
  the rounds they played.

Profile ``pokemon`` (Play! Pokémon Tournament Rules Handbook 5.3.3, 5.5.1, 5.6.1)
----------------------------------------------------------------------------------
Order: match points → opponents' win % (OWP) → opponents' opponents' win % (OOWP).

* A player's win % is ``(wins + ½ × ties) ÷ rounds played``, where a bye counts neither as
  a win nor as a round played (5.6.1; TOM exports); floor 25 %; a player who dropped is
  capped at 75 % (5.3.3.1). A tie counts half a win, as in RK9's worked example
  (3-1-1 → 70 %).
* OWP is the mean of the opponents' win %; OOWP is the mean of the opponents' OWP.
* Head-to-head and the random last step of 5.5.1.1 are not applied here: players still
  equal keep the order the caller gave (registration order, or a seeded shuffle).

Conventions that differ between tools, and the choice made
-----------------------------------------------------------
* Rounding: none. Every figure is an exact fraction and comparisons are exact, so equal
  records tie exactly; floats are only for display (``StandingRow.tiebreakers``).
  MTGO rounds to four decimals and floors at 0.3333, WER/PlayerLink leave bye rounds out
  of the player's own MW% — neither is followed by ``mtr``, which reads App. C literally
  (floor exactly 0.33).
* Byes: ``mtr`` counts a bye in the player's own MW% (as a round) and GW% (as 2-0);
  ``pokemon`` leaves the bye round out of the player's own win %. Both leave byes out of
  opponents' figures.
* A player without opponents (only byes, or nothing played) has opponent figures of 0.
* Late entries: only rounds actually played count (missed rounds are not losses unless
  the site records them as matches).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from math import lcm

from .errors import StandingsError
from .games import BYE_RECORD, MatchRecord

MISSED_ROUND_LOSS = MatchRecord(0, 2, 0)

PlayerId = Hashable

MTR_FLOOR = Fraction(33, 100)
POKEMON_FLOOR = Fraction(1, 4)
POKEMON_DROPPED_CAP = Fraction(3, 4)


class TiebreakProfile(StrEnum):
    MTR = "mtr"
    POKEMON = "pokemon"


TIEBREAK_NAMES = {
    TiebreakProfile.MTR: (
        "opponents_match_win_pct",
        "game_win_pct",
        "opponents_game_win_pct",
    ),
    TiebreakProfile.POKEMON: ("opponents_win_pct", "opponents_opponents_win_pct"),
}


@dataclass(frozen=True, slots=True)
class ReportedMatch:
    """A finished match: ``record`` is player 1's games. Without a player 2 it is a bye
    (record None or 2-0-0) or, with record :data:`MISSED_ROUND_LOSS` (0-2-0), a loss for a
    round the player missed (a late entry): it counts in the player's own record and game
    figures like a 0-2 loss, and, having no opponent, in nobody's opponents' figures."""

    round_number: int
    player1: PlayerId
    player2: PlayerId | None
    record: MatchRecord | None = None


@dataclass(frozen=True, slots=True)
class StandingRow:
    rank: int  # equal for players tied on every figure
    player: PlayerId
    match_points: int
    wins: int
    losses: int
    draws: int
    byes: int
    dropped: bool
    tiebreakers: tuple[float, ...]  # in the order of ``Standings.tiebreak_names``


@dataclass(frozen=True, slots=True)
class Percentage:
    """One win percentage: the raw fraction and the value used after floor or cap."""

    raw: Fraction
    used: Fraction
    adjustment: str  # "", "floor 0.33", "floor 25%", "cap 75% (dropped)"

    @property
    def value(self) -> float:
        return float(self.used)


@dataclass(frozen=True, slots=True)
class OpponentLine:
    """One opponent as it enters a player's tiebreakers."""

    round_number: int
    opponent: PlayerId
    dropped: bool
    wins: int
    losses: int
    draws: int
    byes: int
    match_points: int
    rounds_played: int
    match_win: Percentage  # MTR: MW% of the opponent; Pokémon: the opponent's win %
    game_win: Percentage | None  # MTR only: the opponent's GW%
    opponents_win: Fraction | None  # Pokémon only: the opponent's own OWP


@dataclass(frozen=True, slots=True)
class StandingExplanation:
    player: PlayerId
    profile: TiebreakProfile
    rank: int
    match_points: int
    wins: int
    losses: int
    draws: int
    bye_rounds: tuple[int, ...]
    missed_rounds: tuple[int, ...]  # rounds lost unplayed (late entry)
    rounds_played: int
    own_match_win: Percentage | None
    own_game_win: Percentage | None
    opponents: tuple[OpponentLine, ...]
    tiebreakers: tuple[tuple[str, Fraction], ...]


class Standings:
    """Ranked rows plus the data to explain any player's figures on demand."""

    def __init__(self, profile, rows, tiebreak_names, explain_data) -> None:
        self.profile: TiebreakProfile = profile
        self.rows: tuple[StandingRow, ...] = rows
        self.tiebreak_names: tuple[str, ...] = tiebreak_names
        self._data = explain_data

    def order(self) -> list[PlayerId]:
        return [row.player for row in self.rows]

    def row(self, player: PlayerId) -> StandingRow:
        return self.rows[self._data.position[self._data.index[player]]]

    def explain(self, player: PlayerId) -> StandingExplanation:
        """The working behind one player's figures (built on demand)."""
        if player not in self._data.index:
            raise StandingsError("unknown_player", f"{player!r} is not in these standings")
        return self._data.explain(self._data.index[player], self)


class _Tally:
    """Per-player accumulators, indexed like the ``players`` argument."""

    def __init__(self, players: Sequence[PlayerId], dropped: Collection[PlayerId]) -> None:
        count = len(players)
        self.ids = list(players)
        self.index = {pid: i for i, pid in enumerate(self.ids)}
        if len(self.index) != count:
            raise StandingsError("duplicate_player", "a player is listed twice")
        self.dropped = [pid in dropped for pid in self.ids]
        self.match_points = [0] * count
        self.wins = [0] * count
        self.losses = [0] * count
        self.draws = [0] * count
        self.byes: list[list[int]] = [[] for _ in range(count)]
        self.missed: list[list[int]] = [[] for _ in range(count)]  # rounds lost unplayed
        self.game_points = [0] * count
        self.games = [0] * count
        self.opponents: list[list[int]] = [[] for _ in range(count)]
        self.opponent_rounds: list[list[int]] = [[] for _ in range(count)]
        self.position: list[int] = []
        self.profile_data: dict = {}

    def add(self, matches: Iterable[ReportedMatch]) -> None:
        index_get = self.index.get
        mp, wins, losses, draws = self.match_points, self.wins, self.losses, self.draws
        game_points, games, opponents, opponent_rounds = (
            self.game_points,
            self.games,
            self.opponents,
            self.opponent_rounds,
        )
        byes = self.byes
        count = len(self.ids) or 1
        # (round, player) pairs already seen, packed into one int for speed.
        seen: set[int] = set()
        seen_add = seen.add
        for match in matches:
            rnd = match.round_number
            a = index_get(match.player1)
            if a is None:
                raise StandingsError("unknown_player", f"round {rnd}: {match.player1!r}")
            key_a = rnd * count + a
            if key_a in seen:
                raise StandingsError("played_twice", f"round {rnd}: {match.player1!r}")
            seen_add(key_a)
            player2 = match.player2
            if player2 is None:
                if match.record == MISSED_ROUND_LOSS:
                    losses[a] += 1
                    games[a] += 2
                    self.missed[a].append(rnd)
                    continue
                if match.record is not None and match.record != BYE_RECORD:
                    raise StandingsError(
                        "bye_record",
                        f"round {rnd}: without an opponent a match is a bye (2-0-0) or a "
                        "missed-round loss (0-2-0)",
                    )
                mp[a] += 3
                wins[a] += 1
                byes[a].append(rnd)
                game_points[a] += 6
                games[a] += 2
                continue
            b = index_get(player2)
            if b is None:
                raise StandingsError("unknown_player", f"round {rnd}: {player2!r}")
            key_b = rnd * count + b
            if key_b in seen:
                raise StandingsError("played_twice", f"round {rnd}: {player2!r}")
            seen_add(key_b)
            record = match.record
            if record is None:
                raise StandingsError(
                    "missing_record", f"round {rnd}: {match.player1!r} v {player2!r}"
                )
            w, lo, d = record.wins, record.losses, record.draws
            if w > lo:
                mp[a] += 3
                wins[a] += 1
                losses[b] += 1
            elif lo > w:
                mp[b] += 3
                wins[b] += 1
                losses[a] += 1
            else:
                mp[a] += 1
                mp[b] += 1
                draws[a] += 1
                draws[b] += 1
            game_points[a] += 3 * w + d
            game_points[b] += 3 * lo + d
            played = w + lo + d
            games[a] += played
            games[b] += played
            opponents[a].append(b)
            opponents[b].append(a)
            opponent_rounds[a].append(rnd)
            opponent_rounds[b].append(rnd)

    def rounds_played(self, i: int) -> int:
        return self.wins[i] + self.losses[i] + self.draws[i]


def _scaled_means(values: Sequence[int], opponents: Sequence[Sequence[int]]) -> tuple:
    """Exact means of ``values`` over each player's opponents, as integers on one scale.

    Returns ``(keys, scale)`` with ``mean_i = keys[i] / scale`` multiplied by the scale of
    ``values`` (so keys compare exactly).
    """
    scale = lcm(*{len(opps) for opps in opponents if opps}) if any(opponents) else 1
    keys = []
    for opps in opponents:
        if opps:
            keys.append(sum([values[o] for o in opps]) * (scale // len(opps)))
        else:
            keys.append(0)
    return keys, scale


def _mtr(tally: _Tally) -> tuple[list[tuple[int, ...]], list[tuple[float, ...]]]:
    count = len(tally.ids)
    rounds = [tally.rounds_played(i) for i in range(count)]
    games = tally.games
    denominators = {100} | {3 * r for r in rounds if r} | {3 * g for g in games if g}
    unit = lcm(*denominators)
    floor_units = unit * 33 // 100
    # Opponent-facing figures on the common scale ``unit``.
    match_win = [
        max(floor_units, tally.match_points[i] * (unit // (3 * rounds[i])))
        if rounds[i]
        else floor_units
        for i in range(count)
    ]
    game_win = [
        max(floor_units, tally.game_points[i] * (unit // (3 * games[i])))
        if games[i]
        else floor_units
        for i in range(count)
    ]
    omw, omw_scale = _scaled_means(match_win, tally.opponents)
    ogw, ogw_scale = _scaled_means(game_win, tally.opponents)
    keys = [(omw[i], game_win[i], ogw[i]) for i in range(count)]
    omw_div, ogw_div = unit * omw_scale, unit * ogw_scale
    shown = [(omw[i] / omw_div, game_win[i] / unit, ogw[i] / ogw_div) for i in range(count)]
    return keys, shown


def _pokemon(tally: _Tally) -> tuple[list[tuple[int, ...]], list[tuple[float, ...]]]:
    count = len(tally.ids)
    # Rounds that count: played against an opponent, or lost unplayed; byes do not.
    played = [len(tally.opponents[i]) + len(tally.missed[i]) for i in range(count)]
    unit = lcm(4, *{2 * r for r in played if r})
    floor_units, cap_units = unit // 4, unit * 3 // 4
    win_pct = []
    for i in range(count):
        if not played[i]:
            win_pct.append(floor_units)
            continue
        wins = tally.wins[i] - len(tally.byes[i])
        value = (2 * wins + tally.draws[i]) * (unit // (2 * played[i]))
        value = max(floor_units, value)
        if tally.dropped[i]:
            value = min(cap_units, value)
        win_pct.append(value)
    owp, owp_scale = _scaled_means(win_pct, tally.opponents)
    oowp, oowp_scale = _scaled_means(owp, tally.opponents)
    keys = [(owp[i], oowp[i]) for i in range(count)]
    owp_div = unit * owp_scale
    oowp_div = owp_div * oowp_scale
    shown = [(owp[i] / owp_div, oowp[i] / oowp_div) for i in range(count)]
    return keys, shown


def compute_standings(
    players: Iterable[PlayerId],
    matches: Iterable[ReportedMatch],
    *,
    dropped: Collection[PlayerId] = (),
    profile: TiebreakProfile | str = TiebreakProfile.MTR,
) -> Standings:
    """Rank ``players`` (in this order when still tied) by match points and ``profile``.

    Pure function. Raises :class:`StandingsError` for an unknown player, a player listed in
    two matches of one round, or a match without a record.
    """
    try:
        profile = TiebreakProfile(profile)
    except ValueError:
        raise StandingsError("unknown_profile", f"unknown tiebreak profile {profile!r}") from None
    tally = _Tally(list(players), set(dropped))
    tally.add(matches)
    if profile is TiebreakProfile.MTR:
        keys, shown = _mtr(tally)
    else:
        keys, shown = _pokemon(tally)
    mp = tally.match_points
    count = len(tally.ids)
    order = sorted(range(count), key=lambda i: (-mp[i], *(-k for k in keys[i]), i))
    rows = []
    position = [0] * count
    rank = 0
    previous = None
    for place, i in enumerate(order):
        key = (mp[i], keys[i])
        if key != previous:
            rank = place + 1
            previous = key
        position[i] = place
        rows.append(
            StandingRow(
                rank=rank,
                player=tally.ids[i],
                match_points=mp[i],
                wins=tally.wins[i],
                losses=tally.losses[i],
                draws=tally.draws[i],
                byes=len(tally.byes[i]),
                dropped=tally.dropped[i],
                tiebreakers=shown[i],
            )
        )
    tally.position = position
    return Standings(profile, tuple(rows), TIEBREAK_NAMES[profile], _Explainer(tally, profile))


class _Explainer:
    """Rebuilds one player's working with exact fractions (only when asked)."""

    def __init__(self, tally: _Tally, profile: TiebreakProfile) -> None:
        self.tally = tally
        self.profile = profile
        self.index = tally.index
        self.position = tally.position

    def mtr_match_win(self, i: int) -> Percentage | None:
        t = self.tally
        rounds = t.rounds_played(i)
        if not rounds:
            return None
        raw = Fraction(t.match_points[i], 3 * rounds)
        return Percentage(raw, max(raw, MTR_FLOOR), "floor 0.33" if raw < MTR_FLOOR else "")

    def mtr_game_win(self, i: int) -> Percentage | None:
        t = self.tally
        if not t.games[i]:
            return None
        raw = Fraction(t.game_points[i], 3 * t.games[i])
        return Percentage(raw, max(raw, MTR_FLOOR), "floor 0.33" if raw < MTR_FLOOR else "")

    def pokemon_win(self, i: int) -> Percentage | None:
        t = self.tally
        played = len(t.opponents[i]) + len(t.missed[i])
        if not played:
            return None
        wins = t.wins[i] - len(t.byes[i])
        raw = Fraction(2 * wins + t.draws[i], 2 * played)
        used, note = raw, ""
        if used < POKEMON_FLOOR:
            used, note = POKEMON_FLOOR, "floor 25%"
        if t.dropped[i] and used > POKEMON_DROPPED_CAP:
            used, note = POKEMON_DROPPED_CAP, "cap 75% (dropped)"
        return Percentage(raw, used, note)

    def pokemon_owp(self, i: int) -> Fraction:
        opps = self.tally.opponents[i]
        if not opps:
            return Fraction(0)
        return sum((self.pokemon_win(o).used for o in opps), Fraction(0)) / len(opps)

    def explain(self, i: int, standings: Standings) -> StandingExplanation:
        t = self.tally
        lines = []
        mtr = self.profile is TiebreakProfile.MTR
        for o, rnd in zip(t.opponents[i], t.opponent_rounds[i], strict=True):
            lines.append(
                OpponentLine(
                    round_number=rnd,
                    opponent=t.ids[o],
                    dropped=t.dropped[o],
                    wins=t.wins[o],
                    losses=t.losses[o],
                    draws=t.draws[o],
                    byes=len(t.byes[o]),
                    match_points=t.match_points[o],
                    rounds_played=t.rounds_played(o),
                    match_win=self.mtr_match_win(o) if mtr else self.pokemon_win(o),
                    game_win=self.mtr_game_win(o) if mtr else None,
                    opponents_win=None if mtr else self.pokemon_owp(o),
                )
            )
        count = len(lines)
        if mtr:
            omw = sum((line.match_win.used for line in lines), Fraction(0)) / count if count else 0
            ogw = sum((line.game_win.used for line in lines), Fraction(0)) / count if count else 0
            own_game = self.mtr_game_win(i)
            figures = (
                ("opponents_match_win_pct", Fraction(omw)),
                ("game_win_pct", own_game.used if own_game else MTR_FLOOR),
                ("opponents_game_win_pct", Fraction(ogw)),
            )
            own_match = self.mtr_match_win(i)
        else:
            owp = sum((line.match_win.used for line in lines), Fraction(0)) / count if count else 0
            oowp = sum((line.opponents_win for line in lines), Fraction(0)) / count if count else 0
            figures = (
                ("opponents_win_pct", Fraction(owp)),
                ("opponents_opponents_win_pct", Fraction(oowp)),
            )
            own_match, own_game = self.pokemon_win(i), None
        row = standings.rows[self.position[i]]
        return StandingExplanation(
            player=t.ids[i],
            profile=self.profile,
            rank=row.rank,
            match_points=t.match_points[i],
            wins=t.wins[i],
            losses=t.losses[i],
            draws=t.draws[i],
            bye_rounds=tuple(t.byes[i]),
            missed_rounds=tuple(t.missed[i]),
            rounds_played=t.rounds_played(i),
            own_match_win=own_match,
            own_game_win=own_game,
            opponents=tuple(lines),
            tiebreakers=figures,
        )
