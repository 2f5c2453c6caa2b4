"""An event file speaks only for its importer (#21): a file names participants, not
accounts of this site.

Each test here failed before the fix: an import attached every existing account the file
named (their e-mail then in the importer's private file), a second import took over the
first one's placeholder, and the file's penalties and audit entries were acts of real
users. Now: the importer is the only existing account an ordinary import reaches; every
other name is a placeholder that belongs to the event that made it; an account joins only
when its owner accepts; the file's acts read "per the imported file"."""

from __future__ import annotations

import copy
import json
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tests.tournaments.factories import UserFactory
from tournaments import policy
from tournaments.event_file import EventFileRejected, export_event, import_event
from tournaments.models import (
    AuditEntry,
    ClaimLink,
    DeckCheck,
    Event,
    EventStaff,
    FileIdentity,
    Penalty,
    Registration,
    ResultReport,
)
from tournaments.services import claims
from tournaments.services.errors import InvalidState, NotAllowed

pytestmark = pytest.mark.django_db

User = get_user_model()
API_IMPORT = "/api/v1/event-files/"
PASSWORD = "violet-harbour-lantern-58"


def api_client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def new_copy(document: dict) -> dict:
    """The file as someone else's new event: a fresh uid, no e-mail addresses."""
    document = copy.deepcopy(document)
    document["event"]["uid"] = str(uuid.uuid4())
    for row in document["users"]:
        row.pop("email", None)
    return document


def imported_by(user, document: dict) -> Event:
    response = api_client(user).post(API_IMPORT, document, format="json")
    assert response.status_code in (200, 201), response.json()
    return Event.objects.get(uid=document["event"]["uid"])


@pytest.fixture
def file_of_others(event_after_round_3):
    """The event after round 3, exported: it names the organizer, co-organizer, judge and
    eight players, all accounts of this site; player001 has an e-mail address."""
    state = event_after_round_3
    state.players[0].email = "alice@example.org"
    state.players[0].save(update_fields=["email"])
    return new_copy(export_event(state.event, include_private=True))


def people_of(event: Event) -> set[int]:
    ids = set(Registration.objects.filter(event=event).values_list("player_id", flat=True))
    ids |= set(EventStaff.objects.filter(event=event).values_list("user_id", flat=True))
    ids |= set(Penalty.objects.filter(event=event).values_list("judge_id", flat=True))
    ids |= set(DeckCheck.objects.filter(event=event).values_list("judge_id", flat=True))
    ids |= set(
        ResultReport.objects.filter(match__round__event=event).values_list("reporter_id", flat=True)
    )
    ids |= set(
        AuditEntry.objects.filter(event=event, actor__isnull=False).values_list(
            "actor_id", flat=True
        )
    )
    return ids


# --- no borrowed identities ----------------------------------------------------------------


def test_import_attaches_no_existing_account_but_the_importer(file_of_others, outsider):
    existing = set(User.objects.values_list("pk", flat=True))
    event = imported_by(outsider, file_of_others)
    # Every person the file names is a new placeholder of this event, the importer apart.
    assert people_of(event) & existing == {outsider.pk}
    assert event.organizer == outsider
    identities = dict(FileIdentity.objects.filter(event=event).values_list("name", "user_id"))
    named = {row["username"] for row in file_of_others["users"]}
    assert set(identities) == named
    placeholders = User.objects.filter(pk__in=identities.values())
    assert {(u.is_active, u.has_usable_password()) for u in placeholders} == {(False, False)}
    # The names are taken here, so each placeholder's username is the name and a suffix.
    for user in placeholders:
        name = next(n for n, pk in identities.items() if pk == user.pk)
        assert user.get_username().startswith(name + "+")
        assert len(user.get_username()) == len(name) + 7


def test_private_file_of_an_import_does_not_leak_a_named_accounts_email(file_of_others, outsider):
    event = imported_by(outsider, file_of_others)
    response = api_client(outsider).get(f"/api/v1/events/{event.pk}/event-file/?private=1")
    assert response.status_code == 200
    body = response.content.decode()
    assert "alice@example.org" not in body
    emails = {row.get("email", "") for row in response.json()["users"]}
    assert emails == {"", outsider.email}


