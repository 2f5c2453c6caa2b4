"""tournaments.policy: roles, the pure decisions, the queryset filters every list uses, and
every service refusing an outsider (and staff without the needed role)."""

import datetime as dt
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from tests.decks.conftest import LEGAL_DECK
from tournaments import policy, services
from tournaments.models import (
    AuditEntry,
    Event,
    EventStaff,
    Match,
    Penalty,
    Registration,
    Round,
)
from tournaments.policy import Role

from .conftest import build_world_after_round_3, rolled_back_at_the_end
from .factories import UserFactory, new_event, open_event, register_all

pytestmark = pytest.mark.django_db


# --- pure decisions ----------------------------------------------------------------------


def test_access_of_is_pure_and_names_each_role(organizer, crossover):
    event = new_event(organizer, crossover)
    user = UserFactory()
    assert policy.access_of(AnonymousUser(), event) == policy.EventAccess(user_id=None)
    assert policy.access_of(organizer, event).roles == {Role.ORGANIZER}
    assert policy.access_of(user, event, staff_role="co_organizer").roles == {Role.CO_ORGANIZER}
    assert policy.access_of(user, event, staff_role="judge").roles == {Role.JUDGE}
    player = policy.access_of(user, event, registration_id=7)
    assert (player.roles, player.registration_id) == ({Role.PLAYER}, 7)
    assert policy.access_of(user, event).roles == frozenset()
    admin = UserFactory(is_superuser=True)
    assert policy.access_of(admin, event).roles == {Role.SITE_ADMIN}


ROLES = ["organizer", "co_organizer", "judge", "player", "outsider", "anonymous", "site_admin"]
DECISIONS = {
    # decision: roles that get a yes
    "can_edit_event": {"organizer", "co_organizer", "site_admin"},
    "can_manage_staff": {"organizer", "site_admin"},
    "can_run_rounds": {"organizer", "co_organizer", "site_admin"},
    "can_judge": {"organizer", "co_organizer", "judge", "site_admin"},
    "can_view_audit": {"organizer", "co_organizer", "judge", "site_admin"},
    "can_view_unpublished_rounds": {"organizer", "co_organizer", "judge", "site_admin"},
}


@pytest.fixture
def accesses(staffed_event, organizer, co_organizer, judge, outsider):
    event = staffed_event
    [registration] = register_all(event, [UserFactory(username="registered")])
    users = {
        "organizer": organizer,
        "co_organizer": co_organizer,
        "judge": judge,
        "player": registration.player,
        "outsider": outsider,
        "anonymous": AnonymousUser(),
        "site_admin": UserFactory(username="admin", is_superuser=True),
    }
    return SimpleNamespace(
        event=event,
        registration=registration,
        users=users,
        access={role: policy.access_for(user, event) for role, user in users.items()},
    )


@pytest.mark.parametrize("decision", sorted(DECISIONS))
@pytest.mark.parametrize("role", ROLES)
def test_decision_matrix(accesses, decision, role):
    allowed = getattr(policy, decision)(accesses.access[role])
    assert allowed is (role in DECISIONS[decision])


@pytest.mark.parametrize("role", ROLES)
def test_can_act_for_a_registration(accesses, role):
    allowed = policy.can_act_for(accesses.access[role], accesses.registration)
    assert allowed is (role in {"organizer", "co_organizer", "judge", "player", "site_admin"})


def test_require_raises_a_permission_denied_with_a_code():
    policy.require(True, "unused")
    with pytest.raises(PermissionDenied) as raised:
        policy.require(False, "not_staff", "only staff")
    assert isinstance(raised.value, services.NotAllowed)
    assert (raised.value.code, raised.value.http_status) == ("not_staff", 403)


# --- queryset filters ----------------------------------------------------------------


