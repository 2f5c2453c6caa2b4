"""Player pages: my registration, register with a decklist, my match, report, confirm,
dispute. Every POST changes state only through the services (checked by its audit entry)."""

import pytest
from django.urls import reverse

from tests.decks.conftest import LEGAL_DECK
from tests.tournaments.factories import open_event, register_all
from tournaments import services
from tournaments.models import AuditEntry, Match, MatchStatus, Registration

pytestmark = pytest.mark.django_db

ILLEGAL_DECK = "4 森原 さとみ\n10 スワティ\n"


def text_of(response) -> str:
    return response.content.decode()


@pytest.fixture
def running(organizer, crossover, make_players):
    """Four players, round 1 published and its clock running."""
    event = open_event(organizer, crossover)
    players = make_players(4)
    registrations = register_all(event, players)
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    services.start_round_clock(round_, actor=organizer)
    match = Match.objects.filter(round=round_).order_by("table").first()
    player1 = match.player1.player
    player2 = match.player2.player
    return event, match, player1, player2, registrations


@pytest.mark.parametrize("name", ["my_registration", "register", "my_match"])
def test_player_pages_redirect_anonymous_to_login(client_for, staffed_event, name):
    url = reverse(f"tournaments:{name}", args=[staffed_event.pk])
    response = client_for().get(url)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={url}"


def test_register_with_legal_deck(client_for, staffed_event, outsider):
    url = reverse("tournaments:register", args=[staffed_event.pk])
    response = client_for(outsider).post(url, {"decklist": LEGAL_DECK})
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:my_registration", args=[staffed_event.pk])
    registration = Registration.objects.get(event=staffed_event, player=outsider)
    assert registration.status == "registered"
    assert (
        AuditEntry.objects.filter(
            event=staffed_event, action="registration.created", object_id=registration.pk
        ).count()
        == 1
    )
    page = text_of(client_for(outsider).get(response["Location"]))
    assert '<span class="badge">Registered</span>' in page
    assert '<div class="verdict legal">' in page
    assert "<dt>Deck</dt><dd>50</dd>" in page


def test_register_with_illegal_deck_shows_report_and_registers_nothing(
    client_for, staffed_event, outsider
):
    url = reverse("tournaments:register", args=[staffed_event.pk])
    response = client_for(outsider).post(url, {"decklist": ILLEGAL_DECK})
    assert response.status_code == 200
    body = text_of(response)
    assert "The decklist is not legal for this event: nothing was saved." in body
    assert '<div class="verdict illegal">' in body
    assert "<dt>Deck</dt><dd>14</dd>" in body
    assert "<h2>Problems</h2>" in body
    assert not Registration.objects.filter(event=staffed_event, player=outsider).exists()
    assert not AuditEntry.objects.filter(
        event=staffed_event, action="registration.created"
    ).exists()


def test_register_twice_shows_the_error(client_for, staffed_event, outsider):
    services.register_player(staffed_event, actor=outsider, deck_text=LEGAL_DECK)
    url = reverse("tournaments:register", args=[staffed_event.pk])
    body = text_of(client_for(outsider).post(url, {"decklist": LEGAL_DECK}))
    assert "You are already registered for this event." in body


def test_register_in_draft_event_is_404(client_for, organizer, outsider, crossover):
    from tests.tournaments.factories import new_event

    event = new_event(organizer, crossover)
    url = reverse("tournaments:register", args=[event.pk])
    assert client_for(outsider).post(url, {"decklist": LEGAL_DECK}).status_code == 404


def test_my_registration_for_non_player(client_for, staffed_event, outsider):
    body = text_of(
        client_for(outsider).get(reverse("tournaments:my_registration", args=[staffed_event.pk]))
    )
    assert "You are not registered for this event." in body
    assert reverse("tournaments:register", args=[staffed_event.pk]) in body


def test_my_match_shows_opponent_and_table(client_for, running):
    event, match, player1, player2, _ = running
    body = text_of(client_for(player1).get(reverse("tournaments:my_match", args=[event.pk])))
    assert f"<dt>Table</dt><dd>{match.table}</dd>" in body
    assert f"<dt>Opponent</dt><dd>{player2.username}</dd>" in body
    assert f">You vs {player2.username}</h2>" in body
    assert ">Report the result</h2>" in body
    assert "<summary>Report game by game</summary>" in body
    other = text_of(client_for(player2).get(reverse("tournaments:my_match", args=[event.pk])))
    assert f"<dt>Opponent</dt><dd>{player1.username}</dd>" in other