def test_import_grants_no_role_to_an_existing_account(file_of_others, outsider, judge):
    file_of_others["event"]["staff"].append(
        {"user": "player002", "role": "co_organizer", "added_at": file_of_others["exported_at"]}
    )
    event = imported_by(outsider, file_of_others)
    real_player = User.objects.get(username="player002")
    for person in (judge, real_player):
        assert policy.access_for(person, event).roles == frozenset()
    # The role went to the event's own placeholder for the name, which nobody can use.
    staff = EventStaff.objects.get(event=event, user__file_identities__name="player002")
    assert staff.role == "co_organizer"
    assert staff.user.is_active is False


def test_forged_penalty_and_audit_are_the_files_not_real_users_acts(
    file_of_others, outsider, organizer, make_players
):
    victim = User.objects.get(username="player005")
    document = file_of_others
    document["penalties"].append(
        {
            **document["penalties"][0],
            "player": "player005",
            "kind": "disqualification",
            "judge": "organizer",
            "note": "forged",
            "match": None,
            "deck_check": None,
            "infraction_code": None,
            "infraction": "Cheating",
            "suggested_kind": None,
        }
    )
    document["audit"].append({**document["audit"][-1], "actor": "organizer", "reason": "forged"})
    event = imported_by(outsider, document)
    # Nothing in the new event names the real organizer or the real player005.
    assert Penalty.objects.filter(registration__player=victim).count() == 0
    assert AuditEntry.objects.filter(event=event, actor=organizer).count() == 0
    forged = Penalty.objects.get(event=event, note="forged")
    assert forged.imported is True
    assert forged.judge.file_identities.get().name == "organizer"
    assert forged.registration.player != victim
    assert set(AuditEntry.objects.filter(event=event).values_list("imported", flat=True)) == {
        True,
        False,
    }
    assert AuditEntry.objects.get(event=event, imported=False).action == "event.imported"
    # The victim takes no part in the event; the staff page says whose word it is.
    assert policy.access_for(victim, event).roles == frozenset()
    page = signed_in(outsider).get(
        reverse("tournaments:player_detail", args=[event.pk, forged.registration_id])
    )
    assert page.status_code == 200
    assert f"per the imported file: {forged.judge.get_username()}" in page.content.decode()
    audit = signed_in(outsider).get(reverse("tournaments:audit_log", args=[event.pk]))
    assert audit.status_code == 200
    assert "per the imported file" in audit.content.decode()


# --- placeholders belong to their event ---------------------------------------------------


def small_file(source: dict, name: str) -> dict:
    """``source`` with its first player renamed ``name`` (a username nobody has here)."""
    document = new_copy(source)
    old = document["registrations"][0]["player"]
    text = json.dumps(document, ensure_ascii=False)
    return json.loads(text.replace(f'"{old}"', f'"{name}"'))


def test_a_second_import_cannot_take_over_the_first_ones_placeholder(
    file_of_others, outsider, co_organizer
):
    x, y = outsider, UserFactory(username="mallory")
    x_event = imported_by(x, small_file(file_of_others, "newbie-4242"))
    x_reg = Registration.objects.get(event=x_event, player__username="newbie-4242")
    x_link = claims.make_claim_link(x_reg, actor=x, access=policy.access_for(x, x_event)).token
    y_event = imported_by(y, small_file(file_of_others, "newbie-4242"))
    y_reg = Registration.objects.get(event=y_event, player__file_identities__name="newbie-4242")
    # Y's file got a placeholder of its own, not X's.
    assert y_reg.player_id != x_reg.player_id
    assert y_reg.player.get_username().startswith("newbie-4242+")
    # Y's claim link is for Y's placeholder; X's link still works and X's player is X's.
    claims.make_claim_link(y_reg, actor=y, access=policy.access_for(y, y_event))
    with pytest.raises(NotAllowed):
        claims.make_claim_link(x_reg, actor=y, access=policy.access_for(y, x_event))
    user = claims.claim_account(x_link, password=PASSWORD)
    assert user.pk == x_reg.player_id


def test_a_placeholder_of_another_event_cannot_be_claimed_here(file_of_others, outsider):
    x_event = imported_by(outsider, small_file(file_of_others, "newbie-4242"))
    placeholder = Registration.objects.get(event=x_event, player__username="newbie-4242").player
    mine = imported_by(outsider, new_copy(file_of_others))
    # A registration of this event whose player is another event's placeholder.
    registration = Registration.objects.filter(event=mine).first()
    Registration.objects.filter(pk=registration.pk).update(player=placeholder)
    registration.refresh_from_db()
    with pytest.raises(InvalidState) as refused:
        claims.make_claim_link(
            registration, actor=outsider, access=policy.access_for(outsider, mine)
        )
    assert refused.value.code == "not_a_placeholder"


