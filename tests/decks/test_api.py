"""The decks API: POST /api/v1/decks/check/ for anyone (throttled), and CRUD on the
caller's own decks at /api/v1/decks/."""

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone
from rest_framework.throttling import AnonRateThrottle

from decks import services
from decks.models import Deck, DeckCheck, DeckEntry
from tests.decks.conftest import BETA_DECK, DAY_BEFORE_BAN, LEGAL_DECK

pytestmark = pytest.mark.django_db

CHECK_URL = "/api/v1/decks/check/"
DECKS_URL = "/api/v1/decks/"

REPORT_KEYS = {
    "format",
    "format_version",
    "as_of",
    "legal",
    "main_count",
    "sideboard_count",
    "by_type",
    "by_element",
    "violations",
    "notices",
}


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    # The throttles count requests in the default cache, which outlives a test.
    cache.clear()
    yield
    cache.clear()


def post(client, url, data):
    return client.post(url, data, content_type="application/json")


def put(client, url, data):
    return client.put(url, data, content_type="application/json")


def detail_url(deck):
    return f"{DECKS_URL}{deck.pk}/"


def entry_rows(deck):
    return list(
        DeckEntry.objects.filter(deck=deck).values_list(
            "card__name", "printing_set__code", "count", "section"
        )
    )


@pytest.fixture
def deck(crossover, player):
    deck, _ = services.save_deck(
        owner=player, fmt=crossover, name="Mine", text=BETA_DECK, as_of=DAY_BEFORE_BAN
    )
    return deck


@pytest.fixture
def others_deck(crossover, outsider):
    deck, _ = services.save_deck(owner=outsider, fmt=crossover, name="Theirs", text=LEGAL_DECK)
    return deck


# --- check ----------------------------------------------------------------------------


def test_check_anonymous_gets_the_report(client, crossover):
    response = post(
        client, CHECK_URL, {"format": "crossover", "decklist": BETA_DECK, "as_of": "2002-04-01"}
    )
    assert response.status_code == 200
    assert response.json() == {
        "format": "crossover",
        "format_version": 1,
        "as_of": "2002-04-01",
        "legal": False,
        "main_count": 50,
        "sideboard_count": 0,
        "by_type": {"CHARACTER": 7, "NAVIGATOR": 43},
        "by_element": {"none": 3, "火": 4, "空": 43},
        "violations": [
            {
                "code": "BANNED",
                "rule": "1−2−1",
                "message": "狡猾フィーリア (βedition printing) is banned on 2002-04-01.",
                "message_en": "狡猾フィーリア (βedition printing) is banned on 2002-04-01.",
                "message_ja": "〔狡猾フィーリア〕（βedition版）は2002-04-01時点で禁止カードです。",
                "cards": ["狡猾フィーリア"],
                "lines": [2],
                "details": {"set": "beta"},
            }
        ],
        "notices": [],
    }


def test_check_legal_the_day_before_the_ban(client, crossover):
    response = post(
        client, CHECK_URL, {"format": "crossover", "decklist": BETA_DECK, "as_of": "2002-03-31"}
    )
    assert response.status_code == 200
    data = response.json()
    assert set(data) == REPORT_KEYS
    assert data["legal"] is True
    assert data["violations"] == []


def test_check_as_of_defaults_to_today(client, crossover):
    response = post(client, CHECK_URL, {"format": "crossover", "decklist": LEGAL_DECK})
    assert response.status_code == 200
    data = response.json()
    assert data["as_of"] == timezone.localdate().isoformat()
    assert data["legal"] is True
    assert (data["main_count"], data["sideboard_count"]) == (50, 0)


def test_check_keeps_line_numbers_of_leading_blank_lines(client, crossover):
    response = post(client, CHECK_URL, {"format": "crossover", "decklist": "\n\n4 ナイカード\n"})
    violations = response.json()["violations"]
    assert [(v["code"], v["lines"]) for v in violations] == [
        ("DECK_TOO_SMALL", []),
        ("UNKNOWN_CARD", [3]),
    ]


def test_check_malformed_request_gets_field_errors(client, crossover):
    response = post(client, CHECK_URL, {"format": "nope", "as_of": "2002-13-01"})
    assert response.status_code == 400
    assert response.json()["details"]["fields"] == {
        "format": ["Object with slug=nope does not exist."],
        "decklist": ["This field is required."],
        "as_of": ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."],
    }


def test_check_request_that_is_not_json_gets_400(client, crossover):
    response = client.post(CHECK_URL, "{not json", content_type="application/json")
    assert response.status_code == 400
    assert set(response.json()) == {"code", "message", "details"}
    assert response.json()["code"] == "parse_error"


