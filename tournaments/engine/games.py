"""Best-of-three adjudication: a game's end report → the game's result → the match's result.

Rules followed (CrossOver The F&C TCG basic rules 2.02, section 4−1; wiki summary 002):

* 4−1−2 — a game ends when a player's HP is brought to 0 (that player loses); when a
  player's deck becomes empty (its owner loses *at that moment*, not when failing to draw,
  wiki 002); when both players meet one of those conditions at once (draw); and when the
  round's time runs out, if the event has a time limit (draw). A concession and a game loss
  given as a penalty also end a game (tournament practice, MTR 2.5 and the IPG).
* Events that must produce a winner (a top cut, or an organiser's choice) declare a
  time-out policy instead of the draw: "more HP wins" (wiki 002). Equal HP then gives
  :attr:`GameOutcome.UNDECIDED`: a judge decides (for example by a sudden-death game); the
  engine never invents a winner.
* Other games end differently, so every rule above that is CrossOver's is a value of
  :class:`GameEndRules`, built from the game's data (``cardpool.Game``): whether players
  have HP and its maximum (CrossOver 1−4: HP counted from 1 to 30; Cross Universe seed 003:
  life points with no upper limit; Monster Collection and AsuraSystem: no HP in their
  seeds), whether HP 0 loses, how running out of cards loses (the moment the deck is
  empty, when a draw from an empty deck is due, or not at all) and whether time-outs have
  a tiebreak. An ending the game does not have is refused (``end_not_in_game``), as is HP
  for a game without HP (``hp_not_tracked``); each refusal names the game and the source
  of the rule it applies.
* 4−1−1 — a match is at most three games and ends as soon as one player has won two; the
  player with more game wins wins the match and equal game wins make a drawn match. A
  record is written wins-losses-draws from player 1's side: 2-0, 2-1, 1-1-1, 1-0-1,
  2-0-1, 1-0-2 and 0-0-3 (an intentional draw, MTR 2.5) are valid; a game after a player
  reached two wins (3-0, or W-W-D played in that order), a fourth game and an empty record
  are not.
* A player may report the match as a record from their own side (one tap at the table):
  :func:`record_for_seat` turns it into player 1's side, :func:`possible_records` lists
  every record 4−1−1 allows (the choices offered), and :func:`check_fixed_games` refuses a
  record that does not account for the games a game-loss penalty already decided.

Points (MTR App. C, used by ``standings.py``): a match win is 3 match points, a draw 1, a
loss 0; a game win is 3 game points, a drawn game 1, a lost game 0; a bye is a 2-0 win.

Reports are plain data; every impossible report is rejected with an
:class:`~tournaments.engine.errors.InvalidGameReport` or
:class:`~tournaments.engine.errors.InvalidMatchRecord` whose ``code`` is stable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from .errors import InvalidGameReport, InvalidMatchRecord

MAX_HP = 30  # CrossOver: 1−4 (an HP counter counts 1 to 30); wiki 002: start and maximum 30
GAMES_TO_WIN = 2
MAX_GAMES = 3
GAME_WIN_POINTS = 3
GAME_DRAW_POINTS = 1
MATCH_WIN_POINTS = 3
MATCH_DRAW_POINTS = 1


class GameEnd(StrEnum):
    """How a game ended, as reported (rulebook 4−1−2 plus tournament endings)."""

    HP_ZERO = "hp_zero"  # one player's HP reached 0: that player loses
    DECK_EMPTY = "deck_empty"  # one player's deck became empty: that player loses
    SIMULTANEOUS = "simultaneous"  # both players met a losing condition at once: draw
    TIME = "time"  # the round's time ran out: draw, or the event's time-out policy
    CONCESSION = "concession"
    PENALTY = "penalty"  # a game loss given to one player as a penalty


class GameOutcome(StrEnum):
    PLAYER1 = "player1"
    PLAYER2 = "player2"
    DRAW = "draw"
    # A time-out where a winner is needed but none follows from the game's rules (equal HP
    # under "more HP wins", or a game without a time-out tiebreak): a judge decides.
    UNDECIDED = "undecided"


class TimeoutPolicy(StrEnum):
    DRAW = "draw"  # Swiss rounds (4−1−2)
    MORE_HP_WINS = "more_hp_wins"  # events that need a winner (wiki 002)


class DeckOut(StrEnum):
    """How running out of cards ends a game, in a game's rules."""

    NONE = "none"  # it does not end the game (or the game's documents do not say it does)
    EMPTY = "empty"  # the owner loses the moment the deck becomes empty (CrossOver 4−1−2)
    DRAW = "draw"  # the owner loses when a draw from the empty deck is due


