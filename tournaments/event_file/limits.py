"""What one event file may hold and cost, and how many files one user may import.

An import writes what the forms and the API would have written, so it is held to their
limits (issue #21): a decklist, a reason, a note, a name as long as the pages and the API
accept; an event's capacity, Swiss rounds, round length and top cut within the bounds
the events service keeps. Each limit is imported from where the site defines it, never
copied. On top of them come what only a file has: its size, per-file totals of what it
writes (users, registrations, rounds, matches, result submissions, audit entries), the
size of the free-form JSON it stores as it is (audit ``before``/``after``, a round's
pairing information, a deck check's counts and result), and a per-user quota of imports
and of the placeholder accounts they make (settings ``EVENT_FILE_IMPORTS_PER_DAY`` and
``EVENT_FILE_ACCOUNTS_PER_DAY``, counted from the database; site administrators and the
``import_event`` command are exempt).

The file's size (:func:`file_size_problem`, before it is read) and its totals
(:func:`total_problems`, before the schema, reading a malformed file without failing)
refuse it before anything costly; each value's limit (:func:`field_problems`) is named
with the schema's and the consistency problems. A problem names the JSON path and the
limit (``registrations[3].decklist.text``: "6400000 characters, more than the 20000
allowed").
"""

from __future__ import annotations

import datetime as dt
import json
import math

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from decks.forms import MAX_DECKLIST_CHARS

from ..api.limits import DECKLIST_CHARS as API_DECKLIST_CHARS
from ..api.limits import MAX_ID, NOTE_CHARS, REASON_CHARS
from ..models import TOP_CUT_SIZES, EventFileImport
from ..services.clock import MAX_TOTAL_EXTRA_MINUTES
from ..services.deck_checks import MAX_TEXT as DECK_CHECK_TEXT_CHARS
from ..services.events import (
    EARLIEST_TIME,
    LATEST_TIME,
    MAX_CAPACITY,
    MAX_ROUND_MINUTES,
    MAX_SWISS_ROUNDS,
)
from ..services.rounds import MAX_TABLE
from .schema import Problem

# --- the limits ---------------------------------------------------------------------------

# The file: what the API reads as a JSON body (DATA_UPLOAD_MAX_MEMORY_SIZE, 20 MiB), so an
# upload and a JSON body are held to the same size. A 512-player, 9-round event with its
# audit log is 6.1 MB (12 MB as the download writes it, indented); what an import costs is
# bounded by the totals below, not by the bytes.
FILE_BYTES = settings.DATA_UPLOAD_MAX_MEMORY_SIZE

# A decklist as the registration (decks.forms, the registrations service) and the API's
# decklist fields (``_deck_text``) take it.
DECKLIST_CHARS = min(MAX_DECKLIST_CHARS, API_DECKLIST_CHARS)
# A result's reason (the API's ``_reason``); a penalty's or a deck check's note (also the
# reason of their audit entries, which is therefore up to a note long).
SUBMISSION_REASON_CHARS = REASON_CHARS
AUDIT_REASON_CHARS = max(REASON_CHARS, NOTE_CHARS)
# The name a page shows: the full name (first and last names of the user model) or the
# username.
_user_fields = get_user_model()._meta
DISPLAY_NAME_CHARS = max(
    _user_fields.get_field(get_user_model().USERNAME_FIELD).max_length,
    _user_fields.get_field("first_name").max_length
    + 1
    + _user_fields.get_field("last_name").max_length,
)
# Free-form JSON the import stores as it is: at most the largest the site writes itself,
# a round's table list (``round.generated``, ``round.pairing_edited``) at the largest
# capacity with the largest ids, plus room for the rest of the entry.
JSON_DATA_CHARS = (MAX_CAPACITY // 2) * len(
    json.dumps({str(MAX_TABLE): [MAX_ID, MAX_ID]})
) + 64 * 1024

# Per-file totals: what the import writes, and so what it costs (about 0.6 ms of CPU a
# row to check and write: a 1,600-player, 9-round file of 39,600 rows took 23 s of CPU).
# They are sized for the largest event a file carries, PLAYERS players (two 512-player
# events; a FILE_BYTES download holds about 850 players over 9 rounds), and ROWS bounds
# their sum: a 1,024-player, 10-round file (27,700 rows) took 17.6 s of CPU to import
# (bench/event_file_limits.py).
PLAYERS = 1_024
REGISTRATIONS = PLAYERS
# The players, and the organizer, staff, judges and others named by the audit log.
USERS = PLAYERS + 100
# The most Swiss rounds the events service allows, and the rounds of the largest top cut.
ROUNDS = MAX_SWISS_ROUNDS + int(math.log2(max(TOP_CUT_SIZES)))
# Each player plays once a round (a bye is a match): a round has at most one match per
# two registrations; in all, twelve rounds of the largest event (its 10 Swiss rounds, a
# top cut, and room).
MATCHES = PLAYERS // 2 * 12
# A result is reported and confirmed (disputed, overridden, penalised: a few more).
SUBMISSIONS_PER_MATCH = 20
SUBMISSIONS = MATCHES * 3
# One entry per change: a report and a confirmation per match, and the registrations',
# rounds' and staff's own.
AUDIT_ENTRIES = MATCHES * 4
ROWS = 30_000
# Decklist lines in all. Each line is an entry of the exported file (about 120 bytes as
# the download writes it) and a line the metagame reads: within the other limits, a file
# of 20,000-character lists of "1 スワティ" lines exported to 3.4 times its size, and its
# metagame page took 4.6 s of CPU, at 170,000 lines. ~50 a player bounds both
# (bench/event_file_limits.py); real lists have 3 to 40.
DECKLIST_LINES = 50_000

