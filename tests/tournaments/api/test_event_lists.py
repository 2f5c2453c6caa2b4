"""Lists under an event that not everyone may read: penalties (the staff all, a player
their own), decklists (``policy.decklists_visible_to``) and the audit log (the staff).
Exact JSON; who sees what."""

import datetime as dt

from django.utils import timezone, translation

from tests.decks.conftest import LEGAL_DECK
from tests.tournaments.factories import new_event
from tournaments import services
from tournaments.api.serializers import ReportItemSerializer
from tournaments.models import AuditEntry

from .helpers import API, api_time, error_of


def penalty_json(penalty):
    return {
        "id": penalty.pk,
        "registration": penalty.registration_id,
        "player": penalty.registration.player.username,
        "kind": penalty.kind,
        "infraction": penalty.infraction,
        "infraction_code": None,
        "suggested_kind": "",
        "note": penalty.note,
        "round": penalty.round.number if penalty.round else None,
        "match": penalty.match_id,
        "judge": penalty.judge.username,
        "created_at": api_time(penalty.created_at),
    }


def test_penalties_staff_see_all_players_their_own(event_after_round_3, outsider, client_for):
    f = event_after_round_3
    second = services.issue_penalty(
        f.registrations[1], actor=f.organizer, kind="warning", infraction="Tardiness", note="5'"
    )
    url = f"{API}/{f.event.pk}/penalties/"
    for staff in (f.organizer, f.judge):
        body = client_for(staff).get(url).json()
        assert body["count"] == 2
        assert body["results"] == [penalty_json(second), penalty_json(f.warning)]  # newest first
    own = client_for(f.players[0]).get(url).json()
    assert own["results"] == [penalty_json(f.warning)]
    for user in (f.players[2], outsider, None):
        assert client_for(user).get(url).json()["count"] == 0, user
    detail = f"{url}{f.warning.pk}/"
    assert client_for(f.players[0]).get(detail).json() == penalty_json(f.warning)
    assert error_of(client_for(f.players[1]).get(detail)) == (404, "not_found")
    assert error_of(client_for().get(detail)) == (404, "not_found")


def decklist_json(registration):
    report = registration.deck_report
    return {
        "registration": registration.pk,
        "player": registration.player.username,
        "name": registration.player.username,
        "deck_text": registration.deck_text,
        "submitted_at": api_time(registration.deck_submitted_at),
        "locked": registration.locked,
        "report": {
            "legal": True,
            "format": report["format"],
            "format_version": report["format_version"],
            "as_of": "2026-05-16",
            "main_count": 50,
            "sideboard_count": 0,
            "by_type": report["by_type"],
            "by_element": report["by_element"],
            "violations": [],
            "notices": [{"code": n["code"], "message": n["message_en"]} for n in report["notices"]],
        },
    }


def test_decklists_visible_per_policy(event_after_round_3, outsider, client_for):
    f = event_after_round_3
    url = f"{API}/{f.event.pk}/decklists/"
    registrations = sorted(f.registrations, key=lambda r: r.player.username)
    for r in registrations:
        r.refresh_from_db()
    everyone = [decklist_json(r) for r in registrations]
    for staff in (f.organizer, f.judge):
        body = client_for(staff).get(url).json()
        assert (body["count"], body["results"]) == (8, everyone)
    mine = client_for(f.players[0]).get(url).json()["results"]
    assert mine == [decklist_json(registrations[0])]
    for user in (outsider, None):
        assert client_for(user).get(url).json()["count"] == 0
    other = f"{url}{f.registrations[1].pk}/"
    assert error_of(client_for(f.players[0]).get(other)) == (404, "not_found")
    assert client_for(f.judge).get(other).json() == decklist_json(registrations[1])

    # Once the event makes them public, anyone sees every list.
    public_from = timezone.now() - dt.timedelta(minutes=1)
    services.update_event(f.event, actor=f.organizer, decklists_public_from=public_from)
    body = client_for().get(url).json()
    assert (body["count"], body["results"]) == (8, everyone)


def test_decklists_leave_out_players_without_one(
    staffed_event, organizer, make_players, client_for
):
    with_list, without = make_players(2)
    kept = services.register_player(staffed_event, actor=with_list, deck_text=LEGAL_DECK)
    services.register_player(staffed_event, actor=without)
    body = client_for(organizer).get(f"{API}/{staffed_event.pk}/decklists/").json()
    assert [row["registration"] for row in body["results"]] == [kept.pk]
    assert body["results"][0]["locked"] is False


def audit_json(entry):
    return {
        "id": entry.pk,
        "created_at": api_time(entry.created_at),
        "actor": entry.actor.username if entry.actor else None,
        "action": entry.action,
        "object_type": entry.object_type,
        "object_id": entry.object_id,
        "object_version": entry.object_version,
        "reason": entry.reason,
        "before": entry.before,
        "after": entry.after,
    }


def test_audit_log_for_the_staff(event_after_round_3, co_organizer, client_for):
    f = event_after_round_3
    url = f"{API}/{f.event.pk}/audit/"
    services.update_event(f.event, actor=f.organizer, round_minutes=45, reason="faster")
    entries = list(AuditEntry.objects.filter(event=f.event).order_by("-created_at", "-id"))
    assert len(entries) == 51  # two pages
    for user in (f.organizer, co_organizer, f.judge):
        body = client_for(user).get(url).json()
        assert body["count"] == len(entries)
        assert body["results"] == [audit_json(e) for e in entries[:50]]
        assert body["next"].endswith("/audit/?page=2")
    second = client_for(f.judge).get(url + "?page=2").json()
    assert second["results"] == [audit_json(entries[50])]
    assert body["results"][0] == {
        "id": entries[0].pk,
        "created_at": api_time(entries[0].created_at),
        "actor": "organizer",
        "action": "event.updated",
        "object_type": "event",
        "object_id": f.event.pk,
        "object_version": None,
        "reason": "faster",
        "before": {"round_minutes": 50},
        "after": {"round_minutes": 45},
    }

    closed = client_for(f.judge).get(url + "?action=round.closed").json()
    rounds = [r.pk for r in reversed(f.rounds)]
    assert [row["object_id"] for row in closed["results"]] == rounds
    assert closed["results"][0] == audit_json(
        AuditEntry.objects.get(action="round.closed", object_id=rounds[0])
    )
    assert client_for(f.judge).get(url + "?action=nothing.like.this").json()["count"] == 0


def test_audit_log_refusals(event_after_round_3, outsider, organizer, crossover, client_for):
    f = event_after_round_3
    url = f"{API}/{f.event.pk}/audit/"
    for user, code in ((f.players[0], "not_staff"), (outsider, "not_staff")):
        assert error_of(client_for(user).get(url)) == (403, code)
    assert error_of(client_for().get(url)) == (403, "not_authenticated")
    draft = new_event(organizer, crossover, name="Secret League")
    assert error_of(client_for(outsider).get(f"{API}/{draft.pk}/audit/")) == (404, "not_found")
    assert client_for(organizer).get(f"{API}/{draft.pk}/audit/").json()["count"] == 1


def test_report_messages_follow_the_request_language():
    item = {"code": "PRINTING_UNKNOWN", "message_en": "No printing", "message_ja": "収録なし"}
    with translation.override("ja"):
        assert ReportItemSerializer(item).data == {
            "code": "PRINTING_UNKNOWN",
            "message": "収録なし",
        }
    with translation.override("en"):
        assert ReportItemSerializer(item).data["message"] == "No printing"