class TimeTiebreak(StrEnum):
    """What a time-out under :attr:`TimeoutPolicy.MORE_HP_WINS` compares, in a game's rules."""

    NONE = "none"  # nothing to compare: a judge decides (GameOutcome.UNDECIDED)
    MORE_HP = "more_hp"  # the player with more HP wins (CrossOver, wiki 002)


# The keys of GameEndRules.sources: where each rule comes from (a document and section, or
# "assumption: …" where the game's documents say nothing).
SOURCE_KEYS = ("hp", "max_hp", "hp_zero", "deck_out", "time_tiebreak")


@dataclass(frozen=True, slots=True)
class GameEndRules:
    """How games of one card game end, as plain data (the site builds it from
    ``cardpool.Game``; the defaults are CrossOver's, rulebook 1−4 and 4−1−2, wiki 002).

    ``max_hp`` None means HP has no upper limit; without ``hp_tracked`` there is no HP at
    all, so no HP may be reported, HP 0 cannot end a game and time-outs have no HP to
    compare. ``sources`` maps the keys of :data:`SOURCE_KEYS` to the citation shown with
    a refusal. Raises ValueError for a contradictory combination.
    """

    game: str = "CrossOver The F&C TCG"
    hp_tracked: bool = True
    max_hp: int | None = MAX_HP
    hp_zero_loses: bool = True
    deck_out: DeckOut = DeckOut.EMPTY
    time_tiebreak: TimeTiebreak = TimeTiebreak.MORE_HP
    sources: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "deck_out", DeckOut(self.deck_out))
        object.__setattr__(self, "time_tiebreak", TimeTiebreak(self.time_tiebreak))
        if self.max_hp is not None and (
            isinstance(self.max_hp, bool) or not isinstance(self.max_hp, int) or self.max_hp < 1
        ):
            raise ValueError(f"{self.game}: maximum HP must be a whole number ≥ 1 or None")
        if not self.hp_tracked:
            if self.max_hp is not None:
                raise ValueError(f"{self.game}: a maximum HP needs HP")
            if self.hp_zero_loses:
                raise ValueError(f"{self.game}: 'HP 0 loses' needs HP")
            if self.time_tiebreak is TimeTiebreak.MORE_HP:
                raise ValueError(f"{self.game}: 'more HP wins' at time-out needs HP")
        unknown = set(self.sources) - set(SOURCE_KEYS)
        if unknown:
            raise ValueError(f"{self.game}: unknown source keys {sorted(unknown)}")

    @property
    def endings(self) -> frozenset[GameEnd]:
        """The endings a report of this game may give: the game's own losing conditions,
        both at once, and the tournament endings (time, concession, game loss)."""
        endings = {GameEnd.TIME, GameEnd.CONCESSION, GameEnd.PENALTY}
        if self.hp_zero_loses:
            endings.add(GameEnd.HP_ZERO)
        if self.deck_out is not DeckOut.NONE:
            endings.add(GameEnd.DECK_EMPTY)
        if len(endings) > 3:
            endings.add(GameEnd.SIMULTANEOUS)
        return frozenset(endings)

    def cite(self, key: str) -> str:
        """`` (game: source)`` for the rule ``key`` (the game alone when no source is given)."""
        source = self.sources.get(key)
        return f" ({self.game}: {source})" if source else f" ({self.game})"


CROSSOVER_END_RULES = GameEndRules(
    sources={
        "hp": "Basic Rules v2.02 1−4",
        "max_hp": "Basic Rules v2.02 1−4; wiki summary 002",
        "hp_zero": "Basic Rules v2.02 4−1−2",
        "deck_out": "Basic Rules v2.02 4−1−2; wiki summary 002",
        "time_tiebreak": "wiki summary 002",
    }
)


class MatchOutcome(StrEnum):
    PLAYER1 = "player1"
    PLAYER2 = "player2"
    DRAW = "draw"


