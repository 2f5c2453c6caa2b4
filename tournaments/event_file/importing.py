"""Recreating an event from a ``crossover-event/1`` document (docs/event-file.md).

The whole file is checked first (the schema, its own consistency, and what it needs from
this site); any problem refuses it with every problem listed and nothing written. Then
one transaction writes everything with bulk inserts: a few queries per table, whatever
the size of the event.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field

from django.db import DataError, IntegrityError, connection, transaction
from django.utils.translation import gettext as _

from cardpool.names import bidi_problem
from decks.models import Format

from .. import policy
from ..models import (
    AuditEntry,
    DeckCheck,
    Event,
    EventStaff,
    Infraction,
    Match,
    MatchParticipant,
    Penalty,
    Registration,
    ResultReport,
    Round,
)
from ..services import audit
from . import identities
from .decklists import CHECKED_REPORT, checked_reports, with_checked_reports
from .limits import charge_import, field_problems, quota_problems, total_problems
from .reading import nul_problems
from .schema import EventFileRejected, Problem
from .validation import validate

BATCH = 500


@dataclass
class ImportOutcome:
    event: Event
    created: bool  # False: an event with the file's uid existed and was replaced
    counts: dict[str, int] = field(default_factory=dict)
    users_created: list[str] = field(default_factory=list)


def _time(value: str | None) -> dt.datetime | None:
    return None if value is None else dt.datetime.fromisoformat(value)


def _date(value: str | None) -> dt.date | None:
    return None if value is None else dt.date.fromisoformat(value)


def _site_problems(document: dict) -> tuple[list[Problem], Format | None, dict[str, Infraction]]:
    """What the file needs from this site: its format, and the infractions it names."""
    problems = []
    slug = document["format"]["slug"]
    fmt = Format.objects.select_related("game").filter(slug=slug).first()
    if fmt is None:
        problems.append(
            Problem(
                "format.slug", _("there is no format %(slug)s on this site") % {"slug": repr(slug)}
            )
        )
        return problems, None, {}
    codes = {p["infraction_code"] for p in document["penalties"] if p["infraction_code"]}
    infractions = {i.code: i for i in Infraction.objects.filter(game=fmt.game, code__in=codes)}
    for index, penalty in enumerate(document["penalties"]):
        code = penalty["infraction_code"]
        if code and code not in infractions:
            problems.append(
                Problem(
                    f"penalties[{index}].infraction_code",
                    _("there is no infraction %(code)s for %(game)s on this site")
                    % {"code": repr(code), "game": fmt.game.name},
                )
            )
    return problems, fmt, infractions


# The names a file gives that people are shown: the event's, and its users' (the username
# others see, the name pages show, and the first and last names it is made of).
USER_NAME_FIELDS = ("username", "display_name", "first_name", "last_name")


def name_problems(document) -> list[Problem]:
    """The shown names of ``document`` holding a bidirectional embedding, override or
    isolate (U+202A–U+202E, U+2066–U+2069), with their JSON paths: refused as the event
    form, the API and sign-up refuse them in an event name and a username
    (``forms_event.NoBidiControls``). Reads a malformed file without failing (the schema
    names what is wrong with it)."""
    names: list[tuple[str, object]] = []
    if isinstance(document, dict):
        event, users = document.get("event"), document.get("users")
        if isinstance(event, dict):
            names.append(("event.name", event.get("name")))
        for index, row in enumerate(users if isinstance(users, list) else ()):
            if isinstance(row, dict):
                names += [(f"users[{index}].{key}", row.get(key)) for key in USER_NAME_FIELDS]
    problems = []
    for path, value in names:
        if not isinstance(value, str):
            continue
        problem = bidi_problem(value)
        if problem:
            problems.append(Problem(path, problem))
    return problems


def import_event(document: dict, *, actor=None) -> ImportOutcome:
    """Create the event of ``document``, or replace the contents of the event with its
    uid. Raises :class:`EventFileRejected` (every problem, nothing written) for a file that
    fails the schema, its consistency checks or this site's checks.

    Refused first for NUL (U+0000) anywhere in the file, then (before the schema
    reads it all) when the ``actor`` used up their imports of the day or a per-file
    total is exceeded (:mod:`.limits`); then for a shown name holding a character that
    changes the text direction (:func:`name_problems`), the schema, the file's
    consistency and any value beyond the site's limits. Every decklist is checked
    against the format (:mod:`.decklists`) and stored with this site's report, never
    the file's; once written, an import that makes more placeholder accounts than the
    importer has left of their quota is refused and rolled back.

    Side effects: inactive placeholder accounts for usernames this site does not have;
    the event and everything in it; one ``event.imported`` audit entry by ``actor``.
    With an ``actor`` (pages, API), replacing an event needs the right to edit it
    (``policy.can_edit_event``) and a new one the right to create events; refused with
    ``NotAllowed`` (``not_manager``, ``login_required``), nothing written. Without one
    (the command), no permission is checked.
    """
    # NUL first: no database stores it alike, and the other checks would echo it.
    problems = nul_problems(document)
    if problems:
        raise EventFileRejected(problems)
    problems = quota_problems(
        actor, new_accounts=identities.new_names_count(document, actor)
    ) or total_problems(document)
    if problems:
        raise EventFileRejected(problems)
    problems = name_problems(document) + validate(document)
    problems += field_problems(document, besides=problems)
    if problems:
        raise EventFileRejected(problems)
    problems, fmt, infractions = _site_problems(document)
    problems += identities.username_problems(document)
    if problems:
        raise EventFileRejected(problems)
    document = with_checked_reports(document, checked_reports(document, fmt))
    try:
        with transaction.atomic():
            outcome = _write(document, fmt, infractions, actor)
            problems = charge_import(
                actor, event=outcome.event, accounts_created=len(outcome.users_created)
            )
            if problems:
                raise EventFileRejected(problems)  # leaving the block rolls it all back
            return outcome
    except (IntegrityError, DataError) as exc:
        # The checks above mirror the database's rules; should one slip through, the
        # file is still refused as a whole, not half written.
        raise EventFileRejected(
            [Problem("", _("the database refused the file: %(error)s") % {"error": exc})]
        ) from exc


def _write(document: dict, fmt: Format, infractions: dict, actor) -> ImportOutcome:
    data = document["event"]
    uid = uuid.UUID(data["uid"])
    event = Event.objects.select_for_update().filter(uid=uid).first()
    created = event is None
    if actor is not None:
        # Replacing an event takes the right to edit it; a new one, the right to create.
        if created:
            policy.require(policy.can_create_event(actor), "login_required")
        else:
            policy.require(policy.can_edit_event(policy.access_for(actor, event)), "not_manager")
    people = identities.resolve(document["users"], event=event, actor=actor)
    problems = identities.place_problems(document, people)
    if problems:
        raise EventFileRejected(problems)
    users, created_names = people.users, people.created
    if people.trusted:
        organizer = users[data["organizer"]]
    else:
        # The file speaks for its importer only: they organize what they import (a
        # replaced event keeps its organizer; replacing takes the right to edit it).
        organizer = actor if created else event.organizer
    settings = {
        "organizer": organizer,
        "format": fmt,
        "name": data["name"],
        "date": _date(data["date"]),
        "capacity": data["capacity"],
        "registration_deadline": _time(data["registration_deadline"]),
        "decklist_deadline": _time(data["decklist_deadline"]),
        "decklists_public_from": _time(data["decklists_public_from"]),
        "swiss_rounds": data["swiss_rounds"],
        "round_minutes": data["round_minutes"],
        "tiebreak_profile": data["tiebreakers"]["profile"],
        "top_cut_size": data["top_cut_size"],
        "swiss_timeout_policy": data["swiss_timeout_policy"],
        "top_cut_timeout_policy": data["top_cut_timeout_policy"],
        "allow_reentry": data["allow_reentry"],
        "late_entry_policy": data["late_entry_policy"],
        "state": data["state"],
        "pairing_seed": data["pairing_seed"],
    }
    if created:
        event = Event.objects.create(uid=uid, **settings)
    else:
        _clear(event)
        for name, value in settings.items():
            setattr(event, name, value)
        event.save(update_fields=list(settings))
    Event.objects.filter(pk=event.pk).update(created_at=_time(data["created_at"]))
    identities.record_identities(event, people)

    staff = _bulk(
        EventStaff,
        [
            EventStaff(event=event, user=users[row["user"]], role=row["role"])
            for row in data["staff"]
        ],
        [_time(row["added_at"]) for row in data["staff"]],
    )
    registrations = Registration.objects.bulk_create(
        [_registration(event, users, row) for row in document["registrations"]],
        batch_size=BATCH,
    )
    registration_of = {
        row["player"]: reg.pk
        for row, reg in zip(document["registrations"], registrations, strict=True)
    }
    rounds = _bulk(
        Round,
        [
            Round(
                event=event,
                number=row["number"],
                stage=row["stage"],
                status=row["status"],
                pairing_attempt=row["pairing"]["attempt"],
                pairing_info=row["pairing"]["info"],
                published_at=_time(row["published_at"]),
                started_at=_time(row["started_at"]),
                closed_at=_time(row["closed_at"]),
            )
            for row in document["rounds"]
        ],
        [_time(row["created_at"]) for row in document["rounds"]],
    )
    round_of = {r.number: r for r in rounds}

    match_rows, matches = [], []
    for round_row in document["rounds"]:
        for row in round_row["matches"]:
            match_rows.append(row)
            matches.append(_match(round_of[round_row["number"]], registration_of, row))
    matches = Match.objects.bulk_create(matches, batch_size=BATCH)
    match_of = {(m.round.number, m.table): m for m in matches}
    MatchParticipant.objects.bulk_create(_participants(matches), batch_size=BATCH)

    deck_checks = _bulk(
        DeckCheck,
        [
            DeckCheck(
                event=event,
                registration_id=registration_of[row["player"]],
                round=round_of.get(row["round"]),
                judge=users[row["judge"]],
                method=row["method"],
                registered_text=row["registered_text"],
                counted_text=row["counted_text"],
                counted=row["counted"],
                result=row["result"],
                ok=row["ok"],
                note=row["note"],
                imported=True,
            )
            for row in document["deck_checks"]
        ],
        [_time(row["checked_at"]) for row in document["deck_checks"]],
    )
    penalties = _bulk(
        Penalty,
        [
            _penalty(event, row, users, registration_of, round_of, match_of, deck_checks)
            for row in document["penalties"]
        ],
        [_time(row["issued_at"]) for row in document["penalties"]],
        infractions=infractions,
        codes=[row["infraction_code"] for row in document["penalties"]],
    )
    penalty_ids = [p.pk for p in penalties]

    # A game added by a game-loss penalty names it by index in the file; by id here.
    relinked = []
    for match, row in zip(matches, match_rows, strict=True):
        if any("penalty" in game for game in row["games"]):
            match.games = _games(row["games"], penalty_ids)
            relinked.append(match)
    Match.objects.bulk_update(relinked, ["games"], batch_size=BATCH)

    reports, report_times = [], []
    for match, row in zip(matches, match_rows, strict=True):
        for sub in row["submissions"]:
            reports.append(
                ResultReport(
                    match=match,
                    reporter=users[sub["by"]],
                    kind=sub["kind"],
                    games=_games(sub["games"], penalty_ids),
                    record=sub["record"],
                    reason=sub["reason"],
                    match_version=sub["version"],
                    imported=True,
                )
            )
            report_times.append(_time(sub["at"]))
    reports = _bulk(ResultReport, reports, report_times)

    refs = {
        "registration": lambda o: registration_of[o["player"]],
        "round": lambda o: round_of[o["round"]].pk,
        "match": lambda o: match_of[(o["round"], o["table"])].pk,
        "penalty": lambda o: penalty_ids[o["penalty"]],
        "eventstaff": lambda o: next(s.pk for s in staff if s.user_id == users[o["user"]].pk),
    }
    entries = []
    for row in document["audit"]:
        obj = row["object"]
        if obj["type"] == "event":
            object_id = event.pk
        elif obj["type"] in refs and "id" not in obj:
            object_id = refs[obj["type"]](obj)
        else:
            object_id = obj.get("id")
        entries.append(
            AuditEntry(
                event=event,
                actor=users[row["actor"]] if row["actor"] is not None else None,
                action=row["action"],
                object_type=obj["type"],
                object_id=object_id,
                object_version=row["version"],
                reason=row["reason"],
                before=row["before"],
                after=row["after"],
                imported=True,
            )
        )
    entries = _bulk(AuditEntry, entries, [_time(row["at"]) for row in document["audit"]])

    counts = {
        "users_created": len(created_names),
        "users_matched": len(users) - len(created_names),
        "registrations": len(registrations),
        "rounds": len(rounds),
        "matches": len(matches),
        "submissions": len(reports),
        "penalties": len(penalties),
        "deck_checks": len(deck_checks),
        "audit_entries": len(entries),
    }
    # Also bumps the event's revision: cached pages of a replaced event are stale.
    audit.record(
        event,
        actor=actor,
        action="event.imported",
        after={"exported_at": document["exported_at"], "created": created, **counts},
    )
    event.refresh_from_db()
    return ImportOutcome(event=event, created=created, counts=counts, users_created=created_names)


def _clear(event: Event) -> None:
    """Delete what a re-import recreates (in an order the protecting keys allow)."""
    Penalty.objects.filter(event=event).delete()
    DeckCheck.objects.filter(event=event).delete()
    Round.objects.filter(event=event).delete()  # matches, seats and submissions with them
    Registration.objects.filter(event=event).delete()
    EventStaff.objects.filter(event=event).delete()
    AuditEntry.objects.filter(event=event).delete()


def _bulk(model, objects: list, times: list, *, infractions=None, codes=None) -> list:
    """Insert ``objects``, then give them the file's creation times (``auto_now_add``
    overwrites them on insert; ``bulk_update`` writes the values as they are)."""
    if infractions is not None:
        for obj, code in zip(objects, codes, strict=True):
            obj.infraction_ref = infractions[code] if code else None
    objects = model.objects.bulk_create(objects, batch_size=BATCH)
    _restore_times(model, objects, times)
    for obj, value in zip(objects, times, strict=True):
        obj.created_at = value
    return objects


TIME_BATCH = 300  # two parameters per row and one more: under SQLite's 999


def _restore_times(model, objects: list, times: list) -> None:
    """``created_at`` as the file says, one ``UPDATE … CASE`` per batch of rows: the same
    statement ``bulk_update`` writes, without its per-row expression objects (a third of
    a large import's time)."""
    ops = connection.ops
    quote = ops.quote_name
    table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
    column = quote(model._meta.get_field("created_at").column)
    cast = "CAST(%s AS timestamp with time zone)" if connection.vendor == "postgresql" else "%s"
    rows = [
        (obj.pk, ops.adapt_datetimefield_value(value))
        for obj, value in zip(objects, times, strict=True)
    ]
    with connection.cursor() as cursor:
        for start in range(0, len(rows), TIME_BATCH):
            chunk = rows[start : start + TIME_BATCH]
            cases = " ".join(f"WHEN %s THEN {cast}" for _ in chunk)
            marks = ", ".join("%s" for _ in chunk)
            cursor.execute(
                f"UPDATE {table} SET {column} = CASE {pk} {cases} END WHERE {pk} IN ({marks})",
                [value for row in chunk for value in row] + [row[0] for row in chunk],
            )


def _registration(event: Event, users: dict, row: dict) -> Registration:
    decklist = row["decklist"] or {}
    return Registration(
        event=event,
        player=users[row["player"]],
        status=row["status"],
        registered_at=_time(row["registered_at"]),
        deck_text=decklist.get("text", ""),
        # This site's report (import_event checked the list), never the file's.
        deck_report=decklist.get(CHECKED_REPORT),
        deck_submitted_at=_time(decklist.get("submitted_at")),
        locked=row["locked"],
        dropped_after_round=row["dropped_after_round"],
        late_entry_round=row["late_entry_round"],
    )


def _match(round_: Round, registration_of: dict, row: dict) -> Match:
    wins = losses = draws = None
    if row["record"] is not None:
        wins, losses, draws = (int(part) for part in row["record"].split("-"))
    return Match(
        round=round_,
        table=row["table"],
        player1_id=registration_of[row["player1"]],
        player2_id=registration_of.get(row["player2"]),
        # Penalty links are set once the penalties exist (see _write).
        games=[{k: v for k, v in g.items() if k != "penalty"} for g in row["games"]],
        wins=wins,
        losses=losses,
        draws=draws,
        outcome=row["outcome"] or "",
        status=row["status"],
        reported_by_id=registration_of.get(row["reported_by"]),
        version=row["version"],
        bracket_position=row["bracket_position"],
        seed1=row["seed1"],
        seed2=row["seed2"],
        extra_minutes=row["extra_minutes"],
    )


def _participants(matches: list[Match]) -> list[MatchParticipant]:
    seats = []
    for match in matches:
        seats.append(
            MatchParticipant(
                match=match, round=match.round, registration_id=match.player1_id, seat=1
            )
        )
        if match.player2_id is not None:
            seats.append(
                MatchParticipant(
                    match=match, round=match.round, registration_id=match.player2_id, seat=2
                )
            )
    return seats


def _games(games: list[dict], penalty_ids: list[int]) -> list[dict]:
    out = []
    for game in games:
        if "penalty" in game:
            game = {**game, "penalty": penalty_ids[game["penalty"]]}
        out.append(game)
    return out


def _penalty(event, row, users, registration_of, round_of, match_of, deck_checks) -> Penalty:
    match = row["match"]
    return Penalty(
        event=event,
        registration_id=registration_of[row["player"]],
        kind=row["kind"],
        infraction=row["infraction"],
        suggested_kind=row["suggested_kind"] or "",
        judge=users[row["judge"]],
        note=row["note"],
        round=round_of.get(row["round"]),
        match=match_of[(match["round"], match["table"])] if match else None,
        deck_check=deck_checks[row["deck_check"]] if row["deck_check"] is not None else None,
        imported=True,
    )
