"""Standings from stored results (engine standings with the per-player working), and the
selectors the lists use: their content and a query count that does not grow with the
number of players."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.decks.conftest import LEGAL_DECK
from tournaments import policy, selectors, services, snapshots
from tournaments.models import Match, RegistrationStatus

from .factories import UserFactory, open_event, play_round, register_all

pytestmark = pytest.mark.django_db


def test_standings_after_round_3(event_after_round_3):
    built = event_after_round_3
    standings = services.compute_standings(built.event)
    assert standings.rounds == 3
    assert standings.tiebreak_names == (
        "opponents_match_win_pct",
        "game_win_pct",
        "opponents_game_win_pct",
    )
    assert len(standings.rows) == 8  # the dropped player keeps a place
    points = [line.match_points for line in standings.rows]
    assert points == sorted(points, reverse=True)
    assert standings.rows[0].rank == 1
    for line in standings.rows:
        assert line.match_points == 3 * line.wins + line.draws
    dropped = next(line for line in standings.rows if line.registration == built.dropped)
    assert dropped.dropped is True
    assert dropped.wins + dropped.losses + dropped.draws == 2
    total_wins = sum(line.wins for line in standings.rows)
    total_losses = sum(line.losses for line in standings.rows)
    byes = sum(line.byes for line in standings.rows)
    assert total_wins - byes == total_losses
    # Same number of points, same figures → same rank.
    for a, b in zip(standings.rows, standings.rows[1:], strict=False):
        if (a.match_points, a.tiebreakers) == (b.match_points, b.tiebreakers):
            assert a.rank == b.rank
        else:
            assert b.rank > a.rank


def test_standings_explain_names_the_opponents(event_after_round_3):
    built = event_after_round_3
    standings = services.compute_standings(built.event)
    leader = standings.rows[0].registration
    working = standings.explain(leader.pk)
    opponents = {line.opponent for line in working.opponents}
    played = set()
    for match in Match.objects.filter(participants__registration=leader).exclude(player2=None):
        played.add(match.player2_id if match.player1_id == leader.pk else match.player1_id)
    assert opponents == played
    assert [name for name, _ in working.tiebreakers] == list(standings.tiebreak_names)
    assert working.rank == 1


def test_standings_through_an_earlier_round(event_after_round_3):
    standings = services.compute_standings(event_after_round_3.event, through_round=1)
    assert standings.rounds == 1
    assert max(line.wins + line.losses + line.draws for line in standings.rows) == 1


def test_standings_pokemon_profile(organizer, crossover, make_players):
    event = open_event(organizer, crossover, tiebreak_profile="pokemon", swiss_rounds=2)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    standings = services.compute_standings(event)
    assert standings.tiebreak_names == ("opponents_win_pct", "opponents_opponents_win_pct")
    assert [line.match_points for line in standings.rows] == [3, 3, 0, 0]


def test_standings_leave_out_withdrawn_and_waitlisted_and_count_missed_rounds(
    organizer, crossover, make_players
):
    event = open_event(organizer, crossover, capacity=4, swiss_rounds=3)
    registrations = register_all(event, make_players(5))
    assert registrations[4].status == RegistrationStatus.WAITLISTED
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    services.update_event(event, actor=organizer, capacity=5)
    late = services.add_late_entry(
        event, actor=organizer, player=UserFactory(username="late"), deck_text=LEGAL_DECK
    )
    assert late.pk != registrations[4].pk
    play_round(event, organizer)
    standings = services.compute_standings(event)
    ids = standings.order()
    assert registrations[4].pk not in ids
    line = next(line for line in standings.rows if line.registration == late)
    assert line.missed_rounds == 1
    assert standings.missed_rounds_are_losses is True
    # The missed round is a 0-2 loss in the late player's own record (round 2 was played).
    assert line.wins + line.losses + line.draws == 2
    assert line.losses >= 1
    explanation = standings.explain(late.pk)
    assert len(explanation.opponents) == 1  # the missed round has no opponent


def test_standings_without_losses_for_missed_rounds(organizer, crossover, make_players):
    event = open_event(
        organizer, crossover, capacity=5, swiss_rounds=3, late_entry_policy="nothing"
    )
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    late = services.add_late_entry(
        event, actor=organizer, player=UserFactory(username="late"), deck_text=LEGAL_DECK
    )
    play_round(event, organizer)
    line = next(
        line for line in services.compute_standings(event).rows if line.registration == late
    )
    assert line.missed_rounds == 1
    assert line.wins + line.losses + line.draws == 1


# --- selectors ----------------------------------------------------------------------------


def built_event(organizer, fmt, players, *, rounds=2, name="Event"):
    event = open_event(organizer, fmt, name=name, capacity=len(players), swiss_rounds=rounds)
    register_all(event, players)
    services.start_event(event, actor=organizer)
    for _ in range(rounds):
        play_round(event, organizer)
    return event


def count_queries(function) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as context:
        result = function()
        if hasattr(result, "__iter__") and not isinstance(result, dict):
            result = list(result)
    return len(context.captured_queries), result


@pytest.fixture
def small_and_large(organizer, crossover, make_players):
    small = built_event(organizer, crossover, make_players(10, "small"), name="Small")
    large = built_event(organizer, crossover, make_players(100, "large"), name="Large")
    return small, large


def test_selector_query_counts_do_not_grow_with_players(small_and_large, organizer):
    small, large = small_and_large
    viewer = UserFactory(username="viewer")
    cases = {
        "standings": lambda e: selectors.standings(viewer, e).rows,
        "registrations": lambda e: [
            r.player.username for r in selectors.registration_list(viewer, e)
        ],
        "pairings": lambda e: [
            (m.player1.player.username, m.player2 and m.player2.player.username)
            for m in selectors.pairings(viewer, e.rounds.get(number=2))
        ],
        "pairings_by_name": lambda e: snapshots.pairings(e, e.rounds.get(number=2)).by_name(),
        "rounds": lambda e: [
            (r.number, r.open_match_count) for r in selectors.round_list(viewer, e)
        ],
        "audit_log": lambda e: [
            (a.actor and a.actor.username) for a in selectors.audit_log(organizer, e)
        ],
        "decklists": lambda e: [r.deck_text for r in selectors.decklist_list(organizer, e)],
        "bracket": lambda e: selectors.bracket(viewer, e),
        "events": lambda e: [(x.name, x.registered_count) for x in selectors.event_list(viewer)],
    }
    counts = {}
    for name, read in cases.items():
        small_count, _ = count_queries(lambda read=read: read(small))
        large_count, _ = count_queries(lambda read=read: read(large))
        counts[name] = (small_count, large_count)
        assert small_count == large_count, name
    assert counts["standings"] == (4, 4)  # access: 2, registrations: 1, results: 1
    assert counts["registrations"] == (3, 3)


def test_standings_selector_for_a_draft_event_is_none(organizer, crossover):
    from .factories import new_event

    draft = new_event(organizer, crossover)
    assert selectors.standings(AnonymousUser(), draft) is None
    assert selectors.standings(organizer, draft).rows == []


def test_pairings_by_name_lists_every_player_once(event_after_round_3):
    built = event_after_round_3
    round_3 = built.event.rounds.get(number=3)
    lines = snapshots.pairings(built.event, round_3).by_name()
    assert len(lines) == 7
    names = [line.name for line in lines]
    assert names == sorted(names, key=str.casefold)
    bye = [line for line in lines if line.opponent is None]
    assert len(bye) == 1


def test_pairings_of_an_unpublished_round_are_hidden_from_players(event_after_round_3):
    built = event_after_round_3
    draft = services.generate_round(built.event, actor=built.organizer)
    assert list(selectors.pairings(built.players[0], draft)) == []
    assert len(list(selectors.pairings(built.judge, draft))) == 4


def test_current_match_and_outstanding(event_after_round_3):
    built = event_after_round_3
    round_4 = services.generate_round(built.event, actor=built.organizer)
    registration = Match.objects.filter(round=round_4).exclude(player2=None).first().player1
    assert selectors.current_match(registration).round.number == 3  # round 4 not published
    services.publish_round(round_4, actor=built.organizer)
    match = selectors.current_match(registration)
    assert match.round == round_4
    access = policy.access_for(built.judge, built.event)
    outstanding = list(selectors.outstanding_matches(built.judge, built.event, access))
    assert len(outstanding) == 3
    services.report_result(
        match,
        actor=registration.player,
        games=[{"end": "concession", "conceded": [True, False]}] * 2,
        expected_version=match.version,
    )
    opponent = match.player2 if match.player1_id == registration.pk else match.player1
    services.dispute_result(
        match, actor=opponent.player, expected_version=match.version + 1, reason="no"
    )
    assert selectors.outstanding_matches(built.judge, built.event).first().pk == match.pk
    assert list(selectors.outstanding_matches(built.players[1], built.event)) == []
