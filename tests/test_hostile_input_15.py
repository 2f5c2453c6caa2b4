"""U+0000 (NUL) in any input is refused with a 400, the same on SQLite and PostgreSQL
(issue #15: on PostgreSQL a NUL in a lookup value was a 500; imports stored it on SQLite and
crashed on PostgreSQL). config/nul.py answers before any view; the importers refuse it by
row or line (tests/cardpool/test_import_hostile_15.py for cards, rules below)."""

from __future__ import annotations

import datetime as dt
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import RequestFactory
from django.utils import translation

from cardpool.models import Game
from config.nul import nul_field
from decks.models import Deck
from rules.models import RulesDocument
from rules.parsing import ParseError, parse_document
from tests.decks.conftest import LEGAL_DECK, cards, crossover, formats, sets  # noqa: F401
from tournaments import services
from tournaments.models import Event

pytestmark = pytest.mark.django_db

NUL = "\x00"


@pytest.fixture
def organizer(django_user_model):
    return django_user_model.objects.create_user("organizer", password="pw")


@pytest.fixture
def organizer_client(client, organizer):
    client.force_login(organizer)
    return client


def refused(response, field: str) -> None:
    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid_input",
        "message": f"{field} contains a NUL character (U+0000), which is not allowed",
        "details": {"field": field},
    }


def post_json(client, url: str, data: dict):
    return client.post(url, json.dumps(data), content_type="application/json")


# --- the API: the four lookups that were a 500 on PostgreSQL -------------------------


def test_nul_15_deck_check_format_is_refused(client, crossover):  # noqa: F811
    response = post_json(
        client, "/api/v1/decks/check/", {"format": f"crossover{NUL}", "decklist": LEGAL_DECK}
    )
    refused(response, "format")


def test_nul_15_event_create_is_refused_and_nothing_created(organizer_client, crossover):  # noqa: F811
    data = {"name": "Spring Open", "format": f"cross{NUL}over", "date": "2026-05-16"}
    refused(post_json(organizer_client, "/api/v1/events/", {**data, "capacity": 8}), "format")
    named = {**data, "format": "crossover", "name": f"Spring{NUL} Open", "capacity": 8}
    refused(post_json(organizer_client, "/api/v1/events/", named), "name")
    assert Event.objects.count() == 0


def test_nul_15_deck_create_is_refused_and_nothing_stored(organizer_client, crossover):  # noqa: F811
    data = {"name": "Red", "format": "crossover", "decklist": LEGAL_DECK + f"\n1 森原{NUL}さとみ"}
    refused(post_json(organizer_client, "/api/v1/decks/", data), "decklist")
    assert Deck.objects.count() == 0


def test_nul_15_audit_action_filter_is_refused(organizer_client, organizer, crossover):  # noqa: F811
    event = services.create_event(
        organizer=organizer,
        format=crossover,
        name="Spring Open",
        date=dt.date(2026, 5, 16),
        capacity=8,
    )
    url = f"/api/v1/events/{event.pk}/audit/"
    assert organizer_client.get(url, {"action": "event.create"}).status_code == 200
    refused(organizer_client.get(url, {"action": f"event{NUL}"}), "action")


def test_nul_15_api_path_and_query_name_are_refused(client):
    refused(client.get("/api/v1/decks/%00/"), "path")
    refused(client.get("/api/v1/cards/", {f"q{NUL}": "x"}), "q\\u0000")


@pytest.mark.parametrize("method", ["put", "patch"])
def test_nul_15_form_encoded_put_and_patch_are_checked(client, method):
    send = getattr(client, method)
    response = send(
        "/api/v1/decks/1/", "name=a%00b", content_type="application/x-www-form-urlencoded"
    )
    refused(response, "name")


def test_nul_15_escaped_backslash_is_text_not_nul(client, crossover):  # noqa: F811
    # "\\u0000" in JSON is a backslash and "u0000": ordinary text, checked as usual.
    response = client.post(
        "/api/v1/decks/check/",
        '{"format": "crossover", "decklist": "1 \\\\u0000"}',
        content_type="application/json",
    )
    assert response.status_code == 200
    unknown = [v for v in response.json()["violations"] if v["code"] == "UNKNOWN_CARD"]
    assert [v["cards"] for v in unknown] == [["\\u0000"]]


# --- pages: a plain 400 page in the reader's language --------------------------------


def test_nul_15_page_form_field_is_refused_with_a_plain_page(client, crossover):  # noqa: F811
    data = {"format": crossover.pk, "decklist": f"4 森原{NUL}さとみ"}
    response = client.post("/decks/check/", data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert response["Content-Type"] == "text/html; charset=utf-8"
    text = response.content.decode()
    assert "<h1>Bad request</h1>" in text
    assert "decklist contains a NUL character (U+0000), which is not allowed." in text


def test_nul_15_page_query_is_refused_in_japanese(client):
    response = client.get("/cards/", {"q": f"森{NUL}"}, HTTP_ACCEPT_LANGUAGE="ja")
    assert response.status_code == 400
    text = response.content.decode()
    assert '<html lang="ja">' in text
    assert "<h1>不正なリクエスト</h1>" in text
    assert "q にNUL文字（U+0000）が含まれています。使えない文字です。" in text


def test_nul_15_clean_requests_pass(client, crossover):  # noqa: F811
    assert client.get("/cards/", {"q": "森原"}).status_code == 200
    response = post_json(
        client, "/api/v1/decks/check/", {"format": "crossover", "decklist": LEGAL_DECK}
    )
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"players": [{"name": "a"}, {"name": f"b{NUL}"}]}, "players.1.name"),
        ({"a": {f"k{NUL}": 1}}, "a.k\\u0000"),
        ([f"{NUL}"], "0"),
        (f"{NUL}", "body"),
        ({"a": "\\u0000"}, None),
    ],
)
def test_nul_15_json_field_path(body, field):
    request = RequestFactory().post("/api/v1/x/", json.dumps(body), content_type="application/json")
    assert nul_field(request) == field


# --- the rules importer: refused by line ---------------------------------------------


RULES_TEXT = "CrossOver Basic Rules\n\n1. Deck\n1-1. Size\nFifty cards.\n"


def test_nul_15_rules_parse_refuses_nul_with_its_line():
    with pytest.raises(ParseError) as excinfo:
        parse_document(RULES_TEXT.replace("Fifty", f"Fif{NUL}ty"))
    assert str(excinfo.value) == (
        "line 5 contains a NUL character (U+0000), which cannot be stored"
    )


def test_nul_15_import_rules_command_exits_1_and_writes_nothing(tmp_path):
    Game.objects.get_or_create(slug="crossover", defaults={"name": "CrossOver"})
    path = tmp_path / "rules.txt"
    path.write_text(RULES_TEXT.replace("Size", f"Si{NUL}ze"), encoding="utf-8")
    with translation.override("en"), pytest.raises(CommandError) as excinfo:
        call_command("import_rules", str(path), "--game", "crossover", stdout=io.StringIO())
    assert excinfo.value.returncode == 1
    assert str(excinfo.value) == (
        "rules.txt: line 4 contains a NUL character (U+0000), which cannot be stored; "
        "nothing was imported."
    )
    assert RulesDocument.objects.count() == 0
