"""The player's hub: the home page (live and upcoming events, "my events" with the current
match and one tap to it, the events a user runs), landing there after login, the event
page's own-status panel, why registration is closed, the players count, and registering
with a saved deck."""

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from decks import services as deck_services
from tests.decks.conftest import BETA_DECK, LEGAL_DECK
from tests.tournaments.factories import (
    games_for,
    new_event,
    open_event,
    play_round,
    register_all,
)
from tests.tournaments.pages.test_player_pages import OTHER_DECK
from tournaments import services
from tournaments.models import Event, Match, Registration, RegistrationStatus

pytestmark = pytest.mark.django_db

HOME = "/"


def text_of(response) -> str:
    return response.content.decode()


def section(body: str, element_id: str) -> str:
    """The HTML of the element with ``element_id`` up to its closing tag (sections and
    articles do not nest with their own kind here)."""
    start = body.index(f'id="{element_id}"')
    tag = body.rfind("<", 0, start)
    name = re.match(r"<(\w+)", body[tag:]).group(1)
    return body[tag : body.index(f"</{name}>", start) + len(name) + 3]


@pytest.fixture
def round_one(organizer, crossover, make_players):
    """Four players; round 1 published with its clock running; nothing reported."""
    event = open_event(organizer, crossover, name="Summer Cup")
    players = make_players(4)
    register_all(event, players)
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    services.start_round_clock(round_, actor=organizer)
    match = Match.objects.filter(round=round_).order_by("table").first()
    return event, match, match.player1.player, match.player2.player


def _events_for_home(organizer, crossover, make_players, count: int, prefix: str):
    """``count`` running events where the same player is at a table of round 1, and one
    open for registration where they are registered."""
    player = make_players(1, prefix=f"{prefix}-me")[0]
    upcoming = open_event(organizer, crossover, name=f"{prefix} upcoming")
    register_all(upcoming, [player])
    for number in range(count):
        event = open_event(organizer, crossover, name=f"{prefix} live {number}")
        register_all(event, [player, *make_players(3, prefix=f"{prefix}-{number}-")])
        services.start_event(event, actor=organizer)
        round_ = services.generate_round(event, actor=organizer)
        services.publish_round(round_, actor=organizer)
    return player


# --- home: signed out ----------------------------------------------------------------


def test_home_for_a_visitor_lists_live_and_upcoming_events(
    client_for, organizer, crossover, make_players, round_one
):
    event, *_ = round_one
    upcoming = open_event(organizer, crossover, name="Autumn Open", capacity=8)
    register_all(upcoming, make_players(2, prefix="autumn"))
    new_event(organizer, crossover, name="Secret Draft")
    body = text_of(client_for().get(HOME))
    assert 'id="my-events"' not in body
    assert '<h1 id="welcome-title">CrossOver tournaments</h1>' in body
    for name in ("decks:check", "cardpool:card_list", "rules:index", "signup", "login"):
        assert f'href="{reverse(name)}"' in body
    live = section(body, "live-events")
    page = reverse("tournaments:event_detail", args=[event.pk])
    assert f'<a href="{page}">Summer Cup</a>' in live
    assert '<span class="badge badge--ok">Swiss rounds</span>' in live
    assert "<dt>Players</dt><dd>4 players</dd>" in live
    assert "<dt>Date</dt><dd>2026-05-16</dd>" in live
    assert "Autumn Open" not in live
    coming = section(body, "upcoming-events")
    assert "Autumn Open" in coming
    assert '<span class="badge badge--info">Registration open</span>' in coming
    assert "<dt>Players</dt><dd>2 players</dd>" in coming
    assert "Secret Draft" not in body
    assert f'href="{reverse("tournaments:event_list")}">All events</a>' in body


def test_home_leaves_out_finished_events(client_for, organizer, crossover, make_players):
    event = open_event(organizer, crossover, name="Old Cup", swiss_rounds=1)
    register_all(event, make_players(2))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    services.finish_event(event, actor=organizer)
    body = text_of(client_for().get(HOME))
    assert "Old Cup" not in body
    assert "No event is under way right now." in body