def test_check_decklist_too_long_gets_400(client, crossover):
    response = post(client, CHECK_URL, {"format": "crossover", "decklist": "1 スワティ\n" * 3000})
    assert response.status_code == 400
    assert response.json()["details"]["fields"] == {
        "decklist": ["Ensure this field has no more than 20000 characters."]
    }


def test_check_anonymous_is_throttled(client, crossover, monkeypatch, player):
    monkeypatch.setattr(AnonRateThrottle, "rate", "2/min", raising=False)
    body = {"format": "crossover", "decklist": LEGAL_DECK}
    assert post(client, CHECK_URL, body).status_code == 200
    assert post(client, CHECK_URL, body).status_code == 200
    third = post(client, CHECK_URL, body)
    assert third.status_code == 429
    assert "Retry-After" in third
    # A signed-in player is counted by the (much larger) per-user rate instead.
    client.force_login(player)
    assert post(client, CHECK_URL, body).status_code == 200


# --- my decks ----------------------------------------------------------------------------


def test_decks_anonymous_is_refused(client, deck):
    assert client.get(DECKS_URL).status_code == 403
    assert client.get(detail_url(deck)).status_code == 403
    response = post(client, DECKS_URL, {"name": "x", "format": "crossover", "decklist": LEGAL_DECK})
    assert response.status_code == 403
    assert client.delete(detail_url(deck)).status_code == 403
    assert Deck.objects.count() == 1


def test_decks_list_shows_only_the_callers_decks(player_client, deck, others_deck):
    response = player_client.get(DECKS_URL)
    assert response.status_code == 200
    data = response.json()["results"]
    assert [d["id"] for d in data] == [deck.pk]
    assert data[0]["name"] == "Mine"
    assert data[0]["last_check"]["as_of"] == "2002-03-31"
    assert data[0]["last_check"]["legal"] is True


def test_decks_create_returns_201_with_entries_and_last_check(player_client, player, crossover):
    text = (
        "4 森原 さとみ\n3 狡猾フィーリア (β)\n43 スワティ\nサイドボード\n1 狡猾フィーリア [base]\n"
    )
    response = post(
        player_client, DECKS_URL, {"name": "API", "format": "crossover", "decklist": text}
    )
    assert response.status_code == 201
    deck = Deck.objects.get()
    assert (deck.owner, deck.name) == (player, "API")
    data = response.json()
    assert set(data) == {
        "id",
        "name",
        "format",
        "text",
        "entries",
        "last_check",
        "created_at",
        "updated_at",
    }
    assert data["id"] == deck.pk
    assert data["format"] == "crossover"
    assert data["text"] == (
        "4 森原 さとみ\n3 狡猾フィーリア [beta]\n43 スワティ\n\n"
        "サイドボード\n1 狡猾フィーリア [base]\n"
    )
    ids = dict(DeckEntry.objects.filter(deck=deck).values_list("card__name", "card_id"))
    assert data["entries"] == [
        {"card": "森原 さとみ", "card_id": ids["森原 さとみ"], "printing_set": None, "count": 4,
         "section": "main"},
        {"card": "狡猾フィーリア", "card_id": ids["狡猾フィーリア"], "printing_set": "beta",
         "count": 3, "section": "main"},
        {"card": "スワティ", "card_id": ids["スワティ"], "printing_set": None, "count": 43,
         "section": "main"},
        {"card": "狡猾フィーリア", "card_id": ids["狡猾フィーリア"], "printing_set": "base",
         "count": 1, "section": "side"},
    ]  # fmt: skip
    today = timezone.localdate().isoformat()
    assert data["last_check"]["as_of"] == today
    assert data["last_check"]["legal"] is False
    assert [v["code"] for v in data["last_check"]["violations"]] == ["BANNED"]
    assert (data["last_check"]["main_count"], data["last_check"]["sideboard_count"]) == (50, 1)
    assert DeckCheck.objects.get().deck == deck


def test_decks_create_with_unknown_card_gets_400_naming_the_line(player_client, crossover):
    response = post(
        player_client,
        DECKS_URL,
        {"name": "Bad", "format": "crossover", "decklist": "4 森原 さとみ\n2 ナイカード\n"},
    )
    assert response.status_code == 400
    assert response.json()["details"]["fields"] == {
        "decklist": ["line 2: UNKNOWN_CARD: Unknown card “ナイカード” on line 2."]
    }
    assert Deck.objects.count() == 0
    assert DeckEntry.objects.count() == 0


def test_decks_create_with_missing_fields_gets_400(player_client, crossover):
    response = post(player_client, DECKS_URL, {"format": "nope"})
    assert response.status_code == 400
    assert response.json()["details"]["fields"] == {
        "name": ["This field is required."],
        "format": ["Object with slug=nope does not exist."],
        "decklist": ["This field is required."],
    }