@dataclass(frozen=True, slots=True)
class GameReport:
    """The state reported at the end of a game; pairs are (player 1, player 2).

    ``hp`` and ``deck`` (cards left in the deck) are needed only where the ending depends
    on them; ``None`` means "not reported". HP is reported as 0, never below, for a player
    whose HP ran out.
    """

    end: GameEnd | None
    hp: tuple[int | None, int | None] = (None, None)
    deck: tuple[int | None, int | None] = (None, None)
    conceded: tuple[bool, bool] = (False, False)
    penalized: tuple[bool, bool] = (False, False)


def _winner_is(seat_index: int) -> GameOutcome:
    return GameOutcome.PLAYER1 if seat_index == 0 else GameOutcome.PLAYER2


def _check_numbers(report: GameReport, rules: GameEndRules) -> None:
    for seat, hp in enumerate(report.hp, 1):
        if hp is None:
            continue
        if not rules.hp_tracked:
            raise InvalidGameReport(
                "hp_not_tracked",
                f"player {seat}: HP {hp!r}, but players have no HP in this game; leave HP "
                f"empty{rules.cite('hp')}",
            )
        if isinstance(hp, bool) or not isinstance(hp, int):
            raise InvalidGameReport("hp_not_a_number", f"player {seat}: HP {hp!r}")
        if hp < 0:
            raise InvalidGameReport(
                "hp_negative",
                f"player {seat}: HP {hp}; HP stops at 0, report 0 for a player whose HP ran out",
            )
        if rules.max_hp is not None and hp > rules.max_hp:
            raise InvalidGameReport(
                "hp_above_maximum",
                f"player {seat}: HP {hp} is above the maximum {rules.max_hp}{rules.cite('max_hp')}",
            )
    for seat, cards in enumerate(report.deck, 1):
        if cards is None:
            continue
        if isinstance(cards, bool) or not isinstance(cards, int):
            raise InvalidGameReport("deck_not_a_number", f"player {seat}: deck {cards!r}")
        if cards < 0:
            raise InvalidGameReport("deck_negative", f"player {seat}: {cards} cards in deck")


def _require(values: tuple, what: str, end: GameEnd) -> tuple[int, int]:
    if values[0] is None or values[1] is None:
        raise InvalidGameReport(f"{what}_missing", f"a '{end}' ending needs both players' {what}")
    return values  # type: ignore[return-value]


def _lost_already(report: GameReport, seat_index: int, rules: GameEndRules) -> bool:
    """True if the reported state shows this player had met a losing condition (an empty
    deck is one only where the owner loses the moment it empties)."""
    return (rules.hp_zero_loses and report.hp[seat_index] == 0) or (
        rules.deck_out is DeckOut.EMPTY and report.deck[seat_index] == 0
    )


def _may_have_lost(report: GameReport, seat_index: int, rules: GameEndRules) -> bool:
    """True if the reported state allows a losing condition for this player (under
    :attr:`DeckOut.DRAW` an empty deck loses once a draw is due)."""
    return _lost_already(report, seat_index, rules) or (
        rules.deck_out is DeckOut.DRAW and report.deck[seat_index] == 0
    )