def test_home_counts_players_who_dropped_after_playing(client_for, event_after_round_3):
    # Eight players, one dropped after round 2: still eight players of the event.
    body = text_of(client_for().get(HOME))
    assert "<dt>Players</dt><dd>8 players</dd>" in section(body, "live-events")


def test_home_query_count_is_fixed_for_visitors(
    client_for, organizer, crossover, make_players, django_assert_num_queries
):
    client = client_for()
    open_event(organizer, crossover, name="One")
    # the events, then their players counted (cold), then only the events (counts cached
    # per event revision)
    with django_assert_num_queries(2):
        assert client.get(HOME).status_code == 200
    with django_assert_num_queries(1):
        assert client.get(HOME).status_code == 200
    for number in range(3):
        event = open_event(organizer, crossover, name=f"More {number}")
        register_all(event, make_players(2, prefix=f"more{number}-"))
        services.start_event(event, actor=organizer)
    with django_assert_num_queries(2):
        body = text_of(client.get(HOME))
    assert body.count('class="panel event-card"') == 4
    assert body.count("2 players") == 3  # each started event's count, not a stale one
    with django_assert_num_queries(1):
        client.get(HOME)


# --- home: signed in -------------------------------------------------------------------


def test_home_shows_my_current_match_with_one_tap_to_report(client_for, round_one):
    event, match, player1, player2 = round_one
    body = text_of(client_for(player1).get(HOME))
    mine = section(body, "my-events")
    assert body.index('id="my-events"') < body.index('id="live-events"')
    # the event's part refreshes itself, and knows which revision it shows
    revision = Event.objects.get(pk=event.pk).revision.number
    assert (
        f'<article id="my-event-{event.pk}" class="panel panel--highlight my-event" '
        f'data-live="{reverse("tournaments:live", args=[event.pk])}" '
        f'data-live-watch="rounds" data-revision="{revision}">' in mine
    )
    assert "Summer Cup" in mine
    assert f"Round 1 · table {match.table} · against {player2.username}" in mine
    assert '<span class="badge badge--info">No result yet</span>' in mine
    report = reverse("tournaments:match", args=[event.pk, match.pk])
    assert f'<a class="button button--primary" href="{report}">Report result</a>' in mine


def test_home_shows_the_result_from_each_players_side(client_for, round_one):
    event, match, player1, player2 = round_one
    match = services.report_result(
        match, actor=player1, games=games_for("2-1"), expected_version=match.version
    )
    mine = section(text_of(client_for(player1).get(HOME)), "my-events")
    assert "You reported 2-1: waiting for your opponent" in mine
    assert f'href="{reverse("tournaments:my_match", args=[event.pk])}">My match</a>' in mine
    theirs = section(text_of(client_for(player2).get(HOME)), "my-events")
    assert "Your opponent reported 1-2: confirm or dispute it" in theirs
    answer = reverse("tournaments:match", args=[event.pk, match.pk])
    assert f'<a class="button button--primary" href="{answer}">Confirm or dispute</a>' in theirs
    services.confirm_result(match, actor=player2, expected_version=match.version)
    assert "You won 2-1" in section(text_of(client_for(player1).get(HOME)), "my-events")
    assert "You lost 1-2" in section(text_of(client_for(player2).get(HOME)), "my-events")


def test_home_my_events_before_the_event_starts(client_for, staffed_event, outsider):
    services.register_player(staffed_event, actor=outsider, deck_text=LEGAL_DECK)
    mine = section(text_of(client_for(outsider).get(HOME)), "my-events")
    assert "The event has not started yet." in mine
    assert reverse("tournaments:my_registration", args=[staffed_event.pk]) in mine
    assert '<span class="badge badge--ok">Registered</span>' in mine


def test_home_without_events_of_mine_says_so(client_for, outsider):
    mine = section(text_of(client_for(outsider).get(HOME)), "my-events")
    assert "You are not playing in an event now." in mine
    assert "data-live" not in mine


