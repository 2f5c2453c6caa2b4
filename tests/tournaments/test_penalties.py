"""tournaments.services.penalties: warnings, game and match losses in the match record,
disqualification."""

import pytest

from tournaments import services
from tournaments.models import (
    AuditEntry,
    Match,
    MatchStatus,
    Penalty,
    Registration,
    RegistrationStatus,
    ResultReport,
)

from .factories import games_for, hp_win, open_event, register_all, report_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(organizer, judge, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=3)
    services.add_staff(event, actor=organizer, user=judge, role="judge")
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    match = Match.objects.select_related("player1__player", "player2__player").get(
        round=round_, table=1
    )
    return event, round_, match


def test_warning_is_recorded_with_one_audit_entry(published, judge):
    _event, _round, match = published
    penalty = services.issue_penalty(
        match.player1, actor=judge, kind="warning", infraction="Slow play", note="first"
    )
    assert (penalty.kind, penalty.infraction, penalty.judge, penalty.note) == (
        "warning",
        "Slow play",
        judge,
        "first",
    )
    assert Match.objects.get(pk=match.pk).version == 1
    [entry] = AuditEntry.objects.filter(action="penalty.issued")
    assert (entry.object_id, entry.actor, entry.reason) == (penalty.pk, judge, "first")
    assert entry.after["kind"] == "warning"


def test_game_loss_becomes_the_first_game_of_the_match(published, judge):
    _event, _round, match = published
    penalty = services.issue_penalty(
        match.player1, actor=judge, kind="game_loss", infraction="Decklist problem", match=match
    )
    match.refresh_from_db()
    assert match.status == MatchStatus.PENDING
    assert match.version == 2
    assert match.games == [
        {
            "end": "penalty",
            "hp": [None, None],
            "deck": [None, None],
            "conceded": [False, False],
            "penalized": [True, False],
            "penalty": penalty.pk,
        }
    ]
    assert match.record_text == "0-1-0"
    # The players report the games they played after the penalty: 2-1 for player 1.
    reported = services.report_result(
        match,
        actor=match.player2.player,
        games=[hp_win(1), hp_win(1)],
        expected_version=2,
    )
    assert (reported.record_text, reported.outcome) == ("2-1-0", "player1")
    assert len(reported.games) == 3
    assert reported.games[0]["penalty"] == penalty.pk
    assert list(ResultReport.objects.values_list("kind", "match_version")) == [
        ("penalty", 2),
        ("report", 3),
    ]


def test_game_loss_after_a_result_is_refused(published, judge):
    _event, _round, match = published
    services.report_result(
        match, actor=match.player1.player, games=games_for("2-0"), expected_version=1
    )
    with pytest.raises(services.InvalidState) as raised:
        services.issue_penalty(
            match.player1, actor=judge, kind="game_loss", infraction="Tardiness", match=match
        )
    assert raised.value.code == "match_has_result"
    assert Penalty.objects.count() == 0
    assert not AuditEntry.objects.filter(action="penalty.issued").exists()


def test_match_loss_makes_a_final_0_2(published, judge):
    _event, _round, match = published
    services.issue_penalty(
        match.player2, actor=judge, kind="match_loss", infraction="Outside assistance", match=match
    )
    match.refresh_from_db()
    assert (match.status, match.record_text, match.outcome) == (
        MatchStatus.FINAL,
        "2-0-0",
        "player1",
    )
    entry = AuditEntry.objects.get(action="penalty.issued")
    assert entry.before["match"]["status"] == "pending"
    assert entry.after["match_result"]["record"] == "2-0-0"