def adjudicate_game(
    report: GameReport,
    *,
    timeout_policy: TimeoutPolicy = TimeoutPolicy.DRAW,
    rules: GameEndRules = CROSSOVER_END_RULES,
) -> GameOutcome:
    """Decide a game from its end report under the game's ``rules`` (CrossOver's by
    default: rulebook 4−1−2; wiki 002 for time-outs).

    Pure function. Raises :class:`InvalidGameReport` for an impossible or incomplete
    report, or one the game's rules do not allow. Returns :attr:`GameOutcome.UNDECIDED`
    only for a time-out under :attr:`TimeoutPolicy.MORE_HP_WINS` with equal HP, or in a
    game whose rules give time-outs no tiebreak.
    """
    end = report.end
    if end is None:
        raise InvalidGameReport("end_missing", "the report does not say how the game ended")
    if not isinstance(end, GameEnd):
        try:
            end = GameEnd(end)
        except ValueError:
            raise InvalidGameReport("end_unknown", f"unknown game ending {end!r}") from None
    if end not in rules.endings:
        source = "hp_zero" if end is GameEnd.HP_ZERO else "deck_out"
        raise InvalidGameReport(
            "end_not_in_game", f"a game does not end by '{end}' in this game{rules.cite(source)}"
        )
    _check_numbers(report, rules)
    conceded = [bool(flag) for flag in report.conceded]
    penalized = [bool(flag) for flag in report.penalized]
    if all(conceded):
        raise InvalidGameReport("both_conceded", "both players cannot concede the same game")
    if all(penalized):
        raise InvalidGameReport(
            "both_penalized",
            "a game loss for both players at once is not a game result; record each "
            "penalty separately",
        )
    if any(conceded) and end is not GameEnd.CONCESSION:
        raise InvalidGameReport("concession_mismatch", f"a concession with ending '{end}'")
    if any(penalized) and end is not GameEnd.PENALTY:
        raise InvalidGameReport("penalty_mismatch", f"a penalty game loss with ending '{end}'")

    if end is GameEnd.HP_ZERO:
        hp = _require(report.hp, "hp", end)
        zero = [value == 0 for value in hp]
        if all(zero):
            raise InvalidGameReport(
                "both_hp_zero",
                "both players' HP reached 0: report it as 'simultaneous' (a draw, 4−1−2)",
            )
        if not any(zero):
            raise InvalidGameReport("no_hp_zero", f"ending 'hp_zero' but HP is {hp[0]}-{hp[1]}")
        loser = zero.index(True)
        if rules.deck_out is DeckOut.EMPTY and report.deck[1 - loser] == 0:
            raise InvalidGameReport(
                "winner_deck_empty",
                "the winner's deck is empty too: report it as 'simultaneous' (a draw)",
            )
        return _winner_is(1 - loser)

    if end is GameEnd.DECK_EMPTY:
        deck = _require(report.deck, "deck", end)
        empty = [cards == 0 for cards in deck]
        if all(empty) and rules.deck_out is DeckOut.DRAW:
            raise InvalidGameReport(
                "deck_out_unclear",
                "both decks are at 0, and in this game only the player who had to draw "
                f"from an empty deck loses: enter the match as a record{rules.cite('deck_out')}",
            )
        if all(empty):
            raise InvalidGameReport(
                "both_decks_empty",
                "both decks became empty: report it as 'simultaneous' (a draw, 4−1−2)",
            )
        if not any(empty):
            raise InvalidGameReport(
                "no_deck_empty", f"ending 'deck_empty' but the decks hold {deck[0]} and {deck[1]}"
            )
        loser = empty.index(True)
        if rules.hp_zero_loses and report.hp[1 - loser] == 0:
            raise InvalidGameReport(
                "winner_hp_zero",
                "the winner's HP is 0 too: report it as 'simultaneous' (a draw)",
            )
        return _winner_is(1 - loser)

    if end is GameEnd.SIMULTANEOUS:
        for seat in (0, 1):
            if not _may_have_lost(report, seat, rules):
                raise InvalidGameReport(
                    "not_simultaneous",
                    f"player {seat + 1} shows neither HP 0 nor an empty deck; a simultaneous "
                    "ending needs both",
                )
        return GameOutcome.DRAW

    if end is GameEnd.TIME:
        for seat in (0, 1):
            if _lost_already(report, seat, rules):
                raise InvalidGameReport(
                    "game_already_over",
                    f"player {seat + 1} shows HP 0 or an empty deck: the game ended before time",
                )
        if timeout_policy is TimeoutPolicy.DRAW:
            return GameOutcome.DRAW
        if rules.time_tiebreak is TimeTiebreak.NONE:
            return GameOutcome.UNDECIDED  # the game's rules compare nothing: a judge decides
        hp = _require(report.hp, "hp", end)
        if hp[0] == hp[1]:
            return GameOutcome.UNDECIDED
        return GameOutcome.PLAYER1 if hp[0] > hp[1] else GameOutcome.PLAYER2

    if end is GameEnd.CONCESSION:
        if not any(conceded):
            raise InvalidGameReport("concession_missing", "say which player conceded")
        for seat in (0, 1):
            if _lost_already(report, seat, rules):
                raise InvalidGameReport(
                    "game_already_over",
                    f"player {seat + 1} shows HP 0 or an empty deck: the game had ended "
                    "before the concession",
                )
        return _winner_is(1 - conceded.index(True))

    # GameEnd.PENALTY: the game loss stands whatever the board showed.
    if not any(penalized):
        raise InvalidGameReport("penalty_missing", "say which player received the game loss")
    return _winner_is(1 - penalized.index(True))


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A best-of-three record from player 1's side: game wins, losses and draws.

    Construction checks rule 4−1−1 (see the module docstring); a bye is ``MatchRecord(2,
    0, 0)``.
    """

    wins: int
    losses: int
    draws: int = 0

    def __post_init__(self) -> None:
        for name in ("wins", "losses", "draws"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidMatchRecord("not_a_count", f"{name} must be a count ≥ 0: {value!r}")
        games = self.wins + self.losses + self.draws
        if games == 0:
            raise InvalidMatchRecord("no_games", "a match record needs at least one game")
        if self.wins > GAMES_TO_WIN or self.losses > GAMES_TO_WIN:
            raise InvalidMatchRecord(
                "game_after_decided",
                f"{self}: the match ended when a player reached {GAMES_TO_WIN} game wins",
            )
        if games > MAX_GAMES:
            raise InvalidMatchRecord(
                "too_many_games", f"{self}: a match is at most {MAX_GAMES} games"
            )

    def __str__(self) -> str:
        return f"{self.wins}-{self.losses}-{self.draws}"

    @classmethod
    def parse(cls, text: str) -> MatchRecord:
        """Read ``"2-1"`` or ``"1-1-1"`` (wins-losses[-draws])."""
        parts = text.strip().split("-")
        if len(parts) not in (2, 3) or not all(
            part.strip().isdecimal() and part.strip().isascii() for part in parts
        ):
            raise InvalidMatchRecord("unreadable", f"expected wins-losses[-draws]: {text!r}")
        numbers = [int(part) for part in parts]
        return cls(*numbers)

    @classmethod
    def from_games(cls, games: Sequence[GameOutcome]) -> MatchRecord:
        """Build the record from the games in the order played, checking rule 4−1−1."""
        wins = losses = draws = 0
        for number, outcome in enumerate(games, 1):
            if number > MAX_GAMES:
                raise InvalidMatchRecord(
                    "too_many_games", f"game {number}: a match is at most {MAX_GAMES} games"
                )
            if wins == GAMES_TO_WIN or losses == GAMES_TO_WIN:
                raise InvalidMatchRecord(
                    "game_after_decided",
                    f"game {number} was reported after a player had {GAMES_TO_WIN} game wins",
                )
            if outcome is GameOutcome.PLAYER1:
                wins += 1
            elif outcome is GameOutcome.PLAYER2:
                losses += 1
            elif outcome is GameOutcome.DRAW:
                draws += 1
            else:
                raise InvalidMatchRecord(
                    "undecided_game",
                    f"game {number} is undecided (time ran out and no winner follows from the "
                    "game's rules, e.g. equal HP): a judge must decide it",
                )
        return cls(wins, losses, draws)

    @property
    def outcome(self) -> MatchOutcome:
        if self.wins > self.losses:
            return MatchOutcome.PLAYER1
        if self.losses > self.wins:
            return MatchOutcome.PLAYER2
        return MatchOutcome.DRAW

    @property
    def games_played(self) -> int:
        return self.wins + self.losses + self.draws

    def reversed(self) -> MatchRecord:
        """The same match from player 2's side."""
        return MatchRecord(self.losses, self.wins, self.draws)

    def match_points(self) -> tuple[int, int]:
        """Match points of (player 1, player 2): win 3, draw 1, loss 0 (MTR App. C)."""
        outcome = self.outcome
        if outcome is MatchOutcome.PLAYER1:
            return MATCH_WIN_POINTS, 0
        if outcome is MatchOutcome.PLAYER2:
            return 0, MATCH_WIN_POINTS
        return MATCH_DRAW_POINTS, MATCH_DRAW_POINTS

    def game_points(self) -> tuple[int, int]:
        """Game points of (player 1, player 2): game win 3, drawn game 1 (MTR App. C)."""
        return (
            GAME_WIN_POINTS * self.wins + GAME_DRAW_POINTS * self.draws,
            GAME_WIN_POINTS * self.losses + GAME_DRAW_POINTS * self.draws,
        )


