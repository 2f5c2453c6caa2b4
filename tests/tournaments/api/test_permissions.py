"""An outsider (signed in, no role in the event) and an anonymous caller are refused on
every command: 403 on an event they may see (a missing permission), 404 on one they may
not (a draft) — even with real object ids of another event — and nothing changes."""

import pytest

from tests.tournaments.factories import games_for, new_event
from tournaments.models import AuditEntry

from .helpers import API, error_of, live_round


def commands(event_pk, f, match, round_number):
    """(name, path, payload, refusal code for a signed-in outsider on a visible event)."""
    registration = f.registrations[0].pk
    base = f"{API}/{event_pk}"
    return [
        ("generate-round", f"{base}/generate-round/", {}, "not_manager"),
        ("publish", f"{base}/rounds/{round_number}/publish/", {}, "not_manager"),
        (
            "decklist",
            f"{base}/registrations/{registration}/decklist/",
            {"deck_text": "4 x\n"},
            "not_own_registration",
        ),
        ("drop", f"{base}/registrations/{registration}/drop/", {}, "not_own_registration"),
        (
            "penalty",
            f"{base}/registrations/{registration}/penalty/",
            {"kind": "warning", "infraction": "Slow play"},
            "not_staff",
        ),
        (
            "report",
            f"{base}/matches/{match.pk}/report/",
            {"games": games_for("2-0"), "expected_version": match.version},
            "not_participant",
        ),
        (
            "confirm",
            f"{base}/matches/{match.pk}/confirm/",
            {"expected_version": match.version},
            "not_participant",
        ),
        (
            "dispute",
            f"{base}/matches/{match.pk}/dispute/",
            {"expected_version": match.version, "reason": "no"},
            "not_participant",
        ),
        (
            "override",
            f"{base}/matches/{match.pk}/override/",
            {"expected_version": match.version, "reason": "no", "record": "2-0"},
            "not_staff",
        ),
    ]


@pytest.fixture
def setting(event_after_round_3):
    f = event_after_round_3
    _round, matches = live_round(f)  # round 4 published: its matches take reports
    return f, matches[0]


def test_outsider_gets_403_on_a_visible_event(setting, outsider, client_for):
    f, match = setting
    before = AuditEntry.objects.count()
    client = client_for(outsider)
    for name, url, payload, code in commands(f.event.pk, f, match, 4):
        assert error_of(client.post(url, payload, format="json")) == (403, code), name
    assert AuditEntry.objects.count() == before


def test_anonymous_gets_403_on_every_command(setting, client_for):
    f, match = setting
    client = client_for()
    urls = [url for _n, url, _p, _c in commands(f.event.pk, f, match, 4)]
    urls.append(f"{API}/{f.event.pk}/register/")
    for url in urls:
        assert error_of(client.post(url, {}, format="json")) == (403, "not_authenticated"), url


def test_outsider_gets_404_on_a_draft_event(setting, outsider, organizer, crossover, client_for):
    f, match = setting
    draft = new_event(organizer, crossover, name="Secret League")
    before = AuditEntry.objects.count()
    client = client_for(outsider)
    for name, url, payload, _code in commands(draft.pk, f, match, 4):
        assert error_of(client.post(url, payload, format="json")) == (404, "not_found"), name
    register = client.post(f"{API}/{draft.pk}/register/", {}, format="json")
    assert error_of(register) == (404, "not_found")
    assert AuditEntry.objects.count() == before


def test_objects_of_another_event_are_404_for_its_staff(setting, organizer, crossover, client_for):
    # The draft's own organizer sees the draft, but not the other event's objects in it.
    f, match = setting
    draft = new_event(organizer, crossover, name="Secret League")
    client = client_for(organizer)
    for name, url, payload, _code in commands(draft.pk, f, match, 4):
        if name == "generate-round":
            continue  # an event-level command: the draft itself answers
        assert error_of(client.post(url, payload, format="json")) == (404, "not_found"), name


def test_outsider_list_never_shows_a_private_event(
    setting, outsider, organizer, crossover, client_for
):
    f, _match = setting
    new_event(organizer, crossover, name="Secret League")
    for user in (None, outsider, f.players[0]):
        names = [e["name"] for e in client_for(user).get(f"{API}/").json()["results"]]
        assert names == ["Spring Open"], user