def _games_post(version, *games):
    data = {"expected_version": version}
    for number, game in enumerate(games, 1):
        for key, value in game.items():
            data[f"game{number}_{key}"] = value
    return data


def test_report_confirm_flow(client_for, running):
    event, match, player1, player2, _ = running
    report_url = reverse("tournaments:report_result", args=[event.pk, match.pk])
    data = _games_post(
        match.version,
        {"end": "hp_zero", "hp1": 12, "hp2": 0},
        {"end": "concession", "conceded": "2"},
    )
    response = client_for(player1).post(report_url, data)
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:match", args=[event.pk, match.pk])
    match.refresh_from_db()
    assert (match.status, match.record_text, match.outcome) == (
        MatchStatus.REPORTED,
        "2-0-0",
        "player1",
    )
    assert AuditEntry.objects.filter(action="match.reported", object_id=match.pk).count() == 1
    page = text_of(client_for(player2).get(reverse("tournaments:my_match", args=[event.pk])))
    # From player 2's side, with each game.
    assert "<strong>You lost 0–2</strong>" in page
    assert "<li>Game 1: you lost — your HP reached 0</li>" in page
    assert "<li>Game 2: you lost — you conceded</li>" in page
    assert "Confirm: you lost 0–2" in page
    confirm_url = reverse("tournaments:confirm_result", args=[event.pk, match.pk])
    response = client_for(player2).post(confirm_url, {"expected_version": match.version})
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == MatchStatus.CONFIRMED
    assert AuditEntry.objects.filter(action="match.confirmed", object_id=match.pk).count() == 1


def test_report_with_invalid_games_shows_engine_error(client_for, running):
    event, match, player1, _, _ = running
    url = reverse("tournaments:report_result", args=[event.pk, match.pk])
    data = _games_post(match.version, {"end": "hp_zero", "hp1": 5, "hp2": 5})
    response = client_for(player1).post(url, data)
    assert response.status_code == 400
    body = text_of(response)
    assert (
        '<ul class="errors" role="alert"><li>Game 1: The ending says a player&#x27;s HP '
        "reached 0, but neither HP is 0.</li></ul>"
    ) in body
    assert '<details class="match-games-form" id="report-games-' in body
    assert "open>" in body
    match.refresh_from_db()
    assert (match.status, match.version) == (MatchStatus.PENDING, 1)
    assert not AuditEntry.objects.filter(action="match.reported").exists()


def test_report_with_stale_version_shows_conflict(client_for, running):
    event, match, player1, _, _ = running
    url = reverse("tournaments:report_result", args=[event.pk, match.pk])
    data = _games_post(match.version + 5, {"end": "hp_zero", "hp1": 12, "hp2": 0})
    body = text_of(client_for(player1).post(url, data))
    assert "Someone else changed this match first." in body


def test_dispute_flow(client_for, running):
    event, match, player1, player2, _ = running
    match = services.report_result(
        match, actor=player1, games=[{"end": "hp_zero", "hp": [12, 0]}], expected_version=1
    )
    url = reverse("tournaments:dispute_result", args=[event.pk, match.pk])
    response = client_for(player2).post(
        url, {"expected_version": match.version, "reason": "I won game 1"}
    )
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == MatchStatus.DISPUTED
    entry = AuditEntry.objects.get(action="match.disputed", object_id=match.pk)
    assert entry.reason == "I won game 1"


@pytest.mark.parametrize("name", ["report_result", "confirm_result", "dispute_result"])
def test_result_posts_by_outsider_are_403(client_for, running, outsider, name):
    event, match, *_ = running
    url = reverse(f"tournaments:{name}", args=[event.pk, match.pk])
    data = {"expected_version": match.version, "reason": "x", "game1_end": "time"}
    assert client_for(outsider).post(url, data).status_code == 403
    match.refresh_from_db()
    assert match.version == 1


def test_result_post_by_other_player_is_403(client_for, running):
    event, match, *_, registrations = running
    other = next(r for r in registrations if r.pk not in (match.player1_id, match.player2_id))
    url = reverse("tournaments:report_result", args=[event.pk, match.pk])
    data = _games_post(1, {"end": "hp_zero", "hp1": 12, "hp2": 0})
    assert client_for(other.player).post(url, data).status_code == 403


def test_result_get_is_not_allowed(client_for, running):
    event, match, player1, *_ = running
    url = reverse("tournaments:report_result", args=[event.pk, match.pk])
    assert client_for(player1).get(url).status_code == 405
