"""The decklists of an event file, checked here.

A file's ``report`` is what the exporting site said (or what the file's author typed):
an import never stores it. Every decklist is checked again, against this site's format
of the file's slug as of the event's date, with the checker a registration uses
(:func:`decks.services.check_text`: the format's rules and ban list, the game's card
pool, :func:`decks.engine.check.check_decklist`); the report stored with the
registration is that one, and an illegal list is stored flagged as such (``legal``
false in its report). The metagame counts only registrations whose stored report is
legal (``tournaments.views_metagame``).
"""

from __future__ import annotations

import datetime as dt

from decks.engine.check import check_decklist
from decks.models import Format
from decks.services import format_rules, load_pool

# The key under which import_event hands each registration row its checked report (the
# schema allows no such key in a file's decklist, so a file cannot bring its own).
CHECKED_REPORT = "checked_report"


class DecklistChecker:
    """check_text's work, with the format's rules and the card pool loaded once for all
    the decklists (check_text loads the rules for each one: three queries a list)."""

    def __init__(self, fmt: Format, as_of: dt.date) -> None:
        self.rules = format_rules(fmt)
        self.pool = load_pool(fmt.game).pool
        self.as_of = as_of
        self.reports: dict[str, dict] = {}

    def report(self, text: str) -> dict:
        # Players often submit the same list: each text is checked once.
        if text not in self.reports:
            self.reports[text] = check_decklist(text, self.rules, self.as_of, self.pool).as_dict()
        return self.reports[text]


def checked_reports(document: dict, fmt: Format) -> list[dict | None]:
    """For each of the file's ``registrations`` (in order), this site's legality report
    of its decklist (None: the registration has no decklist). ``document`` fits the
    schema; no writes."""
    checker = None
    reports: list[dict | None] = []
    for row in document["registrations"]:
        decklist = row["decklist"]
        if decklist is None:
            reports.append(None)
            continue
        if checker is None:
            checker = DecklistChecker(fmt, dt.date.fromisoformat(document["event"]["date"]))
        reports.append(checker.report(decklist["text"]))
    return reports


def with_checked_reports(document: dict, reports: list[dict | None]) -> dict:
    """``document`` (not changed) with each decklist carrying its checked report under
    :data:`CHECKED_REPORT`, for the writer to store."""
    registrations = []
    for row, report in zip(document["registrations"], reports, strict=True):
        if row["decklist"] is not None:
            row = {**row, "decklist": {**row["decklist"], CHECKED_REPORT: report}}
        registrations.append(row)
    return {**document, "registrations": registrations}


def illegal_count(reports: list[dict | None]) -> int:
    return sum(1 for report in reports if report is not None and not report["legal"])
