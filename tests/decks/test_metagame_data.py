"""Submitted decklists resolved to their cards (decks.metagame_data): official names,
printings, unknown cards and printings, and two queries however many lists."""

import pytest

from decks.metagame import CardLine
from decks.metagame_data import resolve_decklists

pytestmark = pytest.mark.django_db


def test_lines_resolve_to_the_cards_and_their_printings(
    crossover, cards, django_assert_num_queries
):
    texts = [
        "4 『森原さとみ』\n3 狡猾フィーリア (β)\n43 スワティ\nサイドボード\n1 狡猾フィーリア\n",
        "2 ないカード\n1 森原 さとみ (first)\n",
        "",
    ]
    with django_assert_num_queries(2):
        first, second, third = resolve_decklists(texts, format_id=crossover.pk)
    satomi, feeria, swati = cards["satomi"], cards["feeria"], cards["swati"]
    assert first == [
        CardLine(satomi.pk, "森原 さとみ", 4, "main", "", "CHARACTER", ("火",), "base", "001"),
        CardLine(feeria.pk, "狡猾フィーリア", 3, "main", "", "CHARACTER", (), "beta", "B-10"),
        CardLine(swati.pk, "スワティ", 43, "main", "", "NAVIGATOR", ("空",), "base", "100"),
        # no printing named: the newest one (base, after beta)
        CardLine(feeria.pk, "狡猾フィーリア", 1, "side", "", "CHARACTER", (), "base", "010"),
    ]
    assert second == [
        CardLine(None, "ないカード", 2),
        # a printing the card does not have: the card, but no set or number
        CardLine(satomi.pk, "森原 さとみ", 1, "main", "", "CHARACTER", ("火",), "", ""),
    ]
    assert third == []


def test_no_text_no_query(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert resolve_decklists(["", "# only a comment\n"], game_id=1) == [[], []]


def test_a_bare_trailing_count_resolves_when_the_name_before_it_is_a_card(
    crossover, cards, django_assert_num_queries
):
    # "スワティ 31": 31 copies of スワティ, since "スワティ 31" names no card (issue #13).
    with django_assert_num_queries(2):
        (lines,) = resolve_decklists(["スワティ 31\n森原 さとみ 4\n"], format_id=crossover.pk)
    swati, satomi = cards["swati"], cards["satomi"]
    assert lines == [
        CardLine(swati.pk, "スワティ", 31, "main", "", "NAVIGATOR", ("空",), "base", "100"),
        CardLine(satomi.pk, "森原 さとみ", 4, "main", "", "CHARACTER", ("火",), "base", "001"),
    ]
