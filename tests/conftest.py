import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connections
from django.http import HttpRequest
from django.test import Client, TransactionTestCase
from django.utils import translation

from tests.factories import CardSetFactory, GameFactory
from tournaments import snapshots


@pytest.fixture(autouse=True, scope="session")
def _client_login_passes_a_request():
    """django-axes (the login lockout) needs the request in ``authenticate``; Django's test
    ``Client.login`` gives none. Give it an empty one, so the lockout stays on in every test
    and ``client.login`` works as documented."""
    original = Client.login

    def login(self, **credentials):
        credentials.setdefault("request", HttpRequest())
        return original(self, **credentials)

    Client.login = login
    yield
    Client.login = original


def _delete_from_every_table(ops):
    """A ``sql_flush`` for PostgreSQL that empties the tables with DELETE instead of one
    TRUNCATE (see below); with another option asked, PostgreSQL's own."""
    original = ops.sql_flush

    def sql_flush(style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return original(
                style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return [
            f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(ops.quote_name(table))};"
            for table in tables
        ]

    return sql_flush


@pytest.fixture(autouse=True, scope="session")
def _transactional_tests_empty_postgresql_with_delete():
    """After a ``django_db(transaction=True)`` test Django's ``flush`` empties every table;
    on PostgreSQL it sends one TRUNCATE of all ~50, which takes 0.5–1.4 s (a new file per
    table) where DELETE of their few rows takes ~10 ms: about a minute of the PostgreSQL
    run. Only this teardown changes (the same tables, one transaction, the deferred
    foreign keys checked at its end, post_migrate as before); ``flush`` called by the
    code under test is untouched."""
    original = TransactionTestCase._fixture_teardown

    def _fixture_teardown(self):
        patched = []
        for name in self._databases_names(include_mirrors=False):
            connection = connections[name]
            if connection.vendor == "postgresql":
                connection.ops.sql_flush = _delete_from_every_table(connection.ops)
                patched.append(connection.ops)
        try:
            original(self)
        finally:
            for ops in patched:
                del ops.sql_flush

    TransactionTestCase._fixture_teardown = _fixture_teardown
    yield
    TransactionTestCase._fixture_teardown = original


@pytest.fixture(autouse=True)
def _empty_caches():
    """Every test starts with empty caches: ids restart after a rolled-back test, so a
    page cached by one test could otherwise answer for another's event of the same id."""
    for cache in caches.all():
        cache.clear()
    snapshots.forget_engine_standings()


@pytest.fixture(autouse=True)
def _default_language_after_each_test():
    """A page requested in Japanese leaves Japanese active in this thread (the locale
    middleware activates it and nothing switches it back): the next test starts in the
    site's default language again, whatever ran before it."""
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture
def game(db):
    return GameFactory()


@pytest.fixture
def crossover_sets(game):
    """The CrossOver sets the importer tests refer to, in release order."""
    return {
        "beta": CardSetFactory(
            game=game, code="beta", name="βedition", aliases=["β版"], release_order=1, is_beta=True
        ),
        "base": CardSetFactory(
            game=game, code="base", name="基本セット", aliases=["ベーシック"], release_order=2
        ),
        "first": CardSetFactory(game=game, code="first", name="FIRST EXPANSION", release_order=4),
        "second": CardSetFactory(
            game=game, code="second", name="SECOND EXPANSION", release_order=5
        ),
    }
