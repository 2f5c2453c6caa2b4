"""Issue 24: one reader for every entry point. The same bytes go through the check page,
``POST /api/v1/decks/check/``, ``manage.py check_deck`` and the registration form, and all
four give one report. Before, the API read a list starting with a byte-order mark as an
unknown card plus the rest, the command (which decoded with ``utf-8-sig``) as the whole
list, and the registration form dropped leading blank lines, so its line numbers were not
the page's.

Rulebook 1−2−3 (a deck of 50 cards or more, at most 4 of a name counting the sideboard)
and 1−2−4 (a sideboard of 0 cards is allowed): the counts must be the ones the player
wrote, wherever the list was pasted.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse

from cardpool.models import CardType
from tests.factories import CardFactory, PrintingFactory
from tests.tournaments.factories import EVENT_DATE, UserFactory, open_event
from tournaments.models import Registration

pytestmark = pytest.mark.django_db

EVENTS = [f"汎用イベント{index:02d}" for index in range(1, 12)]

# A shop's list as saved by a Windows editor: a byte-order mark, CRLF line ends, rules,
# group headings with counts, counts after the names, "no sideboard" written out.
SHOP_LIST = (
    "\ufeff【メインデッキ 50枚】\r\n"
    "−−−−−−−−−−−−\r\n"
    "【キャラクター 8枚】\r\n"
    "森原 さとみ×4枚\r\n"
    "狡猾フィーリア [base] x4\r\n"
    "====\r\n"
    "■イベント（42）\r\n"
    + "".join(f"{name} ×４\r\n" for name in EVENTS[:10])
    + f"{EVENTS[10]} 2枚\r\n"
    "・・・\r\n"
    "サイドボード：なし\r\n"
).encode()

# Two blank lines, a byte-order mark on the first card, and a line that cannot be read (4).
UNREADABLE_LIST = (
    "\r\n\r\n\ufeff4 森原 さとみ\r\n4 ！？\r\n"
    + "".join(f"4 {name}\r\n" for name in EVENTS[:10])
    + f"2 {EVENTS[10]}\r\n4 狡猾フィーリア [base]\r\n"
).encode()


@pytest.fixture
def events(game, sets, cards):
    for name in EVENTS:
        card = CardFactory(game=game, name=name, card_type=CardType.EVENT)
        PrintingFactory(card=card, set=sets["base"])


@pytest.fixture
def event(crossover, events):
    return open_event(UserFactory(username="organizer"), crossover)


def summary(report: dict) -> dict:
    return {
        "legal": report["legal"],
        "main_count": report["main_count"],
        "sideboard_count": report["sideboard_count"],
        "violations": [
            (v["code"], tuple(v["lines"]), v["message_en"]) for v in report["violations"]
        ],
        "notices": [(n["code"], tuple(n["lines"])) for n in report["notices"]],
    }


def via_page(client, data: bytes) -> dict:
    cache.clear()  # the page and the API share one throttle budget per client
    response = client.post(
        reverse("decks:check"),
        {"format": "crossover", "as_of": EVENT_DATE.isoformat(), "decklist": data.decode()},
    )
    assert response.status_code == 200
    return response.context["report"].as_dict()


def via_api(client, data: bytes) -> dict:
    cache.clear()
    response = client.post(
        "/api/v1/decks/check/",
        {"format": "crossover", "as_of": EVENT_DATE.isoformat(), "decklist": data.decode()},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    return response.json()


def via_command(data: bytes, tmp_path) -> dict:
    path = tmp_path / "deck.txt"
    path.write_bytes(data)  # the bytes as saved, mark and CRLF included
    out = io.StringIO()
    status = 0
    try:
        call_command(
            "check_deck", str(path), "--format", "crossover", "--as-of",
            EVENT_DATE.isoformat(), "--json", stdout=out,
        )  # fmt: skip
    except SystemExit as exited:
        status = exited.code
    report = json.loads(out.getvalue())
    assert status == (0 if report["legal"] else 1)
    return report


def via_registration(client, event, data: bytes) -> dict:
    player = UserFactory(username="reader")
    client.force_login(player)
    response = client.post(
        reverse("tournaments:register", args=[event.pk]),
        {"deck": "", "decklist": data.decode()},
    )
    client.logout()
    if response.status_code == 302:
        return Registration.objects.get(event=event, player=player).deck_report
    assert response.status_code == 200
    return response.context["report"].as_dict()


def every_entry_point(client, event, data: bytes, tmp_path) -> list[dict]:
    return [
        summary(via_page(client, data)),
        summary(via_api(client, data)),
        summary(via_command(data, tmp_path)),
        summary(via_registration(client, event, data)),
    ]


def test_one_reader_24_1_2_3_shop_list_is_50_cards_everywhere(client, event, tmp_path):
    page, api, command, registration = every_entry_point(client, event, SHOP_LIST, tmp_path)
    assert page == {
        "legal": True,
        "main_count": 50,
        "sideboard_count": 0,
        "violations": [],
        "notices": [],
    }
    assert api == page
    assert command == page
    assert registration == page
    # The registration was made with the list as pasted.
    stored = Registration.objects.get(event=event, player__username="reader")
    assert stored.deck_text == SHOP_LIST.decode()


def test_one_reader_24_unreadable_line_has_the_same_number_everywhere(client, event, tmp_path):
    page, api, command, registration = every_entry_point(client, event, UNREADABLE_LIST, tmp_path)
    assert page == {
        "legal": False,
        "main_count": 50,
        "sideboard_count": 0,
        "violations": [
            (
                "PARSE_ERROR",
                (4,),
                "Line 4 (“4 ！？”) cannot be read: no card name on this line. Write a card as "
                "“4 Name”, “4x Name”, “Name ×4” or “Name 4枚”, and a heading as “サイドボード” "
                "or “Sideboard (15)”.",
            )
        ],
        "notices": [],
    }
    assert api == page
    assert command == page
    assert registration == page
    assert not Registration.objects.filter(event=event).exists()


@pytest.mark.parametrize("invisible", ["\ufeff", "\u200b", "\u2060\ufeff"])
def test_one_reader_24_1_2_3_invisible_lead_character_on_every_line(
    client, event, tmp_path, invisible
):
    # Some shops' exports put the mark (or a zero-width space) before every line.
    data = "".join(f"{invisible}{line}\n" for line in SHOP_LIST.decode().splitlines())
    results = every_entry_point(client, event, data.encode(), tmp_path)
    assert [(r["legal"], r["main_count"], r["sideboard_count"]) for r in results] == [
        (True, 50, 0)
    ] * 4
