import pytest

from tournaments.models import AuditEntry, Match, RegistrationStatus, Round, RoundStatus

pytestmark = pytest.mark.django_db


def test_event_after_round_3_is_built_through_services(event_after_round_3):
    built = event_after_round_3
    assert built.event.state == "running"
    assert [r.number for r in Round.objects.filter(event=built.event)] == [1, 2, 3]
    assert set(Round.objects.values_list("status", flat=True)) == {RoundStatus.CLOSED}
    assert built.dropped.status == RegistrationStatus.DROPPED
    assert built.dropped.dropped_after_round == 2
    assert Match.objects.filter(round__number=3).count() == 4  # 7 players: 3 tables + bye
    assert AuditEntry.objects.filter(event=built.event).count() > 0