def test_events_visible_to_hides_drafts_from_outsiders(
    organizer, co_organizer, judge, outsider, crossover
):
    draft = new_event(organizer, crossover, name="Draft")
    services.add_staff(draft, actor=organizer, user=judge, role="judge")
    open_event(organizer, crossover, name="Public")
    other = new_event(UserFactory(), crossover, name="Someone else's draft")
    admin = UserFactory(is_superuser=True)

    def names(user):
        return sorted(policy.events_visible_to(user).values_list("name", flat=True))

    assert names(organizer) == ["Draft", "Public"]
    assert names(judge) == ["Draft", "Public"]
    assert names(co_organizer) == ["Public"]
    assert names(outsider) == ["Public"]
    assert names(AnonymousUser()) == ["Public"]
    assert names(admin) == ["Draft", "Public", "Someone else's draft"]
    assert other.pk not in policy.events_visible_to(outsider).values_list("pk", flat=True)


def test_rounds_visible_to_hides_unpublished_rounds_from_players(event_after_round_3, outsider):
    built = event_after_round_3
    draft = services.generate_round(built.event, actor=built.organizer)
    player = built.players[0]
    assert draft not in policy.rounds_visible_to(player, built.event)
    assert draft not in policy.rounds_visible_to(outsider, built.event)
    assert draft not in policy.rounds_visible_to(AnonymousUser(), built.event)
    assert draft in policy.rounds_visible_to(built.judge, built.event)
    assert policy.rounds_visible_to(outsider, built.event).count() == 3
    visible_matches = policy.matches_visible_to(outsider, built.event)
    assert not visible_matches.filter(round=draft).exists()
    assert visible_matches.count() == Match.objects.exclude(round=draft).count()


def test_nothing_of_a_draft_event_is_visible_to_outsiders(organizer, crossover, outsider):
    draft = new_event(organizer, crossover)
    assert policy.registrations_visible_to(outsider, draft).count() == 0
    assert policy.rounds_visible_to(outsider, draft).count() == 0
    assert policy.audit_entries_visible_to(outsider, draft).count() == 0


def test_decklists_visible_to_owner_and_staff_until_public(staffed_event, organizer, judge):
    first, second = register_all(staffed_event, [UserFactory(), UserFactory()])
    outsider = UserFactory()

    def visible(user):
        return set(policy.decklists_visible_to(user, staffed_event))

    assert visible(first.player) == {first}
    assert visible(judge) == {first, second}
    assert visible(outsider) == set()
    assert visible(AnonymousUser()) == set()
    assert (
        policy.can_view_decklist(policy.access_for(outsider, staffed_event), staffed_event, first)
        is False
    )
    services.update_event(
        staffed_event,
        actor=organizer,
        decklists_public_from=timezone.now() - dt.timedelta(seconds=1),
    )
    staffed_event.refresh_from_db()
    assert visible(outsider) == {first, second}
    assert visible(AnonymousUser()) == {first, second}


def test_penalties_and_audit_visible_to_staff_and_the_penalised_player(event_after_round_3):
    built = event_after_round_3
    event = built.event
    warned, other = built.players[0], built.players[1]
    assert list(policy.penalties_visible_to(warned, event)) == [built.warning]
    assert list(policy.penalties_visible_to(other, event)) == []
    assert list(policy.penalties_visible_to(AnonymousUser(), event)) == []
    assert list(policy.penalties_visible_to(built.judge, event)) == [built.warning]
    access = policy.access_for(warned, event)
    assert policy.can_view_penalty(access, built.warning) is True
    assert policy.can_view_penalty(policy.access_for(other, event), built.warning) is False
    total = AuditEntry.objects.filter(event=event).count()
    assert policy.audit_entries_visible_to(built.judge, event).count() == total
    assert policy.audit_entries_visible_to(warned, event).count() == 0
    assert policy.audit_entries_visible_to(AnonymousUser(), event).count() == 0