def test_decks_retrieve(player_client, deck):
    response = player_client.get(detail_url(deck))
    assert response.status_code == 200
    data = response.json()
    assert data["id"] == deck.pk
    assert data["name"] == "Mine"
    assert data["text"] == "4 森原 さとみ\n3 狡猾フィーリア [beta]\n43 スワティ\n"
    assert [(e["card"], e["printing_set"], e["count"]) for e in data["entries"]] == [
        ("森原 さとみ", None, 4),
        ("狡猾フィーリア", "beta", 3),
        ("スワティ", None, 43),
    ]
    assert data["last_check"]["as_of"] == "2002-03-31"


def test_decks_update_replaces_name_and_entries(player_client, deck):
    response = put(
        player_client,
        detail_url(deck),
        {"name": "Renamed", "format": "crossover", "decklist": "4 森原 さとみ\n46 スワティ\n"},
    )
    assert response.status_code == 200
    data = response.json()
    assert data["id"] == deck.pk
    assert data["name"] == "Renamed"
    assert data["last_check"]["legal"] is True
    deck.refresh_from_db()
    assert deck.name == "Renamed"
    assert entry_rows(deck) == [("森原 さとみ", None, 4, "main"), ("スワティ", None, 46, "main")]
    assert deck.checks.count() == 2


def test_decks_update_with_unknown_card_keeps_the_deck(player_client, deck):
    before = entry_rows(deck)
    response = put(
        player_client,
        detail_url(deck),
        {"name": "Renamed", "format": "crossover", "decklist": "4 ナイカード\n"},
    )
    assert response.status_code == 400
    assert response.json()["details"]["fields"] == {
        "decklist": ["line 1: UNKNOWN_CARD: Unknown card “ナイカード” on line 1."]
    }
    deck.refresh_from_db()
    assert deck.name == "Mine"
    assert entry_rows(deck) == before


def test_decks_delete(player_client, deck):
    response = player_client.delete(detail_url(deck))
    assert response.status_code == 204
    assert Deck.objects.count() == 0
    assert DeckEntry.objects.count() == 0
    assert player_client.get(detail_url(deck)).status_code == 404


def test_decks_of_another_user_are_404(player_client, others_deck):
    url = detail_url(others_deck)
    before = entry_rows(others_deck)
    assert player_client.get(url).status_code == 404
    response = put(
        player_client, url, {"name": "Stolen", "format": "crossover", "decklist": "50 スワティ"}
    )
    assert response.status_code == 404
    assert player_client.delete(url).status_code == 404
    others_deck.refresh_from_db()
    assert others_deck.name == "Theirs"
    assert entry_rows(others_deck) == before
    assert others_deck.checks.count() == 1
    assert Deck.objects.count() == 1


def test_decks_list_query_count(player_client, player, crossover, django_assert_num_queries):
    services.save_deck(owner=player, fmt=crossover, name="Deck 0", text=LEGAL_DECK)
    player_client.get(DECKS_URL)  # warm up
    # session, user, count, decks with format and game, checks, entries, cards, printing sets
    with django_assert_num_queries(8) as first:
        player_client.get(DECKS_URL)
    for number in range(1, 5):
        services.save_deck(owner=player, fmt=crossover, name=f"Deck {number}", text=LEGAL_DECK)
    with django_assert_num_queries(len(first.captured_queries)):
        response = player_client.get(DECKS_URL)
    assert len(response.json()["results"]) == 5


def test_openapi_schema_documents_the_check_endpoint(client, db):
    response = client.get(reverse("schema"), {"format": "json"})
    assert response.status_code == 200
    schema = response.json()
    operation = schema["paths"]["/api/v1/decks/check/"]["post"]
    # 401 a bad token, 403 a read-only one, 413 a body over the size limit (#21), 415 a
    # body that is not JSON or a form.
    assert set(operation["responses"]) == {"200", "400", "401", "403", "413", "415", "429"}
    assert operation["responses"]["400"]["description"] == "Field errors, e.g. an unknown format."
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Report"
    }
    request = schema["components"]["schemas"]["CheckRequest"]
    assert set(request["properties"]) == {"format", "decklist", "as_of"}
    assert set(request["required"]) == {"format", "decklist"}
    assert "/api/v1/decks/{id}/" in schema["paths"]


def test_check_message_follows_the_request_language(client, crossover):
    response = client.post(
        "/api/v1/decks/check/",
        {"format": "crossover", "decklist": "3 狡猾フィーリア (β)", "as_of": "2002-04-01"},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="ja",
    )
    messages = {v["code"]: v["message"] for v in response.json()["violations"]}
    assert (
        messages["BANNED"] == "〔狡猾フィーリア〕（βedition版）は2002-04-01時点で禁止カードです。"
    )
    assert messages["DECK_TOO_SMALL"] == "デッキが3枚です。50枚以上必要です。"
