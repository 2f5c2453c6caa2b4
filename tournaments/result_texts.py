"""What the pages say about results: when the engine refuses reported games or a match
record, one translatable text per engine code (``tournaments.engine.games``), with the
game number when the engine names one (the engine's own messages stay English, for logs
and the API); and a result or a game read from the reader's own side."""

from __future__ import annotations

import re

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .engine.games import GameEnd, GameOutcome, MatchOutcome, MatchRecord, record_for_seat

ENGINE_TEXTS = {
    "hp_not_a_number": _("Enter both players' HP as whole numbers."),
    "hp_negative": _("HP stops at 0: enter 0 for a player whose HP ran out."),
    "hp_above_maximum": _("An HP value is above the maximum HP of this event's game."),
    "hp_not_tracked": _("Players have no HP in this event's game: leave HP empty."),
    "end_not_in_game": _("This event's game does not end that way: choose another ending."),
    "deck_out_unclear": _(
        "Both decks are at 0 and only the player who had to draw lost: report the match as "
        "a result (e.g. 2-1) instead of game by game."
    ),
    "hp_missing": _("Enter both players' HP for this ending."),
    "deck_not_a_number": _("Enter both players' cards left in the deck as whole numbers."),
    "deck_negative": _("Cards left in a deck cannot be negative."),
    "deck_missing": _("Enter both players' cards left in the deck for this ending."),
    "end_missing": _("Say how the game ended."),
    "end_unknown": _("Say how the game ended."),
    "both_conceded": _("Both players cannot concede the same game."),
    "both_penalized": _("A game loss for both players is not a game result: record each penalty."),
    "concession_mismatch": _("Choose “A player conceded” as the ending when a player conceded."),
    "concession_missing": _("Say which player conceded."),
    "penalty_mismatch": _("A game loss from a penalty must be entered as a penalty."),
    "penalty_missing": _("Say which player received the game loss."),
    "both_hp_zero": _("Both players' HP reached 0: choose “Both at once (draw)” (rule 4−1−2)."),
    "no_hp_zero": _("The ending says a player's HP reached 0, but neither HP is 0."),
    "winner_deck_empty": _(
        "The winner's deck is empty too: choose “Both at once (draw)” (rule 4−1−2)."
    ),
    "both_decks_empty": _("Both decks ran out: choose “Both at once (draw)” (rule 4−1−2)."),
    "no_deck_empty": _("The ending says a deck ran out, but neither deck is at 0."),
    "winner_hp_zero": _("The winner's HP is 0 too: choose “Both at once (draw)” (rule 4−1−2)."),
    "not_simultaneous": _("A simultaneous ending needs HP 0 or an empty deck for both players."),
    "game_already_over": _(
        "A player already shows HP 0 or an empty deck: the game had ended before that."
    ),
    "no_games": _("Enter at least one game."),
    "not_a_count": _("Game counts are whole numbers from 0."),
    "unreadable": _("Write the record as wins-losses or wins-losses-draws, e.g. 2-1."),
    "game_after_decided": _(
        "A game was entered after a player had already won two: a match ends there."
    ),
    "too_many_games": _("A match is at most three games."),
    "undecided_game": _(
        "A game is undecided (time ran out with no winner by the game's rules, e.g. equal "
        "HP): a judge decides it."
    ),
    "winner_required": _("This match needs a winner: play a deciding game or let a judge decide."),
    "record_below_fixed_games": _(
        "A game loss given as a penalty is already part of this match: the result must "
        "include that game."
    ),
}

_GAME_NUMBER = re.compile(r"^game (\d+)\b")


def engine_error_text(error) -> str | None:
    """The page text for a refused result (``InvalidResult``), or None for other errors
    or codes without a text."""
    text = ENGINE_TEXTS.get(error.details.get("engine_code"))
    if text is None:
        return None
    number = _GAME_NUMBER.match(error.message or "")
    if number:
        return gettext("Game %(number)s: %(text)s") % {"number": number.group(1), "text": text}
    return str(text)


# --- results read from the reader's side ---------------------------------------------------
# A record is stored from player 1's side; every text below turns it to the side of the
# one reading it (``seat`` 1 or 2), or to the winner's side for a spectator.

EN_DASH = "\u2013"


def score(record: MatchRecord) -> str:
    """``2–1``, or ``1–1–1`` when a game was drawn (wins–losses[–draws])."""
    parts = [record.wins, record.losses] + ([record.draws] if record.draws else [])
    return EN_DASH.join(str(part) for part in parts)


