"""The teardown of a ``django_db(transaction=True)`` test empties every table for the next
test (tests/conftest.py: on PostgreSQL with DELETE instead of TRUNCATE), the rows' foreign
keys among one another notwithstanding, and post_migrate puts back the content types and
permissions as Django's flush does."""

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from tests.tournaments.conftest import build_world_after_round_3
from tournaments.models import Event, Match, Penalty, Registration

pytestmark = pytest.mark.django_db(transaction=True)

RECREATED = {ContentType._meta.db_table, Permission._meta.db_table}


def row_counts() -> dict[str, int]:
    counts = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.django_table_names(
            only_existing=True, include_views=False
        ):
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


def test_a_transactional_test_commits_rows_that_refer_to_one_another():
    build_world_after_round_3()
    assert connection.get_autocommit()  # committed: the next test would see them
    assert (Event.objects.count(), Registration.objects.count(), Penalty.objects.count()) == (
        1,
        8,
        1,
    )
    assert Match.objects.count() == 12
    assert sum(1 for rows in row_counts().values() if rows) >= 20


def test_the_next_transactional_test_starts_from_an_empty_database():
    counts = row_counts()
    assert {table: rows for table, rows in counts.items() if rows and table not in RECREATED} == {}
    assert ContentType.objects.filter(app_label="tournaments", model="event").exists()
    assert Permission.objects.filter(codename="add_event").exists()
