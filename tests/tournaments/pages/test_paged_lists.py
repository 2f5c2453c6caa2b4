"""The standings and pairings pages of a big event (issue 10): 200 rows a page, the
pager, the search by name (and by table number on the pairings), the signed-in player's
own row, staff links, drafts, the number of queries cold and warm, conditional GETs and
the cached copies per language.

The big event is ``played_event`` (600 players after 3 closed Swiss rounds, the last
player dropped before round 3): 3 standings pages, 300 tables in each round (2 pages by
table, 3 by name; round 3 ends with a bye at table 300).
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.messages import constants
from django.contrib.messages.storage.base import Message
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import cache
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.tournaments.api.bulk import played_event
from tests.tournaments.api.helpers import live_round
from tests.tournaments.factories import games_for
from tournaments import services, snapshots
from tournaments.models import Match

pytestmark = pytest.mark.django_db

PLAYERS = 600
STANDING_ROW = re.compile(r'<tr id="player-(\d+)">\s*<td data-label="[^"]*">(\d+)</td>')
TABLE_ROW = re.compile(r'<tr id="table-(\d+)">')
NAME_LINE = re.compile(r"<tr>\s*<td>([^<]*)</td><td>(\d+)</td><td>([^<]*)</td>")


def text_of(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


# The pairings rows' extras that the markup checks below look past: the card labels
# (table.responsive), the by-name row title and the points beside each name (those have
# tests of their own in test_live.py).
PAIRINGS_EXTRAS = re.compile(
    r' data-label="[^"]*"| class="row-title"| <small class="points">[^<]*</small>'
)


def plain(body: str) -> str:
    return PAIRINGS_EXTRAS.sub("", body)


def standings_url(event) -> str:
    return reverse("tournaments:standings", args=[event.pk])


def pairings_url(event, number: int) -> str:
    return reverse("tournaments:pairings", args=[event.pk, number])


def standing_rows(body: str) -> list[tuple[int, int]]:
    """(registration id, rank) of each row shown, in order."""
    return [(int(pk), int(rank)) for pk, rank in STANDING_ROW.findall(body)]


def tables_of(body: str) -> list[int]:
    return [int(table) for table in TABLE_ROW.findall(body)]


def pager_text(number: int, pages: int, first: int, last: int, count: int) -> str:
    return f"<span>Page {number} of {pages} (rows {first}–{last} of {count})</span>"


def expected_standings(event) -> list[tuple[int, int]]:
    return [(line.registration.pk, line.rank) for line in services.compute_standings(event).rows]


def my_row(body: str) -> str | None:
    start = body.find('<p class="my-row">')
    if start < 0:
        return None
    return body[start : body.index("</p>", start) + len("</p>")]


@pytest.fixture
def big(organizer, crossover):
    return played_event(organizer, crossover, players=PLAYERS, name="Big Open")


@pytest.fixture
def small(organizer, crossover):
    return played_event(organizer, crossover, players=10, name="Small Open")


# --- standings: pages --------------------------------------------------------------------


def test_standings_first_page_has_ranks_1_to_200(big, client_for):
    expected = expected_standings(big)
    body = text_of(client_for().get(standings_url(big)))
    shown = standing_rows(body)
    assert shown == expected[:200]
    # Ranks 1 to 200 (players tied on everything share a rank: the next one skips).
    ranks = [rank for _pk, rank in shown]
    assert ranks[0] == 1
    assert all(rank in (position + 1, ranks[position - 1]) for position, rank in enumerate(ranks))
    assert ranks[-1] <= 200
    assert "After 3 Swiss rounds." in body


# ?page= asked for, the page shown.
PAGE_PARAMETERS = [
    ("2", 2),
    ("3", 3),
    ("4", 3),  # past the end: the last page
    ("9999", 3),
    ("10001", 3),  # beyond the highest page looked up as such: still the last page
    ("abc", 1),  # not a number: the first page
    ("0", 1),
    ("-2", 1),
    ("２", 1),  # a full-width digit is not a page number
    ("", 1),
]


def test_standings_page_parameter(big, client_for):
    expected = expected_standings(big)
    client = client_for()
    for page, shown in PAGE_PARAMETERS:
        body = text_of(client.get(standings_url(big), {"page": page}))
        start = (shown - 1) * 200
        assert standing_rows(body) == expected[start : start + 200], page
        assert pager_text(shown, 3, start + 1, start + 200, PLAYERS) in body, page


def test_standings_pager_links(big, small, client_for):
    client = client_for()
    first = text_of(client.get(standings_url(big)))
    assert (
        '<nav class="pagination" aria-label="Pages">\n  \n'
        "  <span>Page 1 of 3 (rows 1–200 of 600)</span>\n"
        '  <a href="?page=2" rel="next">Next</a> <a href="?page=3">Last</a>\n</nav>'
    ) in first
    middle = text_of(client.get(standings_url(big), {"page": 2}))
    assert (
        '<nav class="pagination" aria-label="Pages">\n'
        '  <a href="?page=1">First</a> <a href="?page=1" rel="prev">Previous</a>\n'
        "  <span>Page 2 of 3 (rows 201–400 of 600)</span>\n"
        '  <a href="?page=3" rel="next">Next</a> <a href="?page=3">Last</a>\n</nav>'
    ) in middle
    last = text_of(client.get(standings_url(big), {"page": 3}))
    assert (
        '<nav class="pagination" aria-label="Pages">\n'
        '  <a href="?page=1">First</a> <a href="?page=2" rel="prev">Previous</a>\n'
        "  <span>Page 3 of 3 (rows 401–600 of 600)</span>\n  \n</nav>"
    ) in last
    assert 'rel="next"' not in last
    # One page only: no pager at all.
    one_page = text_of(client.get(standings_url(small)))
    assert len(standing_rows(one_page)) == 10
    assert '<nav class="pagination"' not in one_page


# --- standings: search -----------------------------------------------------------------


def _rename(event, position: int, first: str, last: str = ""):
    """Give the player at ``position`` of the standings another name (before any page is
    cached: a rename is not an event change)."""
    line = services.compute_standings(event).rows[position]
    user = line.registration.player
    user.first_name, user.last_name = first, last
    user.save(update_fields=["first_name", "last_name"])
    return line.registration.pk, line.rank


def test_standings_search_by_name(big, client_for):
    yamada = _rename(big, 450, "Ｔａｒｏ", "Ｙａｍａｄａ")  # full-width letters
    suzuki = _rename(big, 10, "TARO", "Suzuki")
    katakana = _rename(big, 250, "タロウ")
    client = client_for()
    url = standings_url(big)

    def search(query):
        return text_of(client.get(url, {"q": query}))

    # Case and width do not matter; results keep the standings order and real ranks.
    body = search("taro")
    assert standing_rows(body) == [suzuki, yamada]
    assert '<p role="status">2 matches for “taro”.</p>' in body
    assert 'value="taro"' in body
    assert '<a href="?">Show all</a>' in body
    assert '<nav class="pagination"' not in body
    assert '<td class="row-title">Ｔａｒｏ Ｙａｍａｄａ' in body
    for query in ("ｔａｒｏ ｙａｍａｄａ", "TaroYamada", "  YAMADA  ", "ａｄａ"):
        found = search(query)
        assert standing_rows(found) == [yamada], query
        assert "1 match for “" in found
    # Half-width katakana finds the full-width name.
    found = search("ﾀﾛｳ")
    assert standing_rows(found) == [katakana]
    assert '<p role="status">1 match for “ﾀﾛｳ”.</p>' in found
    # No match.
    none = search("nobody here")
    assert standing_rows(none) == []
    assert "<p>No player matches.</p>" in none
    assert '<p role="status">0 matches for “nobody here”.</p>' in none
    # The query is escaped where it is shown.
    hostile = search('<b>"x')
    assert "<b>" not in hostile.split("<main")[1]
    assert "0 matches for “&lt;b&gt;&quot;x”." in hostile
    # Only spaces: no search at all.
    assert standing_rows(search("   ")) == expected_standings(big)[:200]


def test_standings_search_count_is_the_number_of_matches(big, client_for):
    """Every player's name starts with the event's prefix: 600 match, 200 are shown."""
    prefix = f"e{big.pk}p"
    body = text_of(client_for().get(standings_url(big), {"q": prefix}))
    assert len(standing_rows(body)) == 200
    assert f"600 matches for “{prefix}”." in body


# --- standings: the viewer's own row -------------------------------------------------------


def test_own_row_box_links_to_the_page_of_the_row(big, client_for, organizer, outsider):
    table = services.compute_standings(big).rows
    line = table[450]  # page 3
    client = client_for(line.registration.player)
    body = text_of(client.get(standings_url(big)))
    registration = line.registration.pk
    record = f"{line.wins}-{line.losses}-{line.draws}"
    assert my_row(body) == (
        f'<p class="my-row">You: rank {line.rank}, {line.match_points} points ({record}). '
        f'<a href="?page=3#player-{registration}">Go to my row</a></p>'
    )
    # The link's page holds the row.
    page = text_of(client.get(standings_url(big) + "?page=3"))
    assert (registration, line.rank) in standing_rows(page)
    assert my_row(page) == my_row(body)
    # Searching keeps the box.
    assert my_row(text_of(client.get(standings_url(big), {"q": "zzz"}))) == my_row(body)
    # The leader's box points at page 1.
    leader = table[0]
    leader_body = text_of(client_for(leader.registration.player).get(standings_url(big)))
    assert f'<a href="?page=1#player-{leader.registration.pk}">Go to my row</a>' in leader_body
    assert f"You: rank 1, {leader.match_points} points" in leader_body
    # The dropped player still has a row (and a box).
    dropped = next(line for line in table if line.dropped)
    dropped_body = text_of(client_for(dropped.registration.player).get(standings_url(big)))
    page_of_dropped = table.index(dropped) // 200 + 1
    assert (
        f'<a href="?page={page_of_dropped}#player-{dropped.registration.pk}">Go to my row</a>'
        in dropped_body
    )
    # Nobody else gets a box.
    for user in (None, organizer, outsider):
        assert my_row(text_of(client_for(user).get(standings_url(big)))) is None


def test_player_parameter_opens_the_working_on_its_page(big, client_for):
    expected = expected_standings(big)
    registration, rank = expected[450]
    body = text_of(client_for().get(standings_url(big), {"player": registration}))
    assert standing_rows(body) == expected[400:600]
    assert pager_text(3, 3, 401, 600, PLAYERS) in body
    row = body[body.index(f'<tr id="player-{registration}">') :]
    row = row[: row.index("</tr>")]
    assert f'<td data-label="Rank">{rank}</td>' in row
    assert "<details open " in row
    assert "<dt>Rounds played</dt><dd>3</dd>" in row
    # Only that row's working is filled in; the others keep their link.
    assert body.count("<details open ") == 1
    assert body.count("<dt>Rounds played</dt>") == 1
    assert body.count('<a href="?player=') == 199
    # A player on the first page opens the first page.
    leader = expected[0][0]
    first = text_of(client_for().get(standings_url(big), {"player": leader}))
    assert standing_rows(first) == expected[:200]
    assert first.count("<details open ") == 1
    # No such player in the standings.
    assert client_for().get(standings_url(big), {"player": 999999}).status_code == 404


# --- pairings ------------------------------------------------------------------------------


def _matches(event, number: int) -> list[Match]:
    return list(
        Match.objects.filter(round__event=event, round__number=number)
        .select_related("player1__player", "player2__player")
        .order_by("table")
    )


def test_pairings_by_table_paginated(big, client_for):
    client = client_for()
    url = pairings_url(big, 1)
    first = text_of(client.get(url))
    assert tables_of(first) == list(range(1, 201))
    assert pager_text(1, 2, 1, 200, 300) in first
    assert '<a href="?page=2" rel="next">Next</a> <a href="?page=2">Last</a>' in first
    second = plain(text_of(client.get(url, {"page": 2})))
    assert tables_of(second) == list(range(201, 301))
    assert pager_text(2, 2, 201, 300, 300) in second
    assert '<a href="?page=1">First</a> <a href="?page=1" rel="prev">Previous</a>' in second
    match = _matches(big, 1)[249]
    assert (
        f'<tr id="table-250">\n    <td>250</td>\n    <td>{match.player1.player.username}</td>\n'
        f"    <td>{match.player2.player.username}</td>\n    <td>{match.record_text}</td>"
    ) in second
    # Past the end: the last page; not a number: the first.
    assert tables_of(text_of(client.get(url, {"page": 7}))) == list(range(201, 301))
    assert tables_of(text_of(client.get(url, {"page": "x"}))) == list(range(1, 201))
    # Round 3 (599 players) ends with a bye.
    round_3 = plain(text_of(client.get(pairings_url(big, 3), {"page": 2})))
    bye = _matches(big, 3)[-1]
    assert (bye.table, bye.player2_id) == (300, None)
    assert (
        f'<tr id="table-300">\n    <td>300</td>\n    <td>{bye.player1.player.username}</td>\n'
        "    <td>bye</td>"
    ) in round_3


def _name_lines(event, number: int) -> list[tuple[str, str, str]]:
    lines = []
    for match in _matches(event, number):
        one = match.player1.player.username
        two = match.player2.player.username if match.player2_id else None
        lines.append((one, match.table, 1, two or "bye"))
        if two:
            lines.append((two, match.table, 2, one))
    lines.sort(key=lambda line: (line[0].casefold(), line[1], line[2]))
    return [(name, str(table), opponent) for name, table, _seat, opponent in lines]


def test_pairings_by_name_paginated(big, client_for):
    client = client_for()
    url = pairings_url(big, 3)
    expected = _name_lines(big, 3)
    assert len(expected) == 599
    for page, start in ((1, 0), (2, 200), (3, 400)):
        body = plain(text_of(client.get(url, {"by": "name", "page": page})))
        assert NAME_LINE.findall(body) == expected[start : start + 200], page
        assert pager_text(page, 3, start + 1, min(start + 200, 599), 599) in body
    assert (
        '<a href="?by=name&page=1">First</a> <a href="?by=name&page=2" rel="prev">Previous</a>'
        in body
    )
    middle = text_of(client.get(url, {"by": "name", "page": 2}))
    assert '<a href="?by=name&page=3" rel="next">Next</a>' in middle
    assert '<input type="hidden" name="by" value="name">' in middle
    assert f'<a href="{url}">Order by table</a>' in middle


def test_pairings_search_by_table_and_by_name(big, client_for):
    client = client_for()
    url = pairings_url(big, 1)
    match = _matches(big, 1)[249]
    for query in ("250", "２５０", " 250 "):
        body = text_of(client.get(url, {"q": query}))
        assert tables_of(body) == [250], query
        assert "1 match for “" in body
        assert '<nav class="pagination"' not in body
    missing = text_of(client.get(url, {"q": "301"}))
    assert tables_of(missing) == []
    assert "<p>No table matches.</p>" in missing
    assert "0 matches for “301”." in missing
    # By a player's name (either seat), case and width ignored.
    for name in (match.player1.player.username, match.player2.player.username):
        for query in (name, name.upper(), name.upper().translate(FULL_WIDTH)):
            body = text_of(client.get(url, {"q": query}))
            assert tables_of(body) == [250], query
            assert '<p role="status">1 match for “' in body
    # In the list by name, the found player's line is shown.
    name = match.player2.player.username
    by_name = plain(text_of(client.get(url, {"by": "name", "q": name})))
    assert (name, "250", match.player1.player.username) in NAME_LINE.findall(by_name)
    assert '<a href="?by=name">Show all</a>' in by_name


FULL_WIDTH = str.maketrans(
    {chr(code): chr(code + 0xFEE0) for code in range(0x21, 0x7F)}  # ASCII to full width
)


def test_own_table_box(big, client_for, organizer):
    round_1 = _matches(big, 1)
    match = round_1[249]  # table 250: page 2
    one, two = match.player1.player, match.player2.player
    body = text_of(client_for(one).get(pairings_url(big, 1)))
    assert my_row(body) == (
        f'<p class="my-row">You: table 250 against {two.username}. '
        '<a href="?page=2#table-250">Go to my table</a></p>'
    )
    opponent = text_of(client_for(two).get(pairings_url(big, 1)))
    assert f"You: table 250 against {one.username}." in my_row(opponent)
    # By name: the box without the table link.
    by_name = text_of(client_for(one).get(pairings_url(big, 1), {"by": "name"}))
    assert my_row(by_name) == (f'<p class="my-row">You: table 250 against {two.username}. </p>')
    # The bye of round 3.
    bye = _matches(big, 3)[-1]
    bye_body = text_of(client_for(bye.player1.player).get(pairings_url(big, 3)))
    assert my_row(bye_body) == (
        '<p class="my-row">You: table 300, a bye. '
        '<a href="?page=2#table-300">Go to my table</a></p>'
    )
    # The player dropped before round 3 has no table in it; staff and anonymous no box.
    dropped = big.registrations.order_by("-pk").first().player
    assert my_row(text_of(client_for(dropped).get(pairings_url(big, 3)))) is None
    assert my_row(text_of(client_for(dropped).get(pairings_url(big, 1)))) is not None
    assert my_row(text_of(client_for(organizer).get(pairings_url(big, 1)))) is None
    assert my_row(text_of(client_for().get(pairings_url(big, 1)))) is None


def test_enter_result_links_for_staff_only(big, client_for, organizer, outsider):
    url = pairings_url(big, 3)
    matches = _matches(big, 3)
    player = matches[0].player1.player
    # The public copy first (cached), then the staff's, then the public again.
    assert "Enter result" not in text_of(client_for().get(url))
    staff = plain(text_of(client_for(organizer).get(url)))
    assert staff.count("Enter result") == 200
    first = matches[0]
    assert (
        f'<td>{first.record_text} <a href="/events/{big.pk}/staff/matches/{first.pk}/">'
        'Enter result<span class="visually-hidden"> (1)</span></a></td>'
    ) in staff
    # Page 2: tables 201-299 and the bye (no link for a bye).
    staff_2 = text_of(client_for(organizer).get(url, {"page": 2}))
    assert staff_2.count("Enter result") == 99
    by_name = text_of(client_for(organizer).get(url, {"by": "name"}))
    assert by_name.count("Enter result") == 200
    searched = text_of(client_for(organizer).get(url, {"q": "17"}))
    assert searched.count("Enter result") == 1
    for user in (None, outsider, player):
        client = client_for(user)
        for params in ({}, {"page": 2}, {"by": "name"}, {"q": "17"}):
            assert "Enter result" not in text_of(client.get(url, params)), (user, params)


def test_draft_round_hidden_from_players_and_not_cached_for_staff(
    event_after_round_3, client_for, outsider
):
    f = event_after_round_3
    event = f.event
    draft = services.generate_round(event, actor=f.organizer)
    url = pairings_url(event, draft.number)
    # Staff first: whatever they get must not reach anybody else.
    for user in (f.organizer, f.judge):
        for params in ({}, {"by": "name"}, {"q": "1"}):
            body = text_of(client_for(user).get(url, params))
            assert "Players do not see this round until it is published." in body
            assert "Enter result" not in body  # no results in a draft
        event_page = text_of(
            client_for(user).get(reverse("tournaments:event_detail", args=[event.pk]))
        )
        assert url in event_page
    assert not [key for key in _cache_keys() if key.startswith(f"page:pairings-page:{event.pk}:")]
    for user in (None, outsider, f.players[0]):
        client = client_for(user)
        for params in ({}, {"by": "name"}, {"q": "1"}, {"page": 2}):
            assert client.get(url, params).status_code == 404, (user, params)
        event_page = text_of(client.get(reverse("tournaments:event_detail", args=[event.pk])))
        assert url not in event_page
    # Published: everybody sees it, without the draft's note.
    services.publish_round(draft, actor=f.organizer)
    body = text_of(client_for(f.players[0]).get(url))
    assert "Players do not see this round until it is published." not in body
    assert tables_of(body) == [1, 2, 3, 4]
    assert url in text_of(client_for().get(reverse("tournaments:event_detail", args=[event.pk])))
    # Once published, the public copy is cached (so the listing above can see one).
    assert [key for key in _cache_keys() if key.startswith(f"page:pairings-page:{event.pk}:")]


def _cache_keys() -> list[str]:
    """The keys of the local-memory cache the tests run with."""
    keys = getattr(cache, "_cache", None)
    if keys is None:  # another backend: nothing to look at
        pytest.skip("the cache's keys cannot be listed")
    return [key.split(":", 2)[2] for key in keys]


# --- queries -------------------------------------------------------------------------------

PAGES = {
    "standings": lambda event: [standings_url(event), standings_url(event) + "?page=2"],
    "pairings": lambda event: [pairings_url(event, 3), pairings_url(event, 3) + "?by=name"],
    "event": lambda event: [reverse("tournaments:event_detail", args=[event.pk])],
}
# The most queries the first request after a change may add to the event's (the
# standings: registrations and results; the pairings: the round and its matches; the
# event page: its rounds, the registered count and the facts' format and organizer).
MOST_COLD = 4


@pytest.mark.parametrize("page", list(PAGES))
def test_list_page_queries_same_small_and_large_cold_and_warm(
    page, small, big, client_for, django_assert_num_queries
):
    for signed_in, variant in ((False, 0), (True, 0), (False, -1), (True, -1)):
        viewer = 2 if signed_in else 0  # the session and the user
        cold = None
        for event in (small, big):
            cache.clear()  # cold: as after a change
            snapshots.forget_engine_standings()  # and this process's memo
            user = event.registrations.order_by("pk")[1].player if signed_in else None
            client, other = client_for(user), client_for(user)
            url = PAGES[page](event)[variant]
            if cold is None:  # the small event
                with CaptureQueriesContext(connection) as queries:
                    assert client.get(url).status_code == 200
                cold = len(queries)
                assert viewer + 1 <= cold <= viewer + 1 + MOST_COLD, cold
            else:  # the large one: the same
                with django_assert_num_queries(cold):
                    assert client.get(url).status_code == 200
            # Warm: the event (with its revision and the viewer's access) only.
            with django_assert_num_queries(viewer + 1):
                warm = client.get(url)
            assert warm.status_code == 200
            # A 304 costs the same.
            with django_assert_num_queries(viewer + 1):
                assert client.get(url, HTTP_IF_NONE_MATCH=warm["ETag"]).status_code == 304
            # Another client of the same kind finds everything cached too.
            with django_assert_num_queries(viewer + 1):
                assert other.get(url).status_code == 200


# --- conditional GETs ----------------------------------------------------------------------

CONDITIONAL = {
    "standings": lambda event: standings_url(event),
    "pairings": lambda event: pairings_url(event, 1),
    "event": lambda event: reverse("tournaments:event_detail", args=[event.pk]),
}


@pytest.mark.parametrize("page", list(CONDITIONAL))
def test_second_get_is_a_304(page, event_after_round_3, client_for):
    """A phone opens the page, then polls it with the ETag it was given: the poll is a
    304, for an anonymous and for a signed-in visitor alike."""
    f = event_after_round_3
    url = CONDITIONAL[page](f.event)
    answers = {}
    for name, user in (("anonymous", None), ("player", f.players[0])):
        client = client_for(user)
        first = client.get(url)
        assert first.status_code == 200
        second = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
        answers[name] = (second.status_code, second["ETag"] == first["ETag"])
    assert answers == {"anonymous": (304, True), "player": (304, True)}


@pytest.mark.parametrize("page", list(CONDITIONAL))
def test_conditional_get_answers_304_with_the_tag(page, event_after_round_3, client_for):
    f = event_after_round_3
    client = client_for()
    url = CONDITIONAL[page](f.event)
    client.get(url)  # the first visit gives the client its CSRF cookie
    full = client.get(url)
    tag = full["ETag"]
    assert re.fullmatch(r'W/"[0-9a-f]{32}"', tag)
    assert full["Cache-Control"] == "private, no-cache"
    answer = client.get(url, HTTP_IF_NONE_MATCH=tag)
    assert answer.status_code == 304
    assert answer.content == b""
    assert answer["ETag"] == tag
    assert answer["Cache-Control"] == "private, no-cache"
    # Another tag, or another page of the list: the full page.
    assert client.get(url, HTTP_IF_NONE_MATCH='W/"0000"').status_code == 200
    if page != "event":
        assert client.get(url + "?page=2", HTTP_IF_NONE_MATCH=tag).status_code == 200


def _message_cookie(text: str) -> str:
    storage = CookieStorage(RequestFactory().get("/"))
    return storage._encode([Message(constants.SUCCESS, text)])


@pytest.mark.parametrize("page", list(CONDITIONAL))
def test_pending_message_prevents_the_304(page, event_after_round_3, client_for):
    f = event_after_round_3
    client = client_for(f.players[0])
    url = CONDITIONAL[page](f.event)
    client.get(url)
    tag = client.get(url)["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=tag).status_code == 304
    client.cookies["messages"] = _message_cookie("Result saved.")
    shown = client.get(url, HTTP_IF_NONE_MATCH=tag)
    if page == "event":
        # The event page shows no messages, but it must not answer 304 over one.
        assert shown.status_code == 200
    else:
        assert '<li class="success">Result saved.</li>' in text_of(shown)
    # Shown once: the next poll is a 304 again.
    assert client.get(url, HTTP_IF_NONE_MATCH=shown["ETag"]).status_code == 304


def test_pairings_tag_changes_when_a_result_is_confirmed(event_after_round_3, client_for):
    f = event_after_round_3
    round_, matches = live_round(f)
    client = client_for()
    url = pairings_url(f.event, round_.number)
    client.get(url)
    before = client.get(url)
    assert "Enter result" not in text_of(before)
    match = matches[0]
    reported = services.report_result(
        match, actor=match.player1.player, games=games_for("2-1"), expected_version=match.version
    )
    services.confirm_result(reported, actor=match.player2.player, expected_version=reported.version)
    after = client.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]
    assert f'<tr id="table-{match.table}">' in text_of(after)
    row = plain(text_of(after)).split(f'<tr id="table-{match.table}">')[1].split("</tr>")[0]
    assert "<td>2-1-0</td>" in row


# --- languages -----------------------------------------------------------------------------


def test_japanese_pages_are_cached_apart_from_english(big, client_for):
    url = standings_url(big)
    english = client_for().get(url)
    english_body = text_of(english)
    assert "<h1>Standings</h1>" in english_body
    assert '<th scope="col">Rank</th><th scope="col">Player</th>' in english_body
    japanese = client_for().get(url, HTTP_ACCEPT_LANGUAGE="ja")
    body = text_of(japanese)
    assert japanese["Content-Language"] == "ja"
    assert "<h1>順位</h1>" in body
    assert '<th scope="col">順位</th><th scope="col">プレイヤー</th>' in body
    assert '<th scope="col">勝ち点</th><th scope="col">戦績</th>' in body
    assert '<th scope="col">Rank</th>' not in body
    assert standing_rows(body) == standing_rows(english_body)
    assert japanese["ETag"] != english["ETag"]
    # The language cookie works the same, and English is still English afterwards.
    by_cookie = client_for()
    by_cookie.cookies[settings.LANGUAGE_COOKIE_NAME] = "ja"
    assert '<th scope="col">順位</th>' in text_of(by_cookie.get(url, {"page": 1}))
    again = text_of(client_for().get(url))
    assert '<th scope="col">Rank</th><th scope="col">Player</th>' in again
    assert "順位" not in again
    # An English tag does not validate the Japanese page.
    client = client_for()
    client.get(url)
    tag = client.get(url)["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=tag, HTTP_ACCEPT_LANGUAGE="ja").status_code == 200


def test_japanese_pairings_and_event_page_after_english(big, client_for, organizer):
    url = pairings_url(big, 3)
    english = plain(text_of(client_for().get(url, {"page": 2})))
    assert '<th scope="col">Table</th><th scope="col">Player 1</th>' in english
    assert "<td>bye</td>" in english
    japanese = plain(text_of(client_for().get(url, {"page": 2}, HTTP_ACCEPT_LANGUAGE="ja")))
    assert "<h1>第3ラウンドの対戦表</h1>" in japanese
    assert '<th scope="col">テーブル</th><th scope="col">プレイヤー1</th>' in japanese
    assert "<td>不戦勝</td>" in japanese
    assert "<td>bye</td>" not in japanese
    assert tables_of(japanese) == tables_of(english)
    by_name_en = text_of(client_for().get(url, {"by": "name"}))
    assert '<th scope="col">Player</th><th scope="col">Table</th>' in by_name_en
    by_name_ja = text_of(client_for().get(url, {"by": "name"}, HTTP_ACCEPT_LANGUAGE="ja"))
    assert '<th scope="col">プレイヤー</th><th scope="col">テーブル</th>' in by_name_ja
    staff = text_of(client_for(organizer).get(url, HTTP_ACCEPT_LANGUAGE="ja"))
    assert staff.count("結果を入力") == 200
    event_url = reverse("tournaments:event_detail", args=[big.pk])
    assert "<dt>Format</dt>" in text_of(client_for().get(event_url))
    event_ja = text_of(client_for().get(event_url, HTTP_ACCEPT_LANGUAGE="ja"))
    assert "<dt>フォーマット</dt>" in event_ja
    assert "<dt>Format</dt>" not in event_ja
