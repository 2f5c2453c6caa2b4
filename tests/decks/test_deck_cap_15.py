"""The decks list is paginated (page and API, 50 a page) and one account keeps at most
``DECKS_PER_USER`` decks (issue #15: 40,000 decks made the list 153 MB)."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from decks import services
from decks.models import Deck
from tests.decks.conftest import LEGAL_DECK

LIST_URL = reverse("decks:deck_list")
CREATE_URL = reverse("decks:deck_create")
API_URL = "/api/v1/decks/"


def _bulk_decks(owner, fmt, count, start=0):
    Deck.objects.bulk_create(
        Deck(owner=owner, format=fmt, name=f"Deck {start + n:03d}") for n in range(count)
    )


def _names_on_page(response) -> list[str]:
    return re.findall(r'<a href="/decks/\d+/">(Deck \d+)</a>', response.content.decode())


# --- pagination -------------------------------------------------------------------------


def test_deck_page_shows_50_and_links_the_next_page(player_client, player, crossover):
    _bulk_decks(player, crossover, 51)
    first = player_client.get(LIST_URL)
    assert len(_names_on_page(first)) == 50
    assert 'href="?page=2"' in first.content.decode()
    second = player_client.get(LIST_URL, {"page": 2})
    assert len(_names_on_page(second)) == 1
    assert set(_names_on_page(first)).isdisjoint(_names_on_page(second))


def test_deck_page_out_of_range_shows_the_last_page(player_client, player, crossover):
    _bulk_decks(player, crossover, 3)
    response = player_client.get(LIST_URL, {"page": "99999999999999999999"})
    assert response.status_code == 200
    assert len(_names_on_page(response)) == 3


def test_deck_page_query_count_same_for_1_and_60_decks(
    player_client, player, crossover, django_assert_num_queries
):
    services.save_deck(owner=player, fmt=crossover, name="Deck 0", text=LEGAL_DECK)
    player_client.get(LIST_URL)  # warm up
    # session, user, count, the page's decks, their checks
    with django_assert_num_queries(5):
        player_client.get(LIST_URL)
    _bulk_decks(player, crossover, 59, start=1)
    with django_assert_num_queries(5):
        response = player_client.get(LIST_URL)
    assert len(_names_on_page(response)) == 50


def test_deck_api_is_paginated(player_client, player, crossover):
    _bulk_decks(player, crossover, 51)
    first = player_client.get(API_URL).json()
    assert first["count"] == 51
    assert len(first["results"]) == 50
    assert first["next"].endswith("/api/v1/decks/?page=2")
    assert first["previous"] is None
    second = player_client.get(first["next"]).json()
    assert len(second["results"]) == 1


def test_deck_api_huge_page_is_json_404(player_client, player, crossover):
    _bulk_decks(player, crossover, 1)
    response = player_client.get(API_URL, {"page": "99999999999999999999"})
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_deck_api_list_query_count_same_for_1_and_5_decks(
    player_client, player, crossover, django_assert_num_queries
):
    services.save_deck(owner=player, fmt=crossover, name="Deck 0", text=LEGAL_DECK)
    player_client.get(API_URL)  # warm up
    # session, user, count, decks with format and game, checks, entries, cards, printing sets
    with django_assert_num_queries(8):
        player_client.get(API_URL)
    for number in range(1, 5):
        services.save_deck(owner=player, fmt=crossover, name=f"Deck {number}", text=LEGAL_DECK)
    with django_assert_num_queries(8):
        response = player_client.get(API_URL)
    assert response.json()["count"] == 5


def test_deck_api_list_shows_only_own_decks(player_client, player, outsider, crossover):
    _bulk_decks(outsider, crossover, 2)
    _bulk_decks(player, crossover, 1)
    body = player_client.get(API_URL).json()
    assert body["count"] == 1
    assert [deck["name"] for deck in body["results"]] == ["Deck 000"]


# --- the cap ------------------------------------------------------------------------------


@pytest.fixture
def cap_of_two(settings):
    settings.DECKS_PER_USER = 2


def test_settings_default_deck_cap_is_200():
    from config import settings as config_settings

    assert config_settings.DECKS_PER_USER == 200


def test_save_deck_beyond_the_cap_is_refused(cap_of_two, player, outsider, crossover):
    _bulk_decks(player, crossover, 2)
    with pytest.raises(services.TooManyDecks) as refused:
        services.save_deck(owner=player, fmt=crossover, name="Third", text=LEGAL_DECK)
    assert refused.value.limit == 2
    assert Deck.objects.filter(owner=player).count() == 2
    # Another account has its own allowance.
    services.save_deck(owner=outsider, fmt=crossover, name="Theirs", text=LEGAL_DECK)


def test_editing_a_deck_at_the_cap_is_allowed(cap_of_two, player, crossover):
    deck, _ = services.save_deck(owner=player, fmt=crossover, name="One", text=LEGAL_DECK)
    services.save_deck(owner=player, fmt=crossover, name="Two", text=LEGAL_DECK)
    services.save_deck(owner=player, fmt=crossover, name="Renamed", text=LEGAL_DECK, deck=deck)
    deck.refresh_from_db()
    assert deck.name == "Renamed"


def test_duplicate_beyond_the_cap_is_refused(cap_of_two, player_client, player, crossover):
    deck, _ = services.save_deck(owner=player, fmt=crossover, name="One", text=LEGAL_DECK)
    services.save_deck(owner=player, fmt=crossover, name="Two", text=LEGAL_DECK)
    response = player_client.post(reverse("decks:deck_duplicate", args=[deck.pk]), follow=True)
    assert Deck.objects.filter(owner=player).count() == 2
    assert "You already have 2 decks, the most one account may keep." in response.content.decode()


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "You already have 2 decks, the most one account may keep. Delete one"),
        ("ja", "保存できるデッキは1アカウント2個までです"),
    ],
)
def test_deck_form_beyond_the_cap_shows_the_error(
    cap_of_two, player_client, player, crossover, language, text
):
    _bulk_decks(player, crossover, 2)
    response = player_client.post(
        CREATE_URL,
        {"name": "Third", "format": "crossover", "decklist": LEGAL_DECK},
        headers={"accept-language": language},
    )
    assert response.status_code == 200
    assert text in response.content.decode()
    assert Deck.objects.filter(owner=player).count() == 2


def test_deck_api_create_beyond_the_cap_is_400_too_many_decks(
    cap_of_two, player_client, player, crossover
):
    _bulk_decks(player, crossover, 2)
    response = player_client.post(
        API_URL,
        {"name": "Third", "format": "crossover", "decklist": LEGAL_DECK},
        content_type="application/json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "too_many_decks"
    assert body["details"] == {"limit": 2}
    assert "the most one account may keep" in body["message"]
    assert Deck.objects.filter(owner=player).count() == 2


def test_too_many_decks_message_in_japanese():
    with translation.override("ja"):
        message = services.TooManyDecks(200).message
    assert message == (
        "保存できるデッキは1アカウント200個までです。新しく保存するには、どれかを削除してください。"
    )