def test_staff_visible_to_the_staff_only(staffed_event, organizer, co_organizer, judge, outsider):
    register_all(staffed_event, [UserFactory(username="seated")])
    player = UserFactory(username="seated")
    usernames = {"co-organizer", "judge"}
    for user in (organizer, co_organizer, judge):
        rows = policy.staff_visible_to(user, staffed_event)
        assert {row.user.username for row in rows} == usernames
    for user in (player, outsider, AnonymousUser()):
        assert list(policy.staff_visible_to(user, staffed_event)) == []


# --- every service refuses those without the permission -------------------------------


@pytest.fixture(scope="module")
def _world_rows(django_db_setup, django_db_blocker):
    """The refusal tests' world (``event_after_round_3``, a draft event and round 4
    paired), built once for the module inside a transaction rolled back at its end; each
    test runs in a savepoint of it (pytest-django's ``db``), as ``TestCase.setUpTestData``
    does. The tests only read it: every call is refused and changes nothing. Returns the
    primary keys; :func:`world` fetches fresh objects for each test."""
    with rolled_back_at_the_end(django_db_blocker):
        world = build_world_after_round_3()
        organizer, co_organizer, judge = world.organizer, world.co_organizer, world.judge
        crossover, players, built = world.crossover, world.players, world.built
        event = built.event
        draft_event = new_event(organizer, crossover, name="Another draft")
        round_4 = services.generate_round(event, actor=organizer)
        match = Match.objects.filter(round=round_4).exclude(player2=None).first()
        yield SimpleNamespace(
            event=event.pk,
            organizer=organizer.pk,
            judge=judge.pk,
            co_organizer=co_organizer.pk,
            players=[player.pk for player in players],
            registrations=[registration.pk for registration in built.registrations],
            dropped=built.dropped.pk,
            rounds=[round_.pk for round_ in built.rounds],
            warning=built.warning.pk,
            draft_event=draft_event.pk,
            round_4=round_4.pk,
            match=match.pk,
            staff_row=EventStaff.objects.get(event=event, user=judge).pk,
        )


@pytest.fixture
def world(_world_rows, db):
    """Objects on which every service can be attempted (fresh instances for each test)."""
    rows = _world_rows
    users = get_user_model().objects.in_bulk([rows.organizer, rows.judge, rows.co_organizer])
    players = get_user_model().objects.in_bulk(rows.players)
    registrations = Registration.objects.in_bulk(rows.registrations)
    rounds = Round.objects.in_bulk(rows.rounds)
    return SimpleNamespace(
        event=Event.objects.get(pk=rows.event),
        organizer=users[rows.organizer],
        judge=users[rows.judge],
        players=[players[pk] for pk in rows.players],
        registrations=[registrations[pk] for pk in rows.registrations],
        dropped=Registration.objects.get(pk=rows.dropped),
        rounds=[rounds[pk] for pk in rows.rounds],
        warning=Penalty.objects.get(pk=rows.warning),
        draft_event=Event.objects.get(pk=rows.draft_event),
        round_4=Round.objects.get(pk=rows.round_4),
        match=Match.objects.get(pk=rows.match),
        staff_row=EventStaff.objects.get(pk=rows.staff_row),
        co_organizer=users[rows.co_organizer],
        registration=registrations[rows.registrations[1]],
    )