def test_home_staff_see_the_events_they_run(client_for, staffed_event, judge, outsider):
    draft = new_event(staffed_event.organizer, staffed_event.format, name="Next Month")
    organizer_body = text_of(client_for(staffed_event.organizer).get(HOME))
    run = section(organizer_body, "events-i-run")
    for event in (staffed_event, draft):
        dashboard = reverse("tournaments:dashboard", args=[event.pk])
        assert f'href="{dashboard}">Staff dashboard</a>' in run
    judge_run = section(text_of(client_for(judge).get(HOME)), "events-i-run")
    assert reverse("tournaments:dashboard", args=[staffed_event.pk]) in judge_run
    assert reverse("tournaments:dashboard", args=[draft.pk]) not in judge_run
    assert 'id="events-i-run"' not in text_of(client_for(outsider).get(HOME))


def test_home_with_two_events_of_mine_refreshes_each_on_its_own(
    client_for, organizer, crossover, make_players
):
    player = _events_for_home(organizer, crossover, make_players, 1, "two")
    mine = section(text_of(client_for(player).get(HOME)), "my-events")
    assert mine.count('class="panel panel--highlight my-event"') == 2
    # the event under way first, though the upcoming one was created first
    assert mine.index("two live 0") < mine.index("two upcoming")
    lives = re.findall(r'<article id="my-event-(\d+)"[^>]* data-live="/events/(\d+)/live/"', mine)
    assert len(lives) == 2
    assert all(article == event for article, event in lives)


def test_home_query_count_does_not_grow_with_my_events(
    client_for, organizer, crossover, make_players, django_assert_num_queries
):
    few = _events_for_home(organizer, crossover, make_players, 1, "few")
    many = _events_for_home(organizer, crossover, make_players, 3, "many")
    counts = []
    client_for().get(HOME)  # the events' player counts, cached per event revision
    for player in (few, many):
        client = client_for(player)
        # session, user, events, my registrations, their matches, events I run
        with django_assert_num_queries(6) as captured:
            body = text_of(client.get(HOME))
        counts.append(len(captured.captured_queries))
        assert body.count("Report result") == (1 if player == few else 3)
    assert counts[0] == counts[1]


def test_login_lands_on_the_hub_unless_next_is_given(client, outsider):
    response = client.post(reverse("login"), {"username": "outsider", "password": "pw"})
    assert (response.status_code, response["Location"]) == (302, "/")
    client.logout()
    response = client.post(
        reverse("login"), {"username": "outsider", "password": "pw", "next": "/events/"}
    )
    assert (response.status_code, response["Location"]) == (302, "/events/")


# --- the event page --------------------------------------------------------------------


def test_event_page_shows_the_players_own_status_first(client_for, round_one):
    event, match, player1, player2 = round_one
    body = text_of(client_for(player1).get(reverse("tournaments:event_detail", args=[event.pk])))
    panel = section(body, "my-status")
    assert panel.startswith(
        '<section id="my-status" class="panel panel--highlight" aria-labelledby="my-status-title"'
        f' data-live="{reverse("tournaments:live", args=[event.pk])}"'
        f' data-revision="{Event.objects.get(pk=event.pk).revision.number}">'
    )
    assert body.index('id="my-status"') < body.index("<dt>Format</dt>")
    assert '<span class="badge badge--ok">Registered</span>' in panel
    assert '<span class="badge badge--ok">Submitted · legal</span>' in panel
    assert f"Round 1 · table {match.table} · against {player2.username}" in panel
    report = reverse("tournaments:match", args=[event.pk, match.pk])
    assert f'<a class="button button--primary" href="{report}">Report result</a>' in panel
    # the facts follow, for everyone alike
    assert "<dt>Players</dt><dd>4 players</dd>" in body


def test_event_page_panel_is_only_for_the_player(client_for, round_one, outsider, organizer):
    event, *_ = round_one
    url = reverse("tournaments:event_detail", args=[event.pk])
    for client in (client_for(), client_for(outsider), client_for(organizer)):
        assert 'id="my-status"' not in text_of(client.get(url))


