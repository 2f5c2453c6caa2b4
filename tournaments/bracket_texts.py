"""What the pages call the top cut's rounds and results (the engine's keys, translated).

The bracket rounds have a context of their own: "Final" is also a result's status
(``MatchStatus.FINAL``, 確定 in Japanese), and the round is 決勝.
"""

from __future__ import annotations

from django.utils.translation import pgettext, pgettext_lazy

ROUND_NAMES = {
    "final": pgettext_lazy("bracket round", "Final"),
    "semifinal": pgettext_lazy("bracket round", "Semifinal"),
    "quarterfinal": pgettext_lazy("bracket round", "Quarterfinal"),
}

RESULT_LABELS = {
    "champion": pgettext_lazy("top cut result", "Champion"),
    "finalist": pgettext_lazy("top cut result", "Finalist"),
    "semifinal": pgettext_lazy("top cut result", "Semifinalist"),
    "quarterfinal": pgettext_lazy("top cut result", "Quarterfinalist"),
}

# Badge colour of each result (the text says it too).
RESULT_BADGES = {"champion": "badge--ok", "finalist": "badge--info", "semifinal": "badge--info"}


def _players(key: str) -> int | None:
    """16 for "round_of_16"; None for any other key."""
    prefix, _, number = key.rpartition("_")
    return int(number) if prefix == "round_of" and number.isdecimal() else None


def round_label(key: str) -> str:
    """ "Quarterfinal", "Round of 16", … for an engine round name."""
    if key in ROUND_NAMES:
        return str(ROUND_NAMES[key])
    players = _players(key)
    if players is None:
        return key
    return pgettext("bracket round", "Round of %(players)s") % {"players": players}


def result_label(key: str | None) -> str:
    """ "Champion", "Finalist", "Semifinalist", "Top 16", … for a ``top_cut_result``."""
    if key is None:
        return ""
    if key in RESULT_LABELS:
        return str(RESULT_LABELS[key])
    players = _players(key)
    if players is None:
        return key
    return pgettext("top cut result", "Top %(players)s") % {"players": players}


def result_badge(key: str | None) -> str:
    return RESULT_BADGES.get(key or "", "badge--muted")
