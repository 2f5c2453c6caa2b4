"""The metagame pages and CSV: an event's (visible with its decklists) and a format's
across events; exact CSV rows in English and Japanese, charts with their numbers, the
top cut, and query counts that do not grow with the decklists."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.tournaments.factories import new_event, open_event, register_all
from tests.tournaments.test_exports import build_tiny_event, client_for
from tests.tournaments.test_final_standings import build_top_8, expected_finished
from tournaments import services
from tournaments.models import Event, Registration, StaffRole

pytestmark = pytest.mark.django_db


def make_public(event, organizer, *, minutes_ago=1):
    return services.update_event(
        event,
        actor=organizer,
        decklists_public_from=timezone.now() - dt.timedelta(minutes=minutes_ago),
    )


def page_url(event):
    return reverse("tournaments:metagame", args=[event.pk])


def csv_url(event):
    return reverse("tournaments:metagame_csv", args=[event.pk])


def csv_lines(response) -> list[str]:
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return response.content.decode("utf-8-sig").split("\r\n")


@pytest.fixture
def tiny(organizer, crossover):
    return build_tiny_event(organizer, crossover)


# Five copies of the deck 4 森原 さとみ (火, character), 4 狡猾フィーリア (no element,
# character, base printing), 42 スワティ (空, navigator): 250 cards.
EVENT_CSV_EN = [
    "Block,Name,Card name (English),Decks,Share of decks (%),Copies,Share of copies (%),"
    "Average copies",
    "element,Sky (空),,5,100.0,210,84.0,",
    "element,Fire (火),,5,100.0,20,8.0,",
    "elements of a deck,Fire (火) + Sky (空),,5,100.0,,,",
    "card type,Navigator,,5,100.0,210,84.0,",
    "card type,Character,,5,100.0,40,16.0,",
    "card (deck),スワティ,,5,100.0,210,,42.00",
    "card (deck),森原 さとみ,,5,100.0,20,,4.00",
    "card (deck),狡猾フィーリア,,5,100.0,20,,4.00",
    "",
]


# --- who may see it ----------------------------------------------------------------------


def test_before_public_only_staff_see_the_metagame(tiny, organizer, judge, outsider):
    services.add_staff(tiny.event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    for user in (None, outsider, tiny.players[1]):
        client = client_for(user)
        assert client.get(page_url(tiny.event)).status_code == 403, user
        assert client.get(csv_url(tiny.event)).status_code == 403, user
    for user in (judge, organizer):
        page = client_for(user).get(page_url(tiny.event))
        assert page.status_code == 200
        text = page.content.decode()
        assert "only the event's staff see this page" in text
        assert csv_lines(client_for(user).get(csv_url(tiny.event))) == EVENT_CSV_EN


def test_decklists_public_in_the_future_is_still_hidden(tiny, organizer, outsider):
    make_public(tiny.event, organizer, minutes_ago=-60)
    assert client_for(outsider).get(page_url(tiny.event)).status_code == 403


def test_draft_event_is_404_for_outsiders(organizer, crossover, outsider):
    event = new_event(organizer, crossover, name="Draft")
    for user in (None, outsider):
        assert client_for(user).get(page_url(event)).status_code == 404
        assert client_for(user).get(csv_url(event)).status_code == 404
    assert client_for(organizer).get(page_url(event)).status_code == 200


def test_once_public_everyone_sees_it(tiny, organizer):
    make_public(tiny.event, organizer)
    response = client_for().get(page_url(tiny.event))
    assert response.status_code == 200
    text = response.content.decode()
    assert "only the event's staff" not in text
    assert csv_lines(client_for().get(csv_url(tiny.event))) == EVENT_CSV_EN
    assert (
        client_for().get(csv_url(tiny.event))["Content-Disposition"]
        == f'attachment; filename="event-{tiny.event.pk}-metagame.csv"'
    )


# --- what it shows ------------------------------------------------------------------------


def test_page_has_charts_with_titles_and_the_numbers_in_tables(tiny, organizer):
    make_public(tiny.event, organizer)
    text = client_for().get(page_url(tiny.event)).content.decode()
    assert '<svg viewBox="0 0 320 60" width="100%" role="img"' in text
    assert "<title>Sky (空): 100.0% (5 decks)</title>" in text
    assert "<title>Navigator: 84.0%</title>" in text
    assert '<rect x="100" y="6" width="150.00" height="18" rx="2"></rect>' in text
    # the navigator's bar is 84% of the 150 units, its value written after it
    assert '<rect x="100" y="6" width="126.00" height="18" rx="2"></rect>' in text
    assert '<text x="232.00" y="20" class="metagame-chart__value">84.0%</text>' in text
    cards = text[text.index('id="meta-cards"') :]
    cards = cards[: cards.index("</table>")]
    rows = re.findall(r'<td class="row-title">([^<]+)', cards)
    assert [row.strip() for row in rows] == ["スワティ", "森原 さとみ", "狡猾フィーリア"]
    assert '<td data-label="Average copies">42.00</td>' in cards
    assert '<td data-label="Share of decks">100.0%</td>' in cards
    assert "No top cut has been played." in text
    assert f'href="{csv_url(tiny.event)}"' in text


def test_japanese_page_and_csv(tiny, organizer):
    make_public(tiny.event, organizer)
    client = client_for()
    headers = {"Accept-Language": "ja"}
    lines = csv_lines(client.get(csv_url(tiny.event), headers=headers))
    assert lines[:4] == [
        "区分,名前,カード名（英語）,デッキ数,デッキ比率（%）,枚数,枚数比率（%）,平均枚数",
        "属性,空,,5,100.0,210,84.0,",
        "属性,火,,5,100.0,20,8.0,",
        "デッキの属性,火 + 空,,5,100.0,,,",
    ]
    assert lines[4] == "カードの種類,ナビゲーター,,5,100.0,210,84.0,"
    assert lines[6] == "カード（デッキ）,スワティ,,5,100.0,210,,42.00"
    text = client.get(page_url(tiny.event), headers=headers).content.decode()
    assert "<h1>メタゲーム</h1>" in text
    assert "よく使われたカード" in text


def test_top_cut_decks_by_placing(organizer, crossover, make_players):
    event, swiss = build_top_8(organizer, crossover, make_players)
    make_public(event, organizer)
    text = client_for().get(page_url(event)).content.decode()
    top = text[text.index('id="meta-top"') :]
    names = {
        registration.pk: registration.player.get_username()
        for registration in Registration.objects.filter(event=event).select_related("player")
    }
    expected = [(names[pk], place) for pk, place, result in expected_finished(swiss) if result]
    found = re.findall(
        r'<td class="row-title">([^< ]+) <span class="badge badge--info">[^<]+</span></td>\s*'
        r'<td data-label="Place">(\d+)</td>',
        top,
    )
    assert [(name, int(place)) for name, place in found] == expected
    assert '<span class="badge badge--info">Champion</span>' in top
    assert "スワティ ×42, 森原 さとみ ×4, 狡猾フィーリア ×4" in top


def test_decklists_page_links_the_metagame_once_public(tiny, organizer):
    url = reverse("tournaments:decklists", args=[tiny.event.pk])
    assert page_url(tiny.event) not in client_for().get(url).content.decode()
    make_public(tiny.event, organizer)
    assert f'href="{page_url(tiny.event)}"' in client_for().get(url).content.decode()


# --- a format across events ---------------------------------------------------------------


def format_url(fmt, query=""):
    url = reverse("decks:format_metagame", args=[fmt.slug])
    return f"{url}?{query}" if query else url


def format_csv_url(fmt, query=""):
    url = reverse("decks:format_metagame_csv", args=[fmt.slug])
    return f"{url}?{query}" if query else url


def test_format_counts_only_events_with_public_decklists(organizer, crossover, outsider):
    public = build_tiny_event(organizer, crossover, name="Public", names=["a", "b"]).event
    make_public(public, organizer)
    private = open_event(organizer, crossover, name="Private")
    register_all(
        private, [outsider], deck_text="4 森原 さとみ\n4 狡猾フィーリア [base]\n42 スワティ\n"
    )
    # The private event's organizer does not get its lists counted either.
    for user in (None, organizer):
        lines = csv_lines(client_for(user).get(format_csv_url(crossover)))
        assert lines[1] == "element,Sky (空),,2,100.0,84,84.0,"
        assert lines[6] == "card (deck),スワティ,,2,100.0,84,,42.00"
    text = client_for().get(format_url(crossover)).content.decode()
    assert "<li>Public</li>" in text
    assert "<li>Private</li>" not in text


def test_format_date_range_and_bad_dates(organizer, crossover):
    early = build_tiny_event(organizer, crossover, name="Early", names=["a", "d"], prefix="e").event
    late = build_tiny_event(
        organizer, crossover, name="Late", names=["b", "c", "f"], prefix="l"
    ).event
    # The date of a running event is locked: set it as the event was planned.
    Event.objects.filter(pk=early.pk).update(date=dt.date(2002, 5, 1))
    Event.objects.filter(pk=late.pk).update(date=dt.date(2002, 6, 1))
    make_public(early, organizer)
    make_public(late, organizer)
    lines = csv_lines(client_for().get(format_csv_url(crossover, "from=2002-05-15")))
    assert lines[1] == "element,Sky (空),,3,100.0,126,84.0,"
    lines = csv_lines(client_for().get(format_csv_url(crossover, "to=2002-05-15")))
    assert lines[1] == "element,Sky (空),,2,100.0,84,84.0,"
    text = client_for().get(format_url(crossover, "from=15.5.2002")).content.decode()
    assert "“From” must be a date like 2026-04-01; it was ignored." in text
    assert "<li>Early</li>" in text
    assert "<li>Late</li>" in text


def test_format_top_cut_decks_across_events(organizer, crossover, make_players):
    event, _swiss = build_top_8(organizer, crossover, make_players)
    make_public(event, organizer)
    text = client_for().get(format_url(crossover)).content.decode()
    top = text[text.index('id="meta-top"') :]
    assert top.count("<tr>") == 1 + 8  # header and the eight players of the cut


def test_format_list_links_each_format(crossover):
    text = client_for().get(reverse("decks:format_list")).content.decode()
    assert f'href="{format_url(crossover)}"' in text


def test_unknown_format_is_404():
    assert client_for().get("/decks/formats/nope/metagame/").status_code == 404


# --- queries ------------------------------------------------------------------------------


def count_queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


def test_queries_do_not_grow_with_decklists(organizer, crossover):
    small = build_tiny_event(organizer, crossover, name="Small", names=["a", "b", "c"]).event
    large = build_tiny_event(
        organizer, crossover, name="Large", names=[f"n{i}" for i in range(12)], prefix="q"
    ).event
    for event in (small, large):
        make_public(event, organizer)
    for user in (None, organizer):
        client = client_for(user)
        for url_of in (page_url, csv_url):
            counts = [count_queries(client, url_of(event)) for event in (small, large)]
            assert counts[0] == counts[1], (url_of.__name__, user, counts)
            assert counts[0] <= 10, (url_of.__name__, counts)


def test_format_queries_do_not_grow_with_events(organizer, crossover):
    client = client_for()
    first = build_tiny_event(organizer, crossover, name="One", names=["a", "b"], prefix="o").event
    make_public(first, organizer)
    one = count_queries(client, format_url(crossover))
    for index in range(3):
        event = build_tiny_event(
            organizer, crossover, name=f"More {index}", names=["x", "y"], prefix=f"m{index}"
        ).event
        make_public(event, organizer)
    assert count_queries(client, format_url(crossover)) == one
    assert count_queries(client, format_csv_url(crossover)) <= one
    assert one <= 6


def test_a_built_metagame_is_reused_until_a_decklist_changes(tiny, organizer):
    make_public(tiny.event, organizer)
    client = client_for()
    cold = count_queries(client, csv_url(tiny.event))
    warm = count_queries(client, csv_url(tiny.event))
    assert warm < cold
    assert warm <= 2  # the session-less request: the event with its revision, nothing else
    # A judge's change of a decklist (an audited change) is counted at once.
    registration = tiny.registrations[0]
    services.submit_decklist(
        registration,
        actor=organizer,
        deck_text="2 森原 さとみ\n4 狡猾フィーリア [base]\n43 スワティ\n1 『森原さとみ』\n",
        reason="deck check",
    )
    lines = csv_lines(client.get(csv_url(tiny.event)))
    assert "card (deck),森原 さとみ,,5,100.0,19,,3.80" in lines


def test_format_metagame_is_reused_and_follows_new_events(organizer, crossover):
    client = client_for()
    first = build_tiny_event(organizer, crossover, name="One", names=["a", "b"], prefix="o").event
    make_public(first, organizer)
    cold = count_queries(client, format_csv_url(crossover))
    warm = count_queries(client, format_csv_url(crossover))
    assert warm == 2  # the format, then its events' revisions
    assert warm < cold
    second = build_tiny_event(organizer, crossover, name="Two", names=["c", "d"], prefix="t").event
    make_public(second, organizer)
    assert csv_lines(client.get(format_csv_url(crossover)))[1] == (
        "element,Sky (空),,4,100.0,168,84.0,"
    )
