"""Deck checks from the staff's pages (issue 13): the dashboard links the event's deck
checks (a secondary link, beside the penalty report), and a player's page links a new deck
check of that player and lists their past ones, at a fixed number of queries."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tournaments import services
from tournaments.infractions import load_builtin_infractions
from tournaments.services import deck_checks

from .factories import register_all

pytestmark = pytest.mark.django_db

# 50 cards in the deck, 5 in the sideboard (as in test_deckcheck_13).
REGISTERED = (
    "4 森原 さとみ\n2 狡猾フィーリア [base]\n44 スワティ\n"
    "サイドボード\n2 狡猾フィーリア [base]\n3 スワティ\n"
)
# One card swapped in without one out: 51 cards in the deck, 2 discrepancies.
GROWN = (
    "4 森原 さとみ\n3 狡猾フィーリア [base]\n44 スワティ\nサイドボード\n1 狡猾フィーリア [base]\n"
    "3 スワティ\n"
)


@pytest.fixture
def running(staffed_event, organizer, make_players):
    """A running event, round 1 published: four players with REGISTERED."""
    load_builtin_infractions()
    event = staffed_event
    registrations = register_all(event, make_players(4), REGISTERED)
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    event.refresh_from_db()
    return event, registrations, round_


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def text_of(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def player_page(event, registration) -> str:
    return reverse("tournaments:player_detail", args=[event.pk, registration.pk])


def test_dashboard_links_the_deck_checks_as_secondary_links(running, judge):
    event, _registrations, _round = running
    response = client_of(judge).get(reverse("tournaments:dashboard", args=[event.pk]))
    assert response.status_code == 200
    body = text_of(response)
    list_url = reverse("tournaments:deck_check_list", args=[event.pk])
    pick_url = reverse("tournaments:deck_check_pick", args=[event.pk])
    assert f'<a href="{list_url}">Deck checks</a>' in body
    assert f'<a href="{pick_url}">New deck check</a>' in body
    # plain links, not buttons
    assert not re.search(rf'<a class="[^"]*button[^"]*" href="{re.escape(pick_url)}"', body)


def test_dashboard_of_a_finished_event_offers_no_new_deck_check(running, judge):
    event, _registrations, _round = running
    event.state = "finished"
    event.save(update_fields=["state"])
    body = text_of(client_of(judge).get(reverse("tournaments:dashboard", args=[event.pk])))
    assert reverse("tournaments:deck_check_list", args=[event.pk]) in body
    assert reverse("tournaments:deck_check_pick", args=[event.pk]) not in body


def test_player_page_links_a_deck_check_of_the_player(running, judge):
    event, registrations, _round = running
    body = text_of(client_of(judge).get(player_page(event, registrations[1])))
    new_url = reverse("tournaments:deck_check_new", args=[event.pk, registrations[1].pk])
    assert (
        f'<a href="{new_url}">New deck check<span class="visually-hidden"> (player002)</span></a>'
        in body
    )
    assert "No deck check yet." in body


def test_player_page_offers_no_deck_check_for_a_dropped_player(running, judge):
    event, registrations, _round = running
    services.drop_player(registrations[2], actor=judge, reason="Ill")
    body = text_of(client_of(judge).get(player_page(event, registrations[2])))
    assert "/staff/deck-checks/new/" not in body
    assert "No deck check yet." in body


def test_player_page_lists_the_players_past_deck_checks_only(running, judge):
    event, registrations, round_ = running
    ok = deck_checks.record_deck_check(registrations[1], actor=judge, counted_text=REGISTERED)
    failed = deck_checks.record_deck_check(
        registrations[1], actor=judge, counted_text=GROWN, round_=round_
    )
    deck_checks.issue_deck_check_penalty(failed, actor=judge, infraction="x", kind="warning")
    other = deck_checks.record_deck_check(registrations[0], actor=judge, counted_text=GROWN)

    body = text_of(client_of(judge).get(player_page(event, registrations[1])))

    def detail(check):
        return reverse("tournaments:deck_check_detail", args=[event.pk, check.pk])

    section = body[body.index('<section class="player-deckchecks"') :]
    section = section[: section.index("</section>")]
    links = re.findall(r'href="([^"]+/staff/deck-checks/\d+/)"', section)
    assert links == [detail(failed), detail(ok)]  # newest first
    assert detail(other) not in body
    items = re.findall(r"<li>(.*?)</li>", section)
    assert re.sub(r"<[^>]+>", "", items[0]).endswith(
        " · Round 1 · 2 discrepancies · Penalty issued · judge"
    )
    assert re.sub(r"<[^>]+>", "", items[1]).endswith(" · OK · judge")
    assert "No deck check yet." not in section


def test_player_page_deck_checks_in_japanese(running, judge):
    event, registrations, round_ = running
    failed = deck_checks.record_deck_check(
        registrations[1], actor=judge, counted_text=GROWN, round_=round_
    )
    deck_checks.issue_deck_check_penalty(failed, actor=judge, infraction="x", kind="warning")
    client = client_of(judge)
    client.cookies["django_language"] = "ja"
    body = text_of(client.get(player_page(event, registrations[1]), HTTP_ACCEPT_LANGUAGE="ja"))
    assert '<h2 id="player-deckchecks">デッキチェック</h2>' in body
    assert "第1ラウンド" in body
    assert "ペナルティ発行済み" in body


def test_player_page_costs_the_same_queries_for_one_and_three_deck_checks(running, judge):
    event, registrations, round_ = running
    client = client_of(judge)
    url = player_page(event, registrations[1])
    deck_checks.record_deck_check(registrations[1], actor=judge, counted_text=GROWN, round_=round_)
    client.get(url)  # warm the session and caches
    with CaptureQueriesContext(connection) as one:
        assert client.get(url).status_code == 200
    for _ in range(2):
        failed = deck_checks.record_deck_check(
            registrations[1], actor=judge, counted_text=GROWN, round_=round_
        )
    deck_checks.issue_deck_check_penalty(failed, actor=judge, infraction="x", kind="warning")
    with CaptureQueriesContext(connection) as three:
        response = client.get(url)
    assert response.status_code == 200
    assert text_of(response).count("/staff/deck-checks/") >= 4  # three checks and a new one
    assert len(three.captured_queries) == len(one.captured_queries)


@pytest.mark.parametrize("who", ["outsider", "player"])
def test_player_page_with_deck_checks_refused_for_outsider_and_player(
    running, judge, outsider, who
):
    event, registrations, _round = running
    deck_checks.record_deck_check(registrations[1], actor=judge, counted_text=GROWN)
    user = outsider if who == "outsider" else registrations[1].player
    response = client_of(user).get(player_page(event, registrations[1]))
    assert response.status_code == 403
    assert "/staff/deck-checks/" not in response.content.decode()