BYE_RECORD = MatchRecord(2, 0, 0)


def match_result(record: MatchRecord, *, winner_required: bool = False) -> MatchOutcome:
    """The match's result (4−1−1); a draw is rejected where a winner is required."""
    outcome = record.outcome
    if winner_required and outcome is MatchOutcome.DRAW:
        raise InvalidMatchRecord(
            "winner_required",
            f"{record}: this match needs a winner; play a deciding game or let a judge decide",
        )
    return outcome


def adjudicate_match(
    reports: Sequence[GameReport],
    *,
    timeout_policy: TimeoutPolicy = TimeoutPolicy.DRAW,
    winner_required: bool = False,
    rules: GameEndRules = CROSSOVER_END_RULES,
) -> MatchRecord:
    """Decide every game of a match from its report and check the resulting record.

    Raises :class:`InvalidGameReport` for a bad report (its message names the game) and
    :class:`InvalidMatchRecord` for a bad record, an undecided game or, with
    ``winner_required``, a drawn match.
    """
    outcomes = []
    for number, report in enumerate(reports, 1):
        try:
            outcomes.append(adjudicate_game(report, timeout_policy=timeout_policy, rules=rules))
        except InvalidGameReport as exc:
            raise InvalidGameReport(exc.code, f"game {number}: {exc.message}") from None
    record = MatchRecord.from_games(outcomes)
    match_result(record, winner_required=winner_required)
    return record