def test_reimporting_an_event_keeps_its_placeholders_and_claim_links(file_of_others, outsider):
    event = imported_by(outsider, file_of_others)
    registration = Registration.objects.filter(event=event).order_by("pk").first()
    token = claims.make_claim_link(
        registration, actor=outsider, access=policy.access_for(outsider, event)
    ).token
    users_before = User.objects.count()
    # The organizer's own export names the placeholders by their usernames here.
    imported_by(outsider, export_event(event, include_private=True))
    imported_by(outsider, file_of_others)
    assert User.objects.count() == users_before
    assert claims.claim_account(token, password=PASSWORD).pk == registration.player_id


def test_replacing_keeps_the_events_own_players_in_their_places_only(
    event_after_round_3, organizer
):
    event = event_after_round_3.event
    players = set(Registration.objects.filter(event=event).values_list("player_id", flat=True))
    document = export_event(event, include_private=True)
    imported_by(organizer, document)
    assert set(Registration.objects.filter(event=event).values_list("player_id", flat=True)) == (
        players
    )
    # A file that makes a registered player a co-organizer is refused, nothing written.
    document["event"]["staff"].append(
        {"user": "player002", "role": "co_organizer", "added_at": document["exported_at"]}
    )
    response = api_client(organizer).post(API_IMPORT, document, format="json")
    assert response.status_code == 400
    problems = response.json()["details"]["problems"]
    assert [p["path"] for p in problems] == [
        f"event.staff[{len(document['event']['staff']) - 1}].role"
    ]
    assert not EventStaff.objects.filter(event=event, user__username="player002").exists()


# --- an existing account joins only by its owner's choice ---------------------------------


def test_the_owner_accepts_while_signed_in_and_the_records_move(file_of_others, outsider):
    kenji = UserFactory(username="kenji")
    event = imported_by(outsider, small_file(file_of_others, "kenji"))
    registration = Registration.objects.get(event=event, player__file_identities__name="kenji")
    placeholder = registration.player
    assert placeholder != kenji
    token = claims.make_claim_link(
        registration, actor=outsider, access=policy.access_for(outsider, event)
    ).token
    page = signed_in(kenji).get(reverse("claim_account", args=[token]))
    assert "Add to kenji" in page.content.decode()
    response = signed_in(kenji).post(reverse("claim_account", args=[token]), {"accept": "1"})
    assert response.status_code == 302
    registration.refresh_from_db()
    assert registration.player == kenji
    assert not User.objects.filter(pk=placeholder.pk).exists()
    identity = FileIdentity.objects.get(event=event, name="kenji")
    assert identity.user == kenji
    assert identity.accepted_at is not None
    assert ClaimLink.objects.get().used_at is not None
    assert (
        AuditEntry.objects.filter(
            event=event, action="registration.account_accepted", actor=kenji
        ).count()
        == 1
    )
    # The organizer's re-import names "kenji" again: it is kenji, no new placeholder.
    users_before = User.objects.count()
    imported_by(outsider, export_event(event, include_private=True))
    assert Registration.objects.get(event=event, player__username="kenji").player == kenji
    assert User.objects.count() == users_before


def test_accepting_is_refused_to_someone_already_in_the_event(file_of_others, outsider):
    event = imported_by(outsider, small_file(file_of_others, "kenji"))
    registration = Registration.objects.get(event=event, player__file_identities__name="kenji")
    token = claims.make_claim_link(
        registration, actor=outsider, access=policy.access_for(outsider, event)
    ).token
    response = signed_in(outsider).post(reverse("claim_account", args=[token]), {"accept": "1"})
    assert response.status_code == 409
    assert ClaimLink.objects.get().used_at is None
    registration.refresh_from_db()
    assert registration.player.file_identities.get().name == "kenji"


