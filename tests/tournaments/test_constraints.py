"""The database refuses what concurrent writers could otherwise store (checklist B4),
whatever the application code does: each violating write raises IntegrityError."""

import pytest
from django.db import IntegrityError, transaction

from tournaments.models import (
    AuditEntry,
    Event,
    Match,
    MatchParticipant,
    Registration,
    ResultReport,
    Round,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def round_4(event_after_round_3):
    from tournaments import services

    built = event_after_round_3
    round_ = services.generate_round(built.event, actor=built.organizer)
    return built, round_, Match.objects.filter(round=round_).exclude(player2=None).first()


def refused(write):
    with pytest.raises(IntegrityError), transaction.atomic():
        write()


def test_one_match_per_registration_and_round(round_4):
    _built, round_, match = round_4
    other = Match.objects.filter(round=round_).exclude(pk=match.pk).first()
    refused(
        lambda: MatchParticipant.objects.create(
            match=other, round=round_, registration_id=match.player1_id, seat=2
        )
    )


def test_one_match_per_table(round_4):
    _built, round_, match = round_4
    refused(lambda: Match.objects.create(round=round_, table=match.table, player1=match.player1))


def test_no_self_pairing(round_4):
    _built, round_, match = round_4
    refused(
        lambda: Match.objects.create(
            round=round_, table=99, player1=match.player1, player2=match.player1
        )
    )


@pytest.mark.parametrize("record", [(3, 0, 0), (0, 3, 0), (2, 1, 1), (0, 0, 4)])
def test_match_record_bounds(round_4, record):
    _built, _round, match = round_4
    wins, losses, draws = record
    refused(lambda: Match.objects.filter(pk=match.pk).update(wins=wins, losses=losses, draws=draws))


def test_one_registration_per_player_and_event(event_after_round_3):
    built = event_after_round_3
    refused(
        lambda: Registration.objects.create(
            event=built.event, player=built.players[0], registered_at=built.event.created_at
        )
    )


def test_one_round_per_number(event_after_round_3):
    built = event_after_round_3
    refused(lambda: Round.objects.create(event=built.event, number=3, stage="swiss"))


def test_one_result_submission_and_one_match_audit_entry_per_version(round_4):
    built, _round, match = round_4
    ResultReport.objects.create(match=match, reporter=built.judge, kind="override", match_version=2)
    refused(
        lambda: ResultReport.objects.create(
            match=match, reporter=built.judge, kind="override", match_version=2
        )
    )
    fields = {
        "event": built.event,
        "action": "match.overridden",
        "object_type": "match",
        "object_id": match.pk,
        "object_version": 2,
    }
    AuditEntry.objects.create(**fields)
    refused(lambda: AuditEntry.objects.create(**fields))
    # Entries without a version (most objects) are not limited.
    AuditEntry.objects.create(**{**fields, "object_version": None})
    AuditEntry.objects.create(**{**fields, "object_version": None})


@pytest.mark.parametrize(
    "change", [{"capacity": 1}, {"top_cut_size": 3}, {"round_minutes": 0}, {"state": "paused"}]
)
def test_event_settings_bounds(event_after_round_3, change):
    event = event_after_round_3.event
    refused(lambda: Event.objects.filter(pk=event.pk).update(**change))