# Each text in three forms, by the outcome from the reader's side: (win, loss, draw).
CHOICE_TEXTS = (_("%(score)s win"), _("%(score)s loss"), _("Draw %(score)s"))
REPORT_TEXTS = (_("Report %(score)s win"), _("Report %(score)s loss"), _("Report draw %(score)s"))
READER_TEXTS = (_("You won %(score)s"), _("You lost %(score)s"), _("Drawn %(score)s"))
CONFIRM_TEXTS = (
    _("Confirm: you won %(score)s"),
    _("Confirm: you lost %(score)s"),
    _("Confirm: drawn %(score)s"),
)
_FORM = {MatchOutcome.PLAYER1: 0, MatchOutcome.PLAYER2: 1, MatchOutcome.DRAW: 2}


def _worded(texts: tuple, record: MatchRecord) -> str:
    """The form of ``texts`` for ``record``'s outcome (``record`` from the reader's side)."""
    return str(texts[_FORM[record.outcome]]) % {"score": score(record)}


def choice_label(record: MatchRecord) -> str:
    """A one-tap choice, ``record`` from the reporter's side: "2–1 win", "Draw 1–1–1"."""
    return _worded(CHOICE_TEXTS, record)


def report_label(record: MatchRecord) -> str:
    """The confirming button of a choice: "Report 2–1 win"."""
    return _worded(REPORT_TEXTS, record)


def reader_result(record: MatchRecord, seat: int) -> str:
    """The result to a player of the match: "You won 2–1", "You lost 0–2", "Drawn 1–1–1"."""
    return _worded(READER_TEXTS, record_for_seat(record, seat))


def confirm_label(record: MatchRecord, seat: int) -> str:
    """The opponent's one tap: "Confirm: you lost 1–2"."""
    return _worded(CONFIRM_TEXTS, record_for_seat(record, seat))


def spectator_result(record: MatchRecord, names: tuple[str, str]) -> str:
    """The result to anyone else, from the winner's side: "Alice won 2–1 against Bob"."""
    outcome = record.outcome
    if outcome is MatchOutcome.DRAW:
        return gettext("%(player1)s and %(player2)s drew %(score)s") % {
            "player1": names[0],
            "player2": names[1],
            "score": score(record),
        }
    winner = 1 if outcome is MatchOutcome.PLAYER1 else 2
    return gettext("%(winner)s won %(score)s against %(loser)s") % {
        "winner": names[winner - 1],
        "loser": names[2 - winner],
        "score": score(record_for_seat(record, winner)),
    }


def _who_won(outcome: GameOutcome, seat: int | None, names) -> str:
    if outcome is GameOutcome.DRAW:
        return gettext("drawn")
    if outcome is GameOutcome.UNDECIDED:
        return gettext("undecided (a judge decides)")
    winner = 1 if outcome is GameOutcome.PLAYER1 else 2
    if seat is None:
        return gettext("%(name)s won") % {"name": names[winner - 1]}
    return gettext("you won") if winner == seat else gettext("you lost")


def _how(game: dict, loser: int | None, seat: int | None, names) -> str:
    """How a game ended, naming the player it ended against (``loser``, a seat)."""
    end = game.get("end")
    if end == GameEnd.SIMULTANEOUS:
        return gettext("both at once")
    if end == GameEnd.TIME:
        if loser is not None:
            return gettext("time ran out, more HP wins")
        return gettext("time ran out")
    if loser is None:
        return ""
    own = loser == seat
    name = {"name": names[loser - 1]}
    if end == GameEnd.HP_ZERO:
        return gettext("your HP reached 0") if own else gettext("%(name)s's HP reached 0") % name
    if end == GameEnd.DECK_EMPTY:
        return gettext("your deck ran out") if own else gettext("%(name)s's deck ran out") % name
    if end == GameEnd.CONCESSION:
        return gettext("you conceded") if own else gettext("%(name)s conceded") % name
    if end == GameEnd.PENALTY:
        if own:
            return gettext("you received a game loss (penalty)")
        return gettext("%(name)s received a game loss (penalty)") % name
    return ""


def game_line(number: int, game: dict, outcome: GameOutcome, seat: int | None, names) -> str:
    """One game from the reader's side: "Game 1: you won — Bob's HP reached 0"."""
    loser = {GameOutcome.PLAYER1: 2, GameOutcome.PLAYER2: 1}.get(outcome)
    result = _who_won(outcome, seat, names)
    how = _how(game, loser, seat, names)
    if not how:
        return gettext("Game %(number)s: %(result)s") % {"number": number, "result": result}
    return gettext("Game %(number)s: %(result)s — %(how)s") % {
        "number": number,
        "result": result,
        "how": how,
    }
