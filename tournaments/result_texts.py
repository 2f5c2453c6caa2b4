"""What the pages say when the engine refuses reported games or a match record: one
translatable text per engine code (``tournaments.engine.games``), with the game number
when the engine names one. The engine's own messages stay English, for logs and the API."""

from __future__ import annotations

import re

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

ENGINE_TEXTS = {
    "hp_not_a_number": _("Enter both players' HP as whole numbers."),
    "hp_negative": _("HP stops at 0: enter 0 for a player whose HP ran out."),
    "hp_above_maximum": _("An HP value is above the maximum."),
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
    "undecided_game": _("A game is undecided (equal HP when time ran out): a judge decides it."),
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
