"""Writing an event as a ``crossover-event/1`` document (docs/event-file.md).

Read only. A fixed number of queries whatever the size of the event (one per table read,
every relation joined or prefetched): the query-count test holds it to that.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Q
from django.utils import timezone

from decks.engine.parser import parse_decklist
from decks.models import BanEntry, LegalSet

from ..engine.standings import TIEBREAK_NAMES
from ..engine.standings import TiebreakProfile as EngineProfile
from ..models import (
    AuditEntry,
    DeckCheck,
    Event,
    EventStaff,
    Match,
    Penalty,
    Registration,
    ResultReport,
    Round,
    RoundStage,
)
from .schema import SCHEMA_NAME

GENERATOR = "crossover-tournaments"


def timestamp(value: dt.datetime | None) -> str | None:
    """UTC, microseconds, ``Z``: one spelling per instant, so documents compare equal."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def datestamp(value: dt.date | None) -> str | None:
    return None if value is None else value.isoformat()


def record_text(wins: int | None, losses: int | None, draws: int | None) -> str | None:
    return None if wins is None else f"{wins}-{losses}-{draws}"


def tie_order_seed(pairing_seed: str) -> str:
    # The same string services.standings._tie_order seeds its shuffle with.
    return f"standings:{pairing_seed}"


def round_seed(pairing_seed: str, attempt: int) -> str:
    # The seed services.rounds._pair gives the engine for this attempt.
    return pairing_seed if attempt == 0 else f"{pairing_seed}/{attempt}"


class _Users:
    """Every account the document names, collected while the sections are written."""

    def __init__(self) -> None:
        self.by_id: dict[int, object] = {}

    def name(self, user) -> str | None:
        if user is None:
            return None
        self.by_id[user.pk] = user
        return user.get_username()

    def rows(self, include_private: bool) -> list[dict]:
        rows = []
        for user in sorted(self.by_id.values(), key=lambda u: u.get_username()):
            row = {
                "username": user.get_username(),
                "display_name": user.get_full_name() or user.get_username(),
                "first_name": user.first_name,
                "last_name": user.last_name,
            }
            if include_private:
                row["email"] = user.email
            rows.append(row)
        return rows