def test_event_page_panel_before_the_event_starts(client_for, staffed_event, outsider):
    deadline = timezone.make_aware(dt.datetime(2030, 5, 15, 20, 0))
    services.update_event(staffed_event, actor=staffed_event.organizer, decklist_deadline=deadline)
    services.register_player(staffed_event, actor=outsider)
    url = reverse("tournaments:event_detail", args=[staffed_event.pk])
    panel = section(text_of(client_for(outsider).get(url)), "my-status")
    assert '<span class="badge badge--warn">Missing</span>' in panel
    assert "<dt>Decklist deadline</dt><dd>2030-05-15 20:00</dd>" in panel
    decklist = reverse("tournaments:my_decklist", args=[staffed_event.pk])
    assert f'<a class="button button--primary" href="{decklist}">Submit your decklist</a>' in panel
    assert "Round 1" not in panel


def test_event_page_panel_of_a_dropped_player(client_for, event_after_round_3):
    w = event_after_round_3
    url = reverse("tournaments:event_detail", args=[w.event.pk])
    panel = section(text_of(client_for(w.players[7]).get(url)), "my-status")
    assert '<span class="badge badge--muted">Dropped</span> after round 2' in panel
    assert "Report result" not in panel


def test_event_page_panel_costs_at_most_three_queries(
    client_for, round_one, django_assert_max_num_queries, django_assert_num_queries
):
    event, _match, player1, _player2 = round_one
    url = reverse("tournaments:event_detail", args=[event.pk])
    client_for().get(url)  # the shared facts are cached
    client = client_for(player1)
    # session, user, the event with the viewer's access; the registration, the match
    with django_assert_max_num_queries(3 + 3):
        assert "Report result" in text_of(client.get(url))
    # the panel is kept for the revision: later requests cost the frame only
    with django_assert_num_queries(3):
        assert "Report result" in text_of(client.get(url))


def test_event_page_panel_follows_a_report(client_for, round_one):
    event, match, player1, player2 = round_one
    url = reverse("tournaments:event_detail", args=[event.pk])
    client = client_for(player2)
    assert "No result yet" in section(text_of(client.get(url)), "my-status")
    services.report_result(
        match, actor=player1, games=games_for("2-0"), expected_version=match.version
    )
    panel = section(text_of(client.get(url)), "my-status")
    assert "Your opponent reported 0-2: confirm or dispute it" in panel


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        ("running", "Registration is closed: the event has started."),
        ("finished", "Registration is closed: the event is over."),
    ],
)
def test_event_page_says_why_registration_is_closed(
    client_for, organizer, crossover, make_players, outsider, state, reason
):
    event = open_event(organizer, crossover, swiss_rounds=1)
    register_all(event, make_players(2))
    services.start_event(event, actor=organizer)
    if state == "finished":
        play_round(event, organizer)
        services.finish_event(event, actor=organizer)
    register = reverse("tournaments:register", args=[event.pk])
    for client in (client_for(), client_for(outsider)):
        body = text_of(client.get(reverse("tournaments:event_detail", args=[event.pk])))
        assert f'<p class="notice">{reason}</p>' in body
        assert register not in body
    page = text_of(client_for(outsider).get(register))
    assert f'<p class="notice">{reason}</p>' in page
    main = page[page.index("<main") : page.index("</main>")]
    assert "<form" not in main


def test_event_page_after_the_registration_deadline(client_for, staffed_event, outsider):
    deadline = timezone.now() - dt.timedelta(minutes=5)
    services.update_event(
        staffed_event, actor=staffed_event.organizer, registration_deadline=deadline
    )
    body = text_of(
        client_for(outsider).get(reverse("tournaments:event_detail", args=[staffed_event.pk]))
    )
    when = timezone.localtime(deadline).strftime("%Y-%m-%d %H:%M")
    assert f'<p class="notice">Registration closed at {when}.</p>' in body
    assert reverse("tournaments:register", args=[staffed_event.pk]) not in body


