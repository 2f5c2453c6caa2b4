"""PostgreSQL only: the trigram machinery the rules search relies on for ranking."""

import pytest
from django.db import connection

from rules.selectors import search_rules

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="PostgreSQL only (DATABASE_URL=postgres://…)"
    ),
]


def scalar(sql, *params):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def test_database_locale_is_not_c():
    # Under LC_CTYPE C, pg_trgm treats Japanese characters as non-word characters and
    # extracts no trigrams from them: the indexes would be useless for Japanese.
    assert scalar("SHOW lc_ctype") not in ("C", "POSIX")


def test_pg_trgm_makes_trigrams_of_japanese():
    assert scalar("SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'") == "pg_trgm"
    assert len(scalar("SELECT show_trgm(%s)", "維持費の支払い")) > 0
    assert scalar("SELECT similarity(%s, %s)", "割り込み", "割り込み") == 1


def test_trigram_indexes_exist():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE indexname LIKE 'rules_%%_trgm' ORDER BY 1"
        )
        names = [row[0] for row in cursor.fetchall()]
    assert names == [
        "rules_ruling_search_trgm",
        "rules_section_search_trgm",
        "rules_section_title_trgm",
    ]


def test_within_a_tier_titles_closer_to_the_query_come_first(crossover_rules):
    hits = [hit for hit in search_rules("ダメージ", page_size=100).hits if hit.tier == 2]
    scores = [
        scalar("SELECT similarity(%s, %s)", hit.object.search_title, "ダメージ") for hit in hits
    ]
    assert len(hits) >= 5
    assert scores == sorted(scores, reverse=True)
    assert hits[0].title == "ダメージ軽減"