def export_event(event: Event, *, include_private: bool = False) -> dict:
    """The event as a ``crossover-event/1`` document (plain JSON data).

    ``include_private`` adds the users' e-mail addresses (the organizer asked for them).
    No side effects.
    """
    event = Event.objects.select_related("organizer", "format__game").get(pk=event.pk)
    users = _Users()
    registrations = list(
        Registration.objects.filter(event=event).select_related("player").order_by("id")
    )
    player_of = {r.pk: users.name(r.player) for r in registrations}
    rounds = list(Round.objects.filter(event=event).order_by("number"))
    number_of = {r.pk: r.number for r in rounds}
    matches = list(
        Match.objects.filter(round__event=event).order_by("round__number", "table", "id")
    )
    match_ref = {m.pk: {"round": number_of[m.round_id], "table": m.table} for m in matches}
    submissions: dict[int, list[ResultReport]] = {}
    for report in (
        ResultReport.objects.filter(match__round__event=event)
        .select_related("reporter")
        .order_by("match_id", "match_version", "id")
    ):
        submissions.setdefault(report.match_id, []).append(report)
    penalties = list(
        Penalty.objects.filter(event=event)
        .select_related("judge", "infraction_ref")
        .order_by("created_at", "id")
    )
    penalty_index = {p.pk: index for index, p in enumerate(penalties)}
    deck_checks = list(
        DeckCheck.objects.filter(event=event).select_related("judge").order_by("created_at", "id")
    )
    deck_check_index = {c.pk: index for index, c in enumerate(deck_checks)}
    staff = list(
        EventStaff.objects.filter(event=event).select_related("user").order_by("user__username")
    )
    audit = list(
        AuditEntry.objects.filter(event=event).select_related("actor").order_by("created_at", "id")
    )

    def games(rows: list) -> list:
        out = []
        for game in rows or []:
            game = dict(game)
            if "penalty" in game:
                game["penalty"] = penalty_index.get(game["penalty"])
                if game["penalty"] is None:  # its penalty is gone: keep the game, not the link
                    del game["penalty"]
            out.append(game)
        return out

    by_round: dict[int, list[dict]] = {}
    for match in matches:
        by_round.setdefault(match.round_id, []).append(
            {
                "table": match.table,
                "player1": player_of[match.player1_id],
                "player2": player_of.get(match.player2_id),
                "status": match.status,
                "games": games(match.games),
                "record": record_text(match.wins, match.losses, match.draws),
                "outcome": match.outcome or None,
                "reported_by": player_of.get(match.reported_by_id),
                "version": match.version,
                "extra_minutes": match.extra_minutes,
                "bracket_position": match.bracket_position,
                "seed1": match.seed1,
                "seed2": match.seed2,
                "submissions": [
                    {
                        "version": report.match_version,
                        "kind": report.kind,
                        "by": users.name(report.reporter),
                        "games": games(report.games),
                        "record": report.record,
                        "reason": report.reason,
                        "at": timestamp(report.created_at),
                    }
                    for report in submissions.get(match.pk, [])
                ],
            }
        )

    document = {
        "schema": SCHEMA_NAME,
        "generator": GENERATOR,
        "exported_at": timestamp(timezone.now()),
        "private": include_private,
        "event": _event_section(event, staff, users),
        "format": _format_section(event),
        "users": [],  # filled last: every section adds the people it names
        "registrations": [_registration(r, player_of[r.pk]) for r in registrations],
        "rounds": [
            {
                "number": round_.number,
                "stage": round_.stage,
                "status": round_.status,
                "created_at": timestamp(round_.created_at),
                "published_at": timestamp(round_.published_at),
                "started_at": timestamp(round_.started_at),
                "closed_at": timestamp(round_.closed_at),
                "pairing": {
                    "attempt": round_.pairing_attempt,
                    "seed": (
                        round_seed(event.pairing_seed, round_.pairing_attempt)
                        if round_.stage == RoundStage.SWISS
                        else None
                    ),
                    "info": round_.pairing_info or {},
                },
                "matches": by_round.get(round_.pk, []),
            }
            for round_ in rounds
        ],
        "penalties": [
            {
                "player": player_of[p.registration_id],
                "kind": p.kind,
                "infraction_code": p.infraction_ref.code if p.infraction_ref_id else None,
                "infraction": p.infraction,
                "suggested_kind": p.suggested_kind or None,
                "judge": users.name(p.judge),
                "note": p.note,
                "round": number_of.get(p.round_id),
                "match": match_ref.get(p.match_id),
                "deck_check": deck_check_index.get(p.deck_check_id),
                "issued_at": timestamp(p.created_at),
            }
            for p in penalties
        ],
        "deck_checks": [
            {
                "player": player_of[c.registration_id],
                "round": number_of.get(c.round_id),
                "judge": users.name(c.judge),
                "method": c.method,
                "registered_text": c.registered_text,
                "counted_text": c.counted_text,
                "counted": c.counted or {},
                "result": c.result or {},
                "ok": c.ok,
                "note": c.note,
                "checked_at": timestamp(c.created_at),
            }
            for c in deck_checks
        ],
        "top_cut": _top_cut(rounds, matches, player_of),
        "audit": [],
    }
    refs = {
        "registration": {pk: {"player": name} for pk, name in player_of.items()},
        "round": {r.pk: {"round": r.number} for r in rounds},
        "match": match_ref,
        "penalty": {pk: {"penalty": index} for pk, index in penalty_index.items()},
        "eventstaff": {s.pk: {"user": s.user.get_username()} for s in staff},
    }
    document["audit"] = [
        {
            "action": entry.action,
            "actor": users.name(entry.actor),
            "at": timestamp(entry.created_at),
            "object": _audit_object(entry, refs),
            "version": entry.object_version,
            "reason": entry.reason,
            "before": entry.before,
            "after": entry.after,
        }
        for entry in audit
    ]
    document["users"] = users.rows(include_private)
    return document


def _event_section(event: Event, staff: list[EventStaff], users: _Users) -> dict:
    profile = EngineProfile(event.tiebreak_profile)
    return {
        "uid": str(event.uid),
        "name": event.name,
        "date": datestamp(event.date),
        "state": event.state,
        "capacity": event.capacity,
        "registration_deadline": timestamp(event.registration_deadline),
        "decklist_deadline": timestamp(event.decklist_deadline),
        "decklists_public_from": timestamp(event.decklists_public_from),
        "swiss_rounds": event.swiss_rounds,
        "round_minutes": event.round_minutes,
        "top_cut_size": event.top_cut_size,
        "swiss_timeout_policy": event.swiss_timeout_policy,
        "top_cut_timeout_policy": event.top_cut_timeout_policy,
        "allow_reentry": event.allow_reentry,
        "late_entry_policy": event.late_entry_policy,
        "pairing_seed": event.pairing_seed,
        "organizer": users.name(event.organizer),
        "created_at": timestamp(event.created_at),
        "staff": [
            {"user": users.name(s.user), "role": s.role, "added_at": timestamp(s.created_at)}
            for s in staff
        ],
        "tiebreakers": {
            "profile": str(profile),
            "order": list(TIEBREAK_NAMES[profile]),
            "tie_order_seed": tie_order_seed(event.pairing_seed),
        },
    }