# --- records as a player reports them (one tap, from their own side) --------------------

SEATS = (1, 2)


def record_for_seat(record: MatchRecord | str, seat: int) -> MatchRecord:
    """The record from player 1's side, given ``record`` from ``seat``'s side (1 or 2;
    text such as ``"2-1"`` is parsed). Its own inverse: applied to player 1's record it
    gives ``seat``'s side, which is how every page reads a result to its reader."""
    if seat not in SEATS:
        raise ValueError(f"seat must be 1 or 2: {seat!r}")
    if not isinstance(record, MatchRecord):
        record = MatchRecord.parse(record)
    return record if seat == 1 else record.reversed()


def _choice_order(record: MatchRecord) -> tuple:
    """Wins first, then draws, then losses. Wins: without a drawn game before with one,
    more game wins first, then fewer game losses; losses mirror the wins so the list ends
    with the clearest loss; draws: more games played first, then more game wins."""
    if record.outcome is MatchOutcome.PLAYER1:
        return (0, record.draws > 0, -record.wins, record.losses, record.draws)
    if record.outcome is MatchOutcome.DRAW:
        return (1, -record.games_played, -record.wins)
    mirror = _choice_order(record.reversed())
    return (2, *(-value for value in mirror[1:]))


def possible_records(*, winner_required: bool = False) -> list[MatchRecord]:
    """Every record rule 4−1−1 allows with at least one game (checked by
    :class:`MatchRecord` itself, not listed by hand), in the order a player is offered
    them (see :func:`_choice_order`); with ``winner_required`` (a top cut) only those with
    a winner. The same list serves either seat: a record read from the reporter's side."""
    records = []
    for wins in range(MAX_GAMES + 1):
        for losses in range(MAX_GAMES + 1):
            for draws in range(MAX_GAMES + 1):
                try:
                    record = MatchRecord(wins, losses, draws)
                    match_result(record, winner_required=winner_required)
                except InvalidMatchRecord:
                    continue
                records.append(record)
    return sorted(records, key=_choice_order)


def check_fixed_games(record: MatchRecord, fixed: Sequence[GameOutcome]) -> None:
    """Refuse ``record`` (player 1's side) when it gives a player fewer game wins than the
    games already decided for them (``fixed``: the outcomes of the game-loss penalty
    games, which stay part of the match whatever the players report)."""
    won_by_1 = sum(1 for outcome in fixed if outcome is GameOutcome.PLAYER1)
    won_by_2 = sum(1 for outcome in fixed if outcome is GameOutcome.PLAYER2)
    drawn = sum(1 for outcome in fixed if outcome is GameOutcome.DRAW)
    if record.wins < won_by_1 or record.losses < won_by_2 or record.draws < drawn:
        raise InvalidMatchRecord(
            "record_below_fixed_games",
            f"{record}: a penalty already decided {won_by_1}-{won_by_2}-{drawn} of this "
            "match's games; the record must include them",
        )
