"""Issue 13: player-facing deck reports show plain-language headings, not engine codes (the
codes stay in the API), and a rule citation links to its section page only when the game's
rulebook is imported."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from decks import services
from rules.models import RulesDocument, Section
from tests.decks.conftest import BETA_DECK, DAY_BEFORE_BAN
from tests.factories import CardFactory, GameFactory

pytestmark = pytest.mark.django_db

CHECK_URL = reverse("decks:check")
# Three βedition printings of 狡猾フィーリア (banned from 2002-04-01, rule 1−2−1), and a
# card with no recorded printing (a notice: its set cannot be checked).
REPORTED_DECK = BETA_DECK + "1 名無しのカード\n"


def check(client, decklist, as_of="2002-04-01", **extra):
    data = {"format": "crossover", "as_of": as_of, "decklist": decklist}
    return client.post(CHECK_URL, data, **extra)


def in_japanese(client):
    client.post(reverse("set_language"), {"language": "ja", "next": CHECK_URL})


@pytest.fixture
def nameless(game, crossover):
    return CardFactory(game=game, name="名無しのカード", card_type="ITEM")


def rulebook(game, *numbers, series="rules"):
    document = RulesDocument.objects.create(
        game=game, series=series, title="Test rulebook", version="1", style="oneline"
    )
    for order, number in enumerate(numbers, start=1):
        Section.objects.create(
            document=document,
            number=number,
            number_key=number.replace("−", "-"),
            title=f"Section {number}",
            order=order,
        )
    return document


def problems(body):
    return body.split("<h2>Problems</h2>", 1)[1] if "<h2>Problems</h2>" in body else body


def test_check_page_13_shows_headings_not_codes(client, nameless):
    body = check(client, REPORTED_DECK).content.decode()
    assert (
        '<li><strong class="report-heading">Banned card</strong> '
        '<span class="rule">rule 1−2−1</span>\n'
        '    <span class="report-message">狡猾フィーリア (βedition printing) is banned on '
        "2002-04-01.</span></li>"
    ) in body
    assert "<h2>Notes</h2>" in body
    assert (
        '<li><strong class="report-heading">Set not recorded</strong>\n'
        '    <span class="report-message">No printing of 名無しのカード is recorded, so its set '
        "could not be checked.</span></li>"
    ) in body
    # The line flag names the problem in words too.
    assert '2002-04-01.">Banned card</span>' in body
    assert "BANNED" not in body
    assert "PRINTING_UNKNOWN" not in body
    assert "<code>" not in body


def test_check_page_13_headings_in_japanese(client, nameless):
    in_japanese(client)
    body = check(client, REPORTED_DECK).content.decode()
    assert (
        '<li><strong class="report-heading">禁止カード</strong> '
        '<span class="rule">ルール1−2−1</span>\n'
        '    <span class="report-message">〔狡猾フィーリア〕（βedition版）は2002-04-01時点で'
        "禁止カードです。</span></li>"
    ) in body
    assert "<h2>確認事項</h2>" in body
    assert '<strong class="report-heading">収録セット未登録</strong>' in body
    assert '時点で禁止カードです。">禁止カード</span>' in body
    assert "BANNED" not in body


def test_api_13_keeps_the_codes(client, nameless):
    response = client.post(
        "/api/v1/decks/check/",
        {"format": "crossover", "as_of": "2002-04-01", "decklist": REPORTED_DECK},
        content_type="application/json",
    )
    assert response.status_code == 200
    data = response.json()
    assert [v["code"] for v in data["violations"]] == ["BANNED"]
    assert [n["code"] for n in data["notices"]] == ["PRINTING_UNKNOWN"]


def test_check_page_13_rule_is_plain_text_without_an_imported_rulebook(client, crossover):
    # A demo document (another series) with the same number is not the rulebook.
    rulebook(crossover.game, "1−2−1", series="demo")
    body = check(client, BETA_DECK).content.decode()
    assert '<span class="rule">rule 1−2−1</span>' in body
    assert "/rules/crossover/1-2-1/" not in body


def test_check_page_13_rule_links_to_the_imported_section(client, crossover):
    rulebook(crossover.game, "1−2−1", "1−2−3")
    body = check(client, BETA_DECK).content.decode()
    assert ('<span class="rule"><a href="/rules/crossover/1-2-1/">rule 1−2−1</a></span>') in body
    assert client.get("/rules/crossover/1-2-1/").status_code == 200


def test_check_page_13_links_only_sections_the_rulebook_has(client, crossover):
    # The rulebook has 1−2−3 (deck size) but not 1−2−1 (bans).
    rulebook(crossover.game, "1−2−3")
    body = check(client, BETA_DECK.replace("43 スワティ", "40 スワティ")).content.decode()
    assert '<a href="/rules/crossover/1-2-3/">rule 1−2−3</a>' in body
    assert '<span class="rule">rule 1−2−1</span>' in body


def test_check_page_13_another_games_rulebook_gives_no_link(client, crossover):
    rulebook(GameFactory(slug="other-game", name="Other"), "1−2−1")
    body = check(client, BETA_DECK).content.decode()
    assert '<span class="rule">rule 1−2−1</span>' in body
    assert '<a href="/rules/' not in problems(body)


def test_check_page_13_rule_links_take_one_query_whatever_the_number_of_problems(client, crossover):
    rulebook(crossover.game, "1−2−1", "1−2−3", "1−2−4")
    one = BETA_DECK  # BANNED (1−2−1)
    # BANNED, DECK_TOO_SMALL (1−2−3), SIDEBOARD_TOO_LARGE (1−2−4), TOO_MANY_COPIES (1−2−3).
    three = "5 森原 さとみ\n3 狡猾フィーリア (β)\nサイドボード\n30 スワティ\n"
    check(client, one)  # warm the site's caches
    with CaptureQueriesContext(connection) as first:
        body_one = check(client, one).content.decode()
    with CaptureQueriesContext(connection) as second:
        body_three = check(client, three).content.decode()
    assert body_one.count('<a href="/rules/crossover/') == 1
    assert body_three.count('<a href="/rules/crossover/') == 4
    assert len(second.captured_queries) == len(first.captured_queries)
    section_queries = [q for q in second.captured_queries if '"rules_section"' in q["sql"]]
    assert len(section_queries) == 1


def test_deck_page_13_shows_headings_and_links(player_client, player, crossover):
    deck, _ = services.save_deck(
        owner=player, fmt=crossover, name="Small", text="4 森原 さとみ\n", as_of=DAY_BEFORE_BAN
    )
    rulebook(crossover.game, "1−2−3")
    body = player_client.get(reverse("decks:deck_detail", args=[deck.pk])).content.decode()
    assert (
        '<li><strong class="report-heading">Deck too small</strong> '
        '<span class="rule"><a href="/rules/crossover/1-2-3/">rule 1−2−3</a></span>\n'
        '    <span class="report-message">The deck has 4 cards; it needs at least 50.</span></li>'
    ) in body
    assert "DECK_TOO_SMALL" not in body


def test_deck_page_13_in_japanese(player_client, player, crossover):
    deck, _ = services.save_deck(
        owner=player, fmt=crossover, name="Small", text="4 森原 さとみ\n", as_of=DAY_BEFORE_BAN
    )
    player_client.post(reverse("set_language"), {"language": "ja", "next": "/"})
    body = player_client.get(reverse("decks:deck_detail", args=[deck.pk])).content.decode()
    assert '<strong class="report-heading">デッキの枚数が少なすぎる</strong>' in body
    assert "デッキが4枚です。50枚以上必要です。" in body
    assert "DECK_TOO_SMALL" not in body


def test_deck_form_13_unknown_card_shows_a_heading(player_client, crossover):
    response = player_client.post(
        reverse("decks:deck_create"),
        {"name": "Bad", "format": "crossover", "decklist": "4 森原 さとみ\n2 森原さとみん\n"},
    )
    body = response.content.decode()
    assert (
        '<li><strong class="report-heading">Unknown card</strong>\n'
        '    <span class="report-message">Unknown card “森原さとみん” on line 2. '
        "Did you mean 森原 さとみ?</span></li>"
    ) in body
    assert "UNKNOWN_CARD" not in body


def test_check_page_13_unknown_card_ending_in_a_number_explains_counts(client, crossover):
    body = check(client, "森原 さとみ 4\nスワティ 46\nズワティ 3\n").content.decode()
    # The first two lines are counts; the third names no card.
    assert "<dt>Deck</dt><dd>51</dd>" in body
    assert "To give a number of copies, write “4 Name”, “4x Name”, “Name ×4” or “Name 4枚”." in (
        body
    )
    assert re.search(r'<li value="3" class="bad">', body)


@pytest.mark.parametrize(
    ("language", "heading", "rule"),
    [("en", "Deck too small", "rule 1−2−3"), ("ja", "デッキの枚数が少なすぎる", "ルール1−2−3")],
)
def test_registration_page_13_shows_headings_and_links(client, crossover, language, heading, rule):
    from tests.tournaments.factories import UserFactory, open_event

    event = open_event(UserFactory(username="organizer13"), crossover)
    rulebook(crossover.game, "1−2−3")
    client.force_login(UserFactory(username="player13"))
    if language == "ja":
        in_japanese(client)
    url = reverse("tournaments:register", args=[event.pk])
    body = client.post(url, {"decklist": "4 森原 さとみ\n10 スワティ\n"}).content.decode()
    assert (
        f'<li><strong class="report-heading">{heading}</strong> '
        f'<span class="rule"><a href="/rules/crossover/1-2-3/">{rule}</a></span>'
    ) in body
    assert "DECK_TOO_SMALL" not in body
