"""A rename is the one change of a public page that no service makes: the user admin
saves the user, and every event the user plays in or organizes moves to a new revision."""

import pytest
from django.contrib.auth.models import update_last_login

from tournaments.models import EventRevision

pytestmark = pytest.mark.django_db


def _revisions(*events):
    return [
        tuple(EventRevision.objects.filter(event=e).values_list("number", "standings").get())
        for e in events
    ]


def test_renaming_a_player_bumps_the_events_they_play_in(event_after_round_3, crossover):
    from .factories import open_event

    built = event_after_round_3
    other = open_event(built.organizer, crossover, name="Elsewhere")
    player = built.players[0]
    before = _revisions(built.event, other)
    player.first_name = "Renamed"
    player.save()
    after = _revisions(built.event, other)
    assert after[0] == (before[0][0] + 1, before[0][1] + 1)
    # the organizer of "Elsewhere" is not this player: nothing to show there
    assert after[1] == before[1]


def test_renaming_the_organizer_bumps_their_events(event_after_round_3):
    built = event_after_round_3
    before = _revisions(built.event)[0]
    built.organizer.last_name = "Organizer"
    built.organizer.save(update_fields=["last_name"])
    assert _revisions(built.event)[0] == (before[0] + 1, before[1] + 1)


def test_a_sign_in_changes_no_revision(event_after_round_3):
    built = event_after_round_3
    before = _revisions(built.event)
    update_last_login(None, built.players[0])  # what every sign-in saves
    assert _revisions(built.event) == before