def test_event_page_open_registration_offers_the_form(client_for, staffed_event, outsider):
    body = text_of(
        client_for(outsider).get(reverse("tournaments:event_detail", args=[staffed_event.pk]))
    )
    register = reverse("tournaments:register", args=[staffed_event.pk])
    assert f'<a class="button button--primary" href="{register}">Register</a>' in body
    assert 'class="notice"' not in body


def test_event_page_counts_registered_and_waitlisted(
    client_for, organizer, crossover, make_players
):
    event = open_event(organizer, crossover, capacity=2)
    players = make_players(4)
    registrations = register_all(event, players)
    services.drop_player(registrations[3], actor=players[3])  # a waitlisted player withdraws
    body = text_of(client_for().get(reverse("tournaments:event_detail", args=[event.pk])))
    assert "<dt>Players</dt><dd>2 players registered · capacity 2 · 1 on the waitlist</dd>" in body
    services.drop_player(registrations[0], actor=players[0])  # a seat frees: promoted
    body = text_of(client_for().get(reverse("tournaments:event_detail", args=[event.pk])))
    assert "<dt>Players</dt><dd>2 players registered · capacity 2</dd>" in body


def test_event_page_counts_a_withdrawal_before_round_one_out(
    client_for, organizer, crossover, make_players
):
    event = open_event(organizer, crossover, capacity=8)
    players = make_players(6)
    registrations = register_all(event, players)
    services.drop_player(registrations[5], actor=players[5])
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    services.drop_player(registrations[4], actor=players[4])
    body = text_of(client_for().get(reverse("tournaments:event_detail", args=[event.pk])))
    assert "<dt>Players</dt><dd>5 players · 1 dropped</dd>" in body


# --- registering with a saved deck -----------------------------------------------------


def test_register_page_offers_only_my_decks(client_for, staffed_event, outsider, crossover):
    mine, _ = deck_services.save_deck(owner=outsider, fmt=crossover, name="Fire", text=LEGAL_DECK)
    deck_services.save_deck(
        owner=staffed_event.organizer, fmt=crossover, name="Not Yours", text=LEGAL_DECK
    )
    body = text_of(
        client_for(outsider).get(reverse("tournaments:register", args=[staffed_event.pk]))
    )
    assert f'<option value="{mine.pk}">Fire ({escape(crossover.name)})</option>' in body
    assert "Not Yours" not in body


def test_register_with_a_saved_deck(client_for, staffed_event, outsider, crossover):
    deck, _ = deck_services.save_deck(owner=outsider, fmt=crossover, name="Fire", text=LEGAL_DECK)
    url = reverse("tournaments:register", args=[staffed_event.pk])
    response = client_for(outsider).post(url, {"deck": deck.pk, "decklist": ""})
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:my_registration", args=[staffed_event.pk])
    registration = Registration.objects.get(event=staffed_event, player=outsider)
    assert registration.status == RegistrationStatus.REGISTERED
    assert registration.deck == deck
    assert registration.deck_text == deck_services.deck_text(deck.entries.all())
    assert registration.deck_report["legal"] is True
    assert registration.deck_report["main_count"] == 50
    assert registration.deck_report["as_of"] == "2026-05-16"


def test_register_with_an_illegal_saved_deck_shows_the_report(
    client_for, staffed_event, outsider, crossover
):
    # Legal the day before the ban, saved then; not on the event's date.
    deck, _ = deck_services.save_deck(
        owner=outsider, fmt=crossover, name="Beta", text=BETA_DECK, as_of=dt.date(2002, 3, 31)
    )
    url = reverse("tournaments:register", args=[staffed_event.pk])
    response = client_for(outsider).post(url, {"deck": deck.pk})
    assert response.status_code == 200
    body = text_of(response)
    assert "The decklist is not legal for this event: nothing was saved." in body
    assert '<div class="verdict illegal">' in body
    assert not Registration.objects.filter(event=staffed_event, player=outsider).exists()


def test_register_with_another_users_deck_is_refused(
    client_for, staffed_event, outsider, crossover, make_players
):
    (owner,) = make_players(1, prefix="owner")
    deck, _ = deck_services.save_deck(owner=owner, fmt=crossover, name="Fire", text=LEGAL_DECK)
    url = reverse("tournaments:register", args=[staffed_event.pk])
    response = client_for(outsider).post(url, {"deck": deck.pk})
    assert response.status_code == 200
    assert "Select a valid choice." in text_of(response)
    assert not Registration.objects.filter(event=staffed_event).exists()


