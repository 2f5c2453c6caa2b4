import pytest
from django.core.management import call_command

from tournaments.models import AuditEntry, Event, EventState, Round

pytestmark = pytest.mark.django_db


def test_load_demo_builds_events_at_each_stage_once(capsys):
    call_command("load_demo", "--no-admin")
    states = dict(Event.objects.values_list("name", "state"))
    assert states == {
        "Demo: registration open": EventState.REGISTRATION_OPEN,
        "Demo: mid-Swiss": EventState.RUNNING,
        "Demo: top cut": EventState.TOP_CUT,
        "Demo: finished": EventState.FINISHED,
    }
    mid = Event.objects.get(name="Demo: mid-Swiss")
    assert list(Round.objects.filter(event=mid).values_list("number", "status")) == [
        (1, "closed"),
        (2, "closed"),
        (3, "published"),
    ]
    # Built through the services: every change left its audit entry.
    assert AuditEntry.objects.filter(event=mid).count() > 0
    audit_count = AuditEntry.objects.count()

    call_command("load_demo", "--no-admin")
    assert Event.objects.count() == 4
    assert AuditEntry.objects.count() == audit_count
    assert "Demo events: 0 added" in capsys.readouterr().out