def _format_section(event: Event) -> dict:
    fmt = event.format
    game = fmt.game
    in_force = (Q(effective_from__isnull=True) | Q(effective_from__lte=event.date)) & (
        Q(effective_until__isnull=True) | Q(effective_until__gt=event.date)
    )
    bans = [
        {
            "card": ban.card.name,
            "card_key": ban.card.name_key,
            "printing_set": ban.printing_set.code if ban.printing_set_id else None,
            "effective_from": datestamp(ban.effective_from),
            "effective_until": datestamp(ban.effective_until),
            "note": ban.note,
            "source": ban.source,
        }
        for ban in BanEntry.objects.filter(in_force, format=fmt).select_related(
            "card", "printing_set"
        )
    ]
    bans.sort(key=lambda b: (b["card_key"], b["printing_set"] or "", b["effective_from"] or ""))
    legal_sets = [
        {
            "code": entry.card_set.code,
            "name": entry.card_set.name,
            "legal_from": datestamp(entry.legal_from or entry.card_set.release_date),
        }
        for entry in LegalSet.objects.filter(format=fmt)
        .select_related("card_set")
        .order_by("card_set__code")
    ]
    copy_groups = [
        {"name": group.name, "cards": sorted(card.name for card in group.cards.all())}
        for group in fmt.copy_groups.prefetch_related("cards").order_by("name", "id")
    ]
    return {
        "game": {"slug": game.slug, "name": game.name, "end_rules": game.end_rules_data()},
        "slug": fmt.slug,
        "name": fmt.name,
        "version": fmt.version,
        "as_of": datestamp(event.date),
        "min_deck_size": fmt.min_deck_size,
        "max_deck_size": fmt.max_deck_size,
        "copy_limit": fmt.copy_limit,
        "exempt_unlimited": fmt.exempt_unlimited,
        "exempt_card_type": fmt.exempt_card_type or None,
        "sideboard_min": fmt.sideboard_min,
        "sideboard_max": fmt.sideboard_max,
        "leader_type": fmt.leader_type or None,
        "leader_count": fmt.leader_count,
        "rule_sections": dict(fmt.rule_sections or {}),
        "legal_sets": legal_sets,
        "copy_groups": copy_groups,
        "bans": bans,
    }


def decklist_entries(text: str) -> list[dict]:
    return [
        {
            "line": line.line,
            "section": line.section,
            "count": line.count,
            "name": line.name,
            "qualifier": line.qualifier,
        }
        for line in parse_decklist(text).lines
    ]


def _registration(registration: Registration, player: str) -> dict:
    has_list = (
        registration.deck_submitted_at is not None
        or registration.deck_text
        or registration.deck_report is not None
    )
    return {
        "player": player,
        "status": registration.status,
        "registered_at": timestamp(registration.registered_at),
        "dropped_after_round": registration.dropped_after_round,
        "late_entry_round": registration.late_entry_round,
        "locked": registration.locked,
        "decklist": (
            {
                "submitted_at": timestamp(registration.deck_submitted_at),
                "text": registration.deck_text,
                "entries": decklist_entries(registration.deck_text),
                "report": registration.deck_report,
            }
            if has_list
            else None
        ),
    }


def _winner(match: Match, player_of: dict) -> str | None:
    if match.player2_id is None:
        return player_of[match.player1_id]
    if match.outcome == "player1":
        return player_of[match.player1_id]
    if match.outcome == "player2":
        return player_of[match.player2_id]
    return None


def _top_cut(rounds: list[Round], matches: list[Match], player_of: dict) -> dict | None:
    cut_rounds = {r.pk: r.number for r in rounds if r.stage == RoundStage.TOP_CUT}
    if not cut_rounds:
        return None
    cut_matches = [m for m in matches if m.round_id in cut_rounds]
    first = min(cut_rounds.values())
    size = 2 * sum(1 for m in cut_matches if cut_rounds[m.round_id] == first)
    return {
        "size": size,
        "rounds": sorted(cut_rounds.values()),
        "bracket": [
            {
                "round": cut_rounds[m.round_id],
                "table": m.table,
                "bracket_position": m.bracket_position,
                "seed1": m.seed1,
                "player1": player_of[m.player1_id],
                "seed2": m.seed2,
                "player2": player_of.get(m.player2_id),
                "winner": _winner(m, player_of),
            }
            for m in cut_matches
        ],
    }


def _audit_object(entry: AuditEntry, refs: dict) -> dict:
    if entry.object_type == "event":
        return {"type": "event"}
    ref = refs.get(entry.object_type, {}).get(entry.object_id)
    if ref is None:
        return {"type": entry.object_type, "id": entry.object_id}
    return {"type": entry.object_type, **ref}