QUOTA_WINDOW = dt.timedelta(hours=24)


# --- checking a file ----------------------------------------------------------------------


def _list(value, key: str) -> list:
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, list) else []


def _dict(value, key: str) -> dict:
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _line_count(text) -> int:
    """The lines of a decklist as the parser splits them (\\r\\n, \\r, \\n)."""
    if not isinstance(text, str) or not text:
        return 0
    return text.count("\n") + text.count("\r") - text.count("\r\n") + 1


def file_size_problem(size: int) -> Problem | None:
    """The file's size against :data:`FILE_BYTES` (None: within it)."""
    if size <= FILE_BYTES:
        return None
    return Problem(
        "",
        _("the file has %(size)s bytes, more than the %(limit)s allowed (%(mb)s MB)")
        % {"size": size, "limit": FILE_BYTES, "mb": FILE_BYTES // (1024 * 1024)},
    )


def _too_many(path: str, count: int, limit: int) -> Problem:
    return Problem(
        path,
        _("%(count)s entries, more than the %(limit)s a file may have")
        % {"count": count, "limit": limit},
    )


def total_problems(document) -> list[Problem]:
    """The per-file totals, with the path of each list beyond its limit: cheap (lengths
    of lists), checked before the schema. Reads a malformed file without failing."""
    problems = []
    registrations = _list(document, "registrations")
    rounds = _list(document, "rounds")
    matches = [(index, _list(round_, "matches")) for index, round_ in enumerate(rounds)]
    submissions = [
        (index, m_index, len(_list(match, "submissions")))
        for index, round_matches in matches
        for m_index, match in enumerate(round_matches)
    ]
    counted = {
        "users": len(_list(document, "users")),
        "registrations": len(registrations),
        "rounds": len(rounds),
        "matches": sum(len(found) for _index, found in matches),
        "submissions": sum(count for *_where, count in submissions),
        "audit": len(_list(document, "audit")),
    }
    for key, limit in (
        ("users", USERS),
        ("registrations", REGISTRATIONS),
        ("rounds", ROUNDS),
        ("audit", AUDIT_ENTRIES),
    ):
        if counted[key] > limit:
            problems.append(_too_many(key, counted[key], limit))
    # Matches and submissions are in the rounds: their totals are named there.
    in_rounds = (
        (
            "matches",
            MATCHES,
            _("%(count)s matches in all, more than the %(limit)s a file may have"),
        ),
        (
            "submissions",
            SUBMISSIONS,
            _("%(count)s result submissions in all, more than the %(limit)s a file may have"),
        ),
    )
    for key, limit, message in in_rounds:
        if counted[key] > limit:
            problems.append(Problem("rounds", message % {"count": counted[key], "limit": limit}))
    # Each player plays once a round (a bye is a match too).
    per_round = math.ceil(len(registrations) / 2)
    for index, round_matches in matches:
        if len(round_matches) > per_round:
            problems.append(
                Problem(
                    f"rounds[{index}].matches",
                    _(
                        "%(count)s matches, more than the %(limit)s that %(players)s "
                        "registrations can play in a round"
                    )
                    % {
                        "count": len(round_matches),
                        "limit": per_round,
                        "players": len(registrations),
                    },
                )
            )
    for index, m_index, count in submissions:
        if count > SUBMISSIONS_PER_MATCH:
            problems.append(
                _too_many(
                    f"rounds[{index}].matches[{m_index}].submissions",
                    count,
                    SUBMISSIONS_PER_MATCH,
                )
            )
    rows = (
        sum(counted.values())
        + len(_list(document, "penalties"))
        + len(_list(document, "deck_checks"))
        + len(_list(_dict(document, "event"), "staff"))
    )
    if rows > ROWS:
        problems.append(
            Problem(
                "",
                _("%(count)s rows in all, more than the %(limit)s a file may have")
                % {"count": rows, "limit": ROWS},
            )
        )
    lines = sum(
        _line_count(_dict(row, "decklist").get("text"))
        for row in registrations
        if isinstance(row, dict)
    )
    if lines > DECKLIST_LINES:
        problems.append(
            Problem(
                "registrations",
                _("%(count)s decklist lines in all, more than the %(limit)s a file may have")
                % {"count": lines, "limit": DECKLIST_LINES},
            )
        )
    return problems


class _Fields:
    """The limits of single values, with their JSON paths."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def text(self, path: str, value, limit: int) -> None:
        if isinstance(value, str) and len(value) > limit:
            self.problems.append(
                Problem(
                    path,
                    _("%(length)s characters, more than the %(limit)s allowed")
                    % {"length": len(value), "limit": limit},
                )
            )

    def number(self, path: str, value, minimum: int, maximum: int) -> None:
        if _is_int(value) and not minimum <= value <= maximum:
            self.problems.append(
                Problem(
                    path,
                    _("%(value)s is not from %(minimum)s to %(maximum)s")
                    % {"value": value, "minimum": minimum, "maximum": maximum},
                )
            )

    def data(self, path: str, container, key: str) -> None:
        if not isinstance(container, dict) or key not in container:
            return
        size = len(json.dumps(container[key], ensure_ascii=False, separators=(",", ":")))
        if size > JSON_DATA_CHARS:
            self.problems.append(
                Problem(
                    path,
                    _("%(size)s characters of JSON, more than the %(limit)s allowed")
                    % {"size": size, "limit": JSON_DATA_CHARS},
                )
            )

    def time(self, path: str, value) -> None:
        if not isinstance(value, str):
            return
        try:
            moment = dt.datetime.fromisoformat(value)
        except ValueError:
            return  # the schema names it
        if moment.tzinfo is not None and not EARLIEST_TIME <= moment < LATEST_TIME:
            self.problems.append(
                Problem(path, _("%(value)s is not from 2000 to 8999") % {"value": value})
            )


def _event_problems(document, fields: _Fields) -> None:
    event = _dict(document, "event")
    capacity = event.get("capacity")
    fields.number("event.capacity", capacity, 2, MAX_CAPACITY)
    if event.get("swiss_rounds") is not None:
        fields.number("event.swiss_rounds", event.get("swiss_rounds"), 1, MAX_SWISS_ROUNDS)
    fields.number("event.round_minutes", event.get("round_minutes"), 1, MAX_ROUND_MINUTES)
    for key in ("registration_deadline", "decklist_deadline", "decklists_public_from"):
        fields.time(f"event.{key}", event.get(key))
    if not _is_int(capacity):
        return
    top_cut = event.get("top_cut_size")
    if _is_int(top_cut) and top_cut > capacity:
        fields.problems.append(
            Problem(
                "event.top_cut_size",
                _("the top cut (%(size)s) is larger than the capacity (%(capacity)s)")
                % {"size": top_cut, "capacity": capacity},
            )
        )
    registered = sum(
        1
        for row in _list(document, "registrations")
        if isinstance(row, dict) and row.get("status") == "registered"
    )
    if registered > capacity:
        fields.problems.append(
            Problem(
                "event.capacity",
                _("%(count)s players are registered, more than the capacity (%(capacity)s)")
                % {"count": registered, "capacity": capacity},
            )
        )
    swiss_rounds = event.get("swiss_rounds")
    swiss = sum(
        1
        for row in _list(document, "rounds")
        if isinstance(row, dict) and row.get("stage") == "swiss"
    )
    if _is_int(swiss_rounds) and swiss > swiss_rounds:
        fields.problems.append(
            Problem(
                "rounds",
                _("%(count)s Swiss rounds, more than the event's %(limit)s")
                % {"count": swiss, "limit": swiss_rounds},
            )
        )


def field_problems(document, *, besides: list[Problem] = ()) -> list[Problem]:
    """Every value beyond the limit the forms and the API give it, but at the paths of
    ``besides`` (the schema's problems: a round length of 0 is named once)."""
    fields = _Fields()
    _event_problems(document, fields)
    for index, row in enumerate(_list(document, "users")):
        if isinstance(row, dict):
            fields.text(f"users[{index}].display_name", row.get("display_name"), DISPLAY_NAME_CHARS)
    for index, row in enumerate(_list(document, "registrations")):
        decklist = _dict(row, "decklist")
        fields.text(f"registrations[{index}].decklist.text", decklist.get("text"), DECKLIST_CHARS)
    for index, round_ in enumerate(_list(document, "rounds")):
        path = f"rounds[{index}]"
        fields.data(f"{path}.pairing.info", _dict(round_, "pairing"), "info")
        for m_index, match in enumerate(_list(round_, "matches")):
            m_path = f"{path}.matches[{m_index}]"
            if isinstance(match, dict):
                fields.number(
                    f"{m_path}.extra_minutes",
                    match.get("extra_minutes"),
                    0,
                    MAX_TOTAL_EXTRA_MINUTES,
                )
            for s_index, submission in enumerate(_list(match, "submissions")):
                if isinstance(submission, dict):
                    fields.text(
                        f"{m_path}.submissions[{s_index}].reason",
                        submission.get("reason"),
                        SUBMISSION_REASON_CHARS,
                    )
    for index, penalty in enumerate(_list(document, "penalties")):
        if isinstance(penalty, dict):
            fields.text(f"penalties[{index}].note", penalty.get("note"), NOTE_CHARS)
    for index, check in enumerate(_list(document, "deck_checks")):
        if not isinstance(check, dict):
            continue
        path = f"deck_checks[{index}]"
        for key in ("registered_text", "counted_text"):
            fields.text(f"{path}.{key}", check.get(key), DECK_CHECK_TEXT_CHARS)
        fields.text(f"{path}.note", check.get("note"), NOTE_CHARS)
        for key in ("counted", "result"):
            fields.data(f"{path}.{key}", check, key)
    for index, entry in enumerate(_list(document, "audit")):
        if not isinstance(entry, dict):
            continue
        path = f"audit[{index}]"
        fields.text(f"{path}.reason", entry.get("reason"), AUDIT_REASON_CHARS)
        for key in ("before", "after"):
            fields.data(f"{path}.{key}", entry, key)
    named = {problem.path for problem in besides}
    return [problem for problem in fields.problems if problem.path not in named]


# --- the per-user quota -------------------------------------------------------------------


def quota_exempt(actor) -> bool:
    """The command (no actor) and a site administrator import without a quota."""
    return actor is None or bool(getattr(actor, "is_superuser", False))


def _used(actor) -> tuple[int, int]:
    """Imports by ``actor`` in the last :data:`QUOTA_WINDOW`, and the accounts they made."""
    since = timezone.now() - QUOTA_WINDOW
    found = EventFileImport.objects.filter(importer=actor, created_at__gte=since).aggregate(
        imports=Count("pk"), accounts=Sum("accounts_created")
    )
    return found["imports"], found["accounts"] or 0


def _imports_problem(imports: int) -> Problem:
    return Problem(
        "",
        _(
            "you imported %(count)s event files in the last 24 hours, the most allowed "
            "(%(limit)s); try again later"
        )
        % {"count": imports, "limit": settings.EVENT_FILE_IMPORTS_PER_DAY},
    )


def _accounts_problem(accounts: int, count: int) -> Problem:
    limit = settings.EVENT_FILE_ACCOUNTS_PER_DAY
    return Problem(
        "users",
        _(
            "the file would make %(count)s new placeholder accounts; %(left)s of "
            "the %(limit)s you may make in 24 hours are left"
        )
        % {"count": count, "left": max(limit - accounts, 0), "limit": limit},
    )


def quota_problems(actor, *, new_accounts: int = 0) -> list[Problem]:
    """Before the file is validated: refused when ``actor`` used up the day's imports, or
    when the placeholders the file would make (``new_accounts``, counted cheaply from its
    names: ``identities.new_names_count``) exceed what is left of the day's accounts, so
    a user over the quota cannot make the site validate file after file."""
    if quota_exempt(actor):
        return []
    imports, accounts = _used(actor)
    if imports >= settings.EVENT_FILE_IMPORTS_PER_DAY:
        return [_imports_problem(imports)]
    if new_accounts and accounts + new_accounts > settings.EVENT_FILE_ACCOUNTS_PER_DAY:
        return [_accounts_problem(accounts, new_accounts)]
    return []


def charge_import(actor, *, event, accounts_created: int) -> list[Problem]:
    """Inside the import's transaction, once it is written: count ``actor``'s quota again
    under a lock on their account row (two imports at once are counted one after the
    other), and record the import (:class:`~tournaments.models.EventFileImport`) unless
    it goes beyond the quota. Returns the problems (the caller refuses the file and the
    transaction is rolled back: nothing is written). The command imports without an
    actor: nothing is recorded."""
    if actor is None:
        return []
    user_model = get_user_model()
    list(user_model.objects.select_for_update().filter(pk=actor.pk).values_list("pk"))
    if not quota_exempt(actor):
        imports, accounts = _used(actor)
        if imports >= settings.EVENT_FILE_IMPORTS_PER_DAY:
            return [_imports_problem(imports)]
        if accounts + accounts_created > settings.EVENT_FILE_ACCOUNTS_PER_DAY:
            return [_accounts_problem(accounts, accounts_created)]
    EventFileImport.objects.create(importer=actor, event=event, accounts_created=accounts_created)
    return []
