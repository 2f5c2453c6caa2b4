"""Review fixes of issue #13: a deck check refuses a counted printing the format bans on
the event's day (rule 1−2−1), the API's one-step penalty for a deck check finds the match
of the check's round, and stored games are read with the event's game's end rules (a
Cross Universe game with HP 40 is a game, not CrossOver's hp_above_maximum)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tests.cardpool.test_game_rules_13 import cross_universe  # noqa: F401
from tournaments import services
from tournaments.infractions import load_builtin_infractions
from tournaments.models import Penalty
from tournaments.services import deck_checks, results

from .factories import register_all

pytestmark = pytest.mark.django_db

# 50 cards; 狡猾フィーリア registered without a printing (any printing may be played, but
# its βedition printing is banned from 2002-04-01; the event is in 2026).
REGISTERED = "4 森原 さとみ\n4 狡猾フィーリア\n42 スワティ\nサイドボード\n5 スワティ\n"
COUNTED_BETA = "4 森原 さとみ\n4 狡猾フィーリア (β)\n42 スワティ\nサイドボード\n5 スワティ\n"
# 4 狡猾フィーリア in the deck for 4 スワティ; the sideboard holds none of them.
EXTRA_CARDS = "4 森原 さとみ\n8 狡猾フィーリア\n38 スワティ\nサイドボード\n5 スワティ\n"


@pytest.fixture
def checked(staffed_event, organizer, make_players):
    load_builtin_infractions()
    event = staffed_event
    registrations = register_all(event, make_players(4), REGISTERED)
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    event.refresh_from_db()
    return event, registrations, round_


def text_of(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


# --- 1. counted printings the format refuses on the event's day (1−2−1) -------------------


def test_deck_check_1_2_1_counted_beta_printing_is_a_discrepancy(checked, judge):
    _event, registrations, round_ = checked
    check = deck_checks.record_deck_check(
        registrations[0], actor=judge, counted_text=COUNTED_BETA, round_=round_
    )
    assert check.ok is False
    [item] = check.result["discrepancies"]
    assert item["code"] == "COUNTED_BANNED"
    assert item["rule"] == "1−2−1"
    assert item["found_printing"] == "beta"
    assert item["message_en"] == (
        "4 狡猾フィーリア counted as βedition printings, which are banned on 2026-05-16 "
        "(rule 1−2−1)."
    )
    assert item["message_ja"] == (
        "〔狡猾フィーリア〕4枚がβedition版でした。2026-05-16時点で禁止されている版です"
        "（ルール1−2−1）。"
    )


def test_deck_check_1_2_1_counted_per_card_with_the_beta_printing(checked, judge):
    _event, registrations, _round = checked
    cards = [
        deck_checks.CountedCard("森原 さとみ", main=4),
        deck_checks.CountedCard("狡猾フィーリア", printing="β", main=4),
        deck_checks.CountedCard("スワティ", main=42, side=5),
    ]
    check = deck_checks.record_deck_check(registrations[0], actor=judge, cards=cards)
    assert check.ok is False
    assert [d["code"] for d in check.result["discrepancies"]] == ["COUNTED_BANNED"]
    # The base printing is fine.
    cards[1] = deck_checks.CountedCard("狡猾フィーリア", printing="base", main=4)
    assert deck_checks.record_deck_check(registrations[1], actor=judge, cards=cards).ok


# --- 4. an extra card is not a swap --------------------------------------------------------


def test_deck_check_1_2_4_extra_cards_are_not_swapped_in(checked, judge):
    event, registrations, _round = checked
    check = deck_checks.record_deck_check(registrations[0], actor=judge, counted_text=EXTRA_CARDS)
    assert check.ok is False
    assert check.result["swapped_in"] == []
    assert check.result["swapped_out"] == []
    client = Client()
    client.force_login(judge)
    url = reverse("tournaments:deck_check_detail", args=[event.pk, check.pk])
    page = text_of(client.get(url, HTTP_ACCEPT_LANGUAGE="en"))
    assert "Swapped into the deck" not in page
    assert "Extra: 4 × 狡猾フィーリア was found but is not registered" in page


def test_deck_check_page_counts_one_card_in_the_singular(checked, judge):
    event, registrations, _round = checked
    one_in_sideboard = "4 森原 さとみ\n4 狡猾フィーリア\n42 スワティ\nサイドボード\n1 スワティ\n"
    check = deck_checks.record_deck_check(
        registrations[0], actor=judge, counted_text=one_in_sideboard
    )
    assert deck_checks.summary(check, "en").startswith(
        "The sideboard has 1 card, but the registered sideboard has 5."
    )
    client = Client()
    client.force_login(judge)
    url = reverse("tournaments:deck_check_detail", args=[event.pk, check.pk])
    page = text_of(client.get(url, HTTP_ACCEPT_LANGUAGE="en"))
    assert "1 card counted, 5 registered" in page
    assert "50 cards counted, 50 registered" in page
    assert "1 cards" not in page


# --- 2. the API's penalty takes the match of the check's round -----------------------------


def test_api_deck_check_penalty_defaults_to_the_match_of_the_checks_round(checked, judge):
    event, registrations, round_ = checked
    check = deck_checks.record_deck_check(
        registrations[0], actor=judge, counted_text=EXTRA_CARDS, round_=round_
    )
    match = round_.matches.get(participants__registration=registrations[0])
    client = APIClient()
    client.force_login(judge)
    response = client.post(
        f"/api/v1/events/{event.pk}/deck-checks/{check.pk}/penalty/", {}, format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["kind"] == "game_loss"
    penalty = Penalty.objects.get(deck_check=check)
    assert penalty.match_id == match.pk


def test_api_deck_check_penalty_without_a_round_still_needs_the_match(checked, judge):
    event, registrations, _round = checked
    check = deck_checks.record_deck_check(registrations[0], actor=judge, counted_text=EXTRA_CARDS)
    client = APIClient()
    client.force_login(judge)
    response = client.post(
        f"/api/v1/events/{event.pk}/deck-checks/{check.pk}/penalty/", {}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "match_required"


# --- 3. stored games under the event's game's end rules ------------------------------------


def test_match_page_shows_a_cross_universe_game_with_hp_40(cross_universe):  # noqa: F811
    event, _round, match = cross_universe
    games = [{"end": "hp_zero", "hp": [40, 0]}, {"end": "hp_zero", "hp": [35, 0]}]
    services.report_result(
        match, actor=match.player1.player, games=games, expected_version=match.version
    )
    client = Client()
    client.force_login(match.player1.player)
    url = reverse("tournaments:match", args=[event.pk, match.pk])
    page = text_of(client.get(url, HTTP_ACCEPT_LANGUAGE="en"))
    assert "Game 1: you won" in page
    assert "Game 2: you won" in page
    mine = text_of(client.get(reverse("tournaments:my_match", args=[event.pk])))
    assert "Game 1: you won" in mine


def test_record_with_penalty_games_reads_them_with_the_events_rules(
    cross_universe,  # noqa: F811
    monkeypatch,
):
    _event, _round, match = cross_universe
    seen = []
    real = results.adjudicate_game

    def spy(report, **options):
        seen.append(options.get("rules"))
        return real(report, **options)

    monkeypatch.setattr(results, "adjudicate_game", spy)
    match.games = [{"end": "penalty", "penalized": [False, True], "penalty": 1}]
    match.save(update_fields=["games"])
    services.report_result(
        match, actor=match.player1.player, record="2-0", expected_version=match.version
    )
    assert seen
    assert all(rules is not None and rules.max_hp is None for rules in seen)


def test_new_deck_check_page_says_one_card_in_the_singular(
    staffed_event, organizer, judge, make_players
):
    # A registered sideboard of one card (2−1−3 counts it): never "1 cards".
    event = staffed_event
    deck = "4 森原 さとみ\n4 狡猾フィーリア\n42 スワティ\nサイドボード\n1 スワティ\n"
    [registration] = register_all(event, make_players(1), deck)
    client = Client()
    client.force_login(judge)
    url = reverse("tournaments:deck_check_new", args=[event.pk, registration.pk])
    assert "Registered cards: 50 in the deck, 1 in the sideboard." in text_of(
        client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    )
    assert "登録: デッキ50枚、サイドボード1枚。" in text_of(
        client.get(url, HTTP_ACCEPT_LANGUAGE="ja")
    )