def test_disqualification_drops_the_player_and_loses_the_current_match(published, judge, organizer):
    event, round_, match = published
    penalty = services.issue_penalty(
        match.player1, actor=judge, kind="disqualification", infraction="Cheating"
    )
    assert penalty.match == match
    registration = Registration.objects.get(pk=match.player1_id)
    assert (registration.status, registration.dropped_after_round) == (
        RegistrationStatus.DISQUALIFIED,
        1,
    )
    match.refresh_from_db()
    assert (match.status, match.outcome) == (MatchStatus.FINAL, "player2")
    report_all_but(round_, match)
    services.close_round(round_, actor=organizer)
    next_round = services.generate_round(event, actor=organizer)
    assert not next_round.matches.filter(participants__registration=registration).exists()
    standings = services.compute_standings(event)
    assert registration.pk not in standings.order()
    assert len(standings.rows) == 3
    assert standings.rows[0].rank == 1
    with pytest.raises(services.InvalidState) as raised:
        services.issue_penalty(registration, actor=judge, kind="warning", infraction="again")
    assert raised.value.code == "not_active"


def report_all_but(round_, skip):
    for match in (
        Match.objects.filter(round=round_)
        .exclude(pk=skip.pk)
        .select_related("player1__player", "player2__player")
    ):
        if match.player2_id is None:
            continue
        services.report_result(
            match, actor=match.player1.player, games=games_for("2-0"), expected_version=1
        )
        services.confirm_result(match, actor=match.player2.player, expected_version=2)


@pytest.mark.parametrize(
    ("kwargs", "error", "code"),
    [
        ({"kind": "yellow_card", "infraction": "x"}, services.InvalidInput, "invalid_kind"),
        ({"kind": "warning", "infraction": " "}, services.InvalidInput, "infraction_required"),
        ({"kind": "game_loss", "infraction": "x"}, services.InvalidInput, "match_required"),
        ({"kind": "match_loss", "infraction": "x"}, services.InvalidInput, "match_required"),
    ],
)
def test_penalty_input_refusals(published, judge, kwargs, error, code):
    _event, _round, match = published
    with pytest.raises(error) as raised:
        services.issue_penalty(match.player1, actor=judge, **kwargs)
    assert raised.value.code == code
    assert Penalty.objects.count() == 0


def test_penalty_on_a_match_the_player_is_not_in(published, judge):
    _event, round_, match = published
    other = Match.objects.get(round=round_, table=2)
    with pytest.raises(services.InvalidInput) as raised:
        services.issue_penalty(
            match.player1, actor=judge, kind="game_loss", infraction="x", match=other
        )
    assert raised.value.code == "not_in_match"
    assert Penalty.objects.count() == 0


def test_penalty_by_players_and_outsiders_is_refused(published, outsider):
    _event, _round, match = published
    for actor in (outsider, match.player2.player):
        with pytest.raises(services.NotAllowed) as raised:
            services.issue_penalty(match.player1, actor=actor, kind="warning", infraction="x")
        assert raised.value.code == "not_staff"
    assert Penalty.objects.count() == 0


def test_match_loss_in_a_closed_round_is_refused(published, judge, organizer):
    _event, round_, match = published
    report_all(round_)
    services.close_round(round_, actor=organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.issue_penalty(
            match.player1, actor=judge, kind="match_loss", infraction="x", match=match
        )
    assert raised.value.code == "round_not_open"


def test_disqualification_before_the_event_frees_the_seat(staffed_event, judge, make_players):
    event = staffed_event
    services.update_event(event, actor=event.organizer, capacity=2)
    first, _second, waiting = register_all(event, make_players(3))
    assert waiting.status == RegistrationStatus.WAITLISTED
    services.issue_penalty(first, actor=judge, kind="disqualification", infraction="Fraud")
    statuses = dict(Registration.objects.values_list("id", "status"))
    assert statuses[first.pk] == RegistrationStatus.DISQUALIFIED
    assert statuses[waiting.pk] == RegistrationStatus.REGISTERED
    entry = AuditEntry.objects.get(action="penalty.issued")
    assert entry.after["promoted_from_waitlist"] == [waiting.pk]
    assert entry.after["status"] == "disqualified"
    with pytest.raises(services.NotAllowed) as raised:
        services.register_player(event, actor=first.player)
    assert raised.value.code == "disqualified"