def test_register_needs_a_deck_or_a_list(client_for, staffed_event, outsider):
    url = reverse("tournaments:register", args=[staffed_event.pk])
    response = client_for(outsider).post(url, {"decklist": "  "})
    assert response.status_code == 200
    assert "Choose one of your decks or paste a decklist." in text_of(response)
    assert not Registration.objects.filter(event=staffed_event).exists()


def test_register_page_of_a_registered_player_shows_no_form(client_for, staffed_event, outsider):
    services.register_player(staffed_event, actor=outsider, deck_text=LEGAL_DECK)
    page = text_of(
        client_for(outsider).get(reverse("tournaments:register", args=[staffed_event.pk]))
    )
    assert '<p class="notice">You are already registered for this event.</p>' in page
    mine = reverse("tournaments:my_registration", args=[staffed_event.pk])
    assert f'<a class="button button--primary" href="{mine}">My registration</a>' in page
    assert "<form" not in page[page.index("<main") : page.index("</main>")]


def test_withdrawn_player_may_register_again_from_the_page(client_for, staffed_event, outsider):
    registration = services.register_player(staffed_event, actor=outsider, deck_text=LEGAL_DECK)
    services.drop_player(registration, actor=outsider)
    url = reverse("tournaments:register", args=[staffed_event.pk])
    assert 'name="decklist"' in text_of(client_for(outsider).get(url))
    response = client_for(outsider).post(url, {"decklist": LEGAL_DECK})
    assert response.status_code == 302
    registration.refresh_from_db()
    assert registration.status == RegistrationStatus.REGISTERED


def test_event_list_selector_counts_players_and_seats(event_after_round_3):
    from tournaments import selectors

    [event] = selectors.event_list(None)
    # eight players, one dropped after round 2: seven seats taken, eight players
    assert (event.entrant_count, event.registered_count) == (8, 7)


def test_event_list_page_counts_players_once_the_event_runs(client, event_after_round_3):
    """The events list says "8 players" for a running event where one player dropped after
    round 2 (they played, so they count, as on the event page and in the standings)."""
    response = client.get(reverse("tournaments:event_list"))
    body = response.content.decode()
    assert "8 players" in body
    assert "registered of" not in body


def test_my_decklist_can_switch_to_a_saved_deck(client_for, staffed_event, outsider, crossover):
    registration = services.register_player(staffed_event, actor=outsider, deck_text=LEGAL_DECK)
    deck, _ = deck_services.save_deck(owner=outsider, fmt=crossover, name="Fire", text=LEGAL_DECK)
    url = reverse("tournaments:my_decklist", args=[staffed_event.pk])
    client = client_for(outsider)
    page = text_of(client.get(url))
    assert f'<option value="{deck.pk}">Fire ({escape(crossover.name)})</option>' in page
    response = client.post(url, {"deck": deck.pk, "decklist": ""})
    assert response.status_code == 302
    registration.refresh_from_db()
    assert registration.deck == deck
    assert registration.deck_text == deck_services.deck_text(deck.entries.all())
    assert registration.deck_report["legal"] is True


def test_my_decklist_refuses_another_users_deck(
    client_for, staffed_event, outsider, crossover, make_players
):
    registration = services.register_player(staffed_event, actor=outsider, deck_text=LEGAL_DECK)
    (owner,) = make_players(1, prefix="owner")
    deck, _ = deck_services.save_deck(owner=owner, fmt=crossover, name="Fire", text=OTHER_DECK)
    url = reverse("tournaments:my_decklist", args=[staffed_event.pk])
    response = client_for(outsider).post(url, {"deck": deck.pk})
    assert response.status_code == 200
    assert "Select a valid choice." in text_of(response)
    registration.refresh_from_db()
    assert (registration.deck_id, registration.deck_text) == (None, LEGAL_DECK)