SERVICE_CALLS = {
    "update_event": (lambda w, a: services.update_event(w.event, actor=a, capacity=20), "manager"),
    "add_staff": (
        lambda w, a: services.add_staff(w.event, actor=a, user=UserFactory(), role="judge"),
        "owner",
    ),
    "remove_staff": (lambda w, a: services.remove_staff(w.staff_row, actor=a), "owner"),
    "open_registration": (
        lambda w, a: services.open_registration(w.draft_event, actor=a),
        "manager",
    ),
    "start_event": (lambda w, a: services.start_event(w.event, actor=a), "manager"),
    "finish_event": (lambda w, a: services.finish_event(w.event, actor=a), "manager"),
    "register_someone_else": (
        lambda w, a: services.register_player(w.event, actor=a, player=UserFactory()),
        "staff",
    ),
    "submit_decklist": (
        lambda w, a: services.submit_decklist(w.registration, actor=a, deck_text=LEGAL_DECK),
        "self",
    ),
    "drop_player": (lambda w, a: services.drop_player(w.registration, actor=a), "self"),
    "reenter": (lambda w, a: services.reenter(w.dropped, actor=a), "self"),
    "add_late_entry": (
        lambda w, a: services.add_late_entry(
            w.event, actor=a, player=UserFactory(), deck_text=LEGAL_DECK
        ),
        "staff",
    ),
    "generate_round": (lambda w, a: services.generate_round(w.event, actor=a), "manager"),
    "edit_pairing": (
        lambda w, a: services.edit_pairing(w.round_4, actor=a, tables={}, reason="x"),
        "manager",
    ),
    "repair_round": (lambda w, a: services.repair_round(w.round_4, actor=a), "manager"),
    "publish_round": (lambda w, a: services.publish_round(w.round_4, actor=a), "manager"),
    "start_round_clock": (lambda w, a: services.start_round_clock(w.round_4, actor=a), "manager"),
    "close_round": (lambda w, a: services.close_round(w.round_4, actor=a), "manager"),
    "report_result": (
        lambda w, a: services.report_result(w.match, actor=a, games=[], expected_version=1),
        "participant",
    ),
    "confirm_result": (
        lambda w, a: services.confirm_result(w.match, actor=a, expected_version=1),
        "participant",
    ),
    "dispute_result": (
        lambda w, a: services.dispute_result(w.match, actor=a, expected_version=1, reason="x"),
        "participant",
    ),
    "override_result": (
        lambda w, a: services.override_result(
            w.match, actor=a, expected_version=1, record="2-0", reason="x"
        ),
        "staff",
    ),
    "issue_penalty": (
        lambda w, a: services.issue_penalty(
            w.registration, actor=a, kind="warning", infraction="x"
        ),
        "staff",
    ),
    "generate_top_cut": (lambda w, a: services.generate_top_cut(w.event, actor=a), "manager"),
    "advance_bracket": (lambda w, a: services.advance_bracket(w.event, actor=a), "manager"),
}
REFUSAL_CODES = {
    "manager": "not_manager",
    "owner": "not_organizer",
    "staff": "not_staff",
    "self": "not_own_registration",
    "participant": "not_participant",
}


def _assert_refused(world, actor, name):
    call, needs = SERVICE_CALLS[name]
    counts = (
        AuditEntry.objects.count(),
        Registration.objects.count(),
        Round.objects.count(),
        Penalty.objects.count(),
    )
    with pytest.raises(services.NotAllowed) as raised:
        call(world, actor)
    assert raised.value.code == REFUSAL_CODES[needs]
    assert (
        AuditEntry.objects.count(),
        Registration.objects.count(),
        Round.objects.count(),
        Penalty.objects.count(),
    ) == counts


@pytest.mark.parametrize("name", sorted(SERVICE_CALLS))
def test_every_service_refuses_an_outsider(world, outsider, name):
    _assert_refused(world, outsider, name)


@pytest.mark.parametrize(
    "name", sorted(n for n, (_, needs) in SERVICE_CALLS.items() if needs in ("manager", "owner"))
)
def test_judges_cannot_run_the_event(world, name):
    _assert_refused(world, world.judge, name)


@pytest.mark.parametrize(
    "name", sorted(n for n, (_, needs) in SERVICE_CALLS.items() if needs == "owner")
)
def test_co_organizers_cannot_manage_staff(world, name):
    _assert_refused(world, world.co_organizer, name)


@pytest.mark.parametrize(
    "name",
    sorted(n for n, (_, needs) in SERVICE_CALLS.items() if needs in ("manager", "owner", "staff")),
)
def test_players_cannot_do_staff_work(world, name):
    _assert_refused(world, world.players[2], name)


def test_a_player_cannot_act_for_another_player(world):
    other = world.players[3]
    for name in ("submit_decklist", "drop_player", "reenter"):
        _assert_refused(world, other, name)