def test_accepting_needs_a_signed_in_visitor(file_of_others, outsider):
    event = imported_by(outsider, small_file(file_of_others, "kenji"))
    registration = Registration.objects.get(event=event, player__file_identities__name="kenji")
    token = claims.make_claim_link(
        registration, actor=outsider, access=policy.access_for(outsider, event)
    ).token
    response = Client().post(reverse("claim_account", args=[token]), {"accept": "1"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert ClaimLink.objects.get().used_at is None


def test_a_claim_keeps_only_the_claimants_email(file_of_others, outsider):
    document = small_file(file_of_others, "newbie-4242")
    row = next(r for r in document["users"] if r["username"] == "newbie-4242")
    row["email"] = "someone-else@example.org"
    event = imported_by(outsider, document)
    registration = Registration.objects.get(event=event, player__username="newbie-4242")
    token = claims.make_claim_link(
        registration, actor=outsider, access=policy.access_for(outsider, event)
    ).token
    user = claims.claim_account(token, password=PASSWORD)
    assert user.email == ""


# --- trusted imports ------------------------------------------------------------------------


def test_the_command_and_a_site_admin_import_as_the_file_says(file_of_others, tmp_path):
    judge = User.objects.get(username="judge")
    path = tmp_path / "event.json"
    path.write_text(json.dumps(file_of_others), encoding="utf-8")
    call_command("import_event", str(path))
    event = Event.objects.get(uid=file_of_others["event"]["uid"])
    assert EventStaff.objects.filter(event=event, user=judge).exists()
    assert FileIdentity.objects.filter(event=event).count() == 0
    admin = UserFactory(username="site-admin", is_superuser=True, is_staff=True)
    document = new_copy(file_of_others)
    outcome = import_event(document, actor=admin)
    assert EventStaff.objects.filter(event=outcome.event, user=judge).exists()
    assert outcome.users_created == []


def test_an_import_names_only_what_it_may_problems_write_nothing(event_after_round_3, organizer):
    """A refused place leaves every table as it was (the placeholders are rolled back)."""
    event = event_after_round_3.event
    document = export_event(event, include_private=True)
    document["event"]["staff"].append(
        {"user": "player003", "role": "judge", "added_at": document["exported_at"]}
    )
    users = User.objects.count()
    with pytest.raises(EventFileRejected):
        import_event(document, actor=organizer)
    assert User.objects.count() == users


# --- usernames go through the site's one validator ------------------------------------------


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("\u0430dmin", "looks"),  # Cyrillic а, like the existing "admin"
        ("ADMIN", "looks"),  # case folded
        (" admin", "space"),
        ("ad\u200bmin", "invisible"),
        ("\uff41\uff44\uff4d\uff49\uff4e", "width"),  # full-width
        ("<img src=x>", "letters"),
    ],
)
def test_an_import_refuses_usernames_sign_up_refuses(file_of_others, outsider, name, fragment):
    UserFactory(username="admin")
    document = small_file(file_of_others, "newbie-4242")
    index = next(i for i, r in enumerate(document["users"]) if r["username"] == "newbie-4242")
    text = json.dumps(document, ensure_ascii=False).replace('"newbie-4242"', json.dumps(name))
    document = json.loads(text)
    users = User.objects.count()
    response = api_client(outsider).post(API_IMPORT, document, format="json")
    assert response.status_code == 400
    problems = response.json()["details"]["problems"]
    assert [p["path"] for p in problems] == [f"users[{index}].username"]
    assert fragment in problems[0]["message"].lower()
    assert User.objects.count() == users


def test_placeholders_join_the_look_alike_index(file_of_others, outsider):
    from django.core.exceptions import ValidationError

    from tournaments.usernames import validate_new_username

    imported_by(outsider, small_file(file_of_others, "newbie-4242"))
    with pytest.raises(ValidationError):
        validate_new_username("NEWBIE-4242")


def test_the_command_reimporting_an_imported_event_keeps_its_placeholders(
    file_of_others, outsider, tmp_path
):
    event = imported_by(outsider, file_of_others)
    players = set(Registration.objects.filter(event=event).values_list("player_id", flat=True))
    path = tmp_path / "event.json"
    path.write_text(json.dumps(file_of_others), encoding="utf-8")
    call_command("import_event", str(path))
    assert (
        set(Registration.objects.filter(event=event).values_list("player_id", flat=True)) == players
    )
    real = User.objects.get(username="player001")
    assert not Registration.objects.filter(event=event, player=real).exists()
