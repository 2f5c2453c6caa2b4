"""Redis down (issue #21, "Riding out a blip"): the home page, an event's standings and
the signed-in API keep answering 200 with the same content while the Redis cache is
gone; sessions come from the database (the signed-in stay signed in), the throttles let
requests through and say so in the log, ``/healthz`` says "ok; degraded: cache", and
once Redis is back the cache is used again. Before the fix (config/cache.py) every one
of these requests raised redis's ConnectionError (a 500).

Each test starts a redis-server of its own on a free port in a temporary directory
(never the shared one) and points the default cache at it. "Killed" is SIGKILL (Redis
gone, connections refused); "frozen" is SIGSTOP (Redis keeps its data but does not
answer: the network blip, each call would wait for the read timeout).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
import redis
from django.core.cache import cache
from django.test import Client, override_settings
from django.urls import reverse
from rest_framework.throttling import AnonRateThrottle

from tests.tournaments.conftest import build_world_after_round_3
from tournaments import pagecache

pytestmark = pytest.mark.django_db

# The backend skips Redis this long after a failure (production: 5 s).
RETRY_AFTER = 1.0
SESSION_KEY_PREFIX = "crossover:1:django.contrib.sessions.cached_db"
STANDING_ROW = re.compile(r'<tr id="player-(\d+)">\s*<td data-label="[^"]*">(\d+)</td>')
DECK_CHECK = {"format": "crossover", "decklist": "1 nothing\n"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class OwnRedis:
    """A redis-server of the test's own, with no persistence: ``start()`` (again on the
    same port after a kill), ``kill()``, ``freeze()``/``thaw()``, ``stored_keys()``."""

    def __init__(self, directory: Path) -> None:
        program = shutil.which("redis-server")
        if program is None:
            if os.environ.get("CI"):
                pytest.fail("redis-server is not installed; CI must run these tests")
            pytest.skip("redis-server is not installed")
        self.program = program
        self.directory = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with (self.directory / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(
                [
                    self.program,
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.directory),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 10
        while True:
            try:
                if self.client().ping():
                    return
            except redis.exceptions.RedisError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail((self.directory / "redis.log").read_text(errors="replace"))
                time.sleep(0.05)

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=2, socket_connect_timeout=2)

    def stored_keys(self) -> set[str]:
        return {key.decode() for key in self.client().keys("*")}

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)

    def freeze(self) -> None:
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.thaw()
                self.kill()


@pytest.fixture
def own_redis(tmp_path):
    server = OwnRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def redis_cache(own_redis):
    """The production cache settings (config/settings.py with CACHE_URL) on the test's own
    Redis. Changing CACHES makes Django drop its cache backends (a ``setting_changed``
    receiver), so every cache use below reaches this server."""
    caches_setting = {
        "default": {
            "BACKEND": "config.cache.RedisCache",
            "LOCATION": own_redis.url,
            "KEY_PREFIX": "crossover",
            "TIMEOUT": 3600,
            "OPTIONS": {"RETRY_AFTER_SECONDS": RETRY_AFTER},
        }
    }
    with override_settings(
        CACHES=caches_setting, SESSION_ENGINE="django.contrib.sessions.backends.cached_db"
    ):
        yield own_redis


@pytest.fixture
def two_a_minute(monkeypatch):
    monkeypatch.setattr(AnonRateThrottle, "rate", "2/min", raising=False)


@pytest.fixture
def world(db):
    return build_world_after_round_3()


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page_rows(response) -> list[tuple[str, int]]:
    """The standings page's rows: (player's name, rank)."""
    assert response.status_code == 200
    from tournaments.models import Registration

    names = dict(Registration.objects.values_list("pk", "player__username"))
    rows = STANDING_ROW.findall(response.content.decode())
    return [(names[int(pk)], int(rank)) for pk, rank in rows]


def api_rows(response) -> list[tuple[str, int, int]]:
    assert response.status_code == 200
    return [(row["name"], row["rank"], row["match_points"]) for row in response.json()["rows"]]


def messages(caplog, start: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(start)]


# The event after round 3 (tests/tournaments/conftest.py): player008 dropped after round 2.
EXPECTED_ROWS = [
    ("player003", 1, 9),
    ("player002", 2, 4),
    ("player007", 3, 4),
    ("player005", 4, 4),
    ("player008", 5, 3),
    ("player006", 6, 3),
    ("player001", 7, 3),
    ("player004", 8, 3),
]


def test_pages_sessions_api_and_throttles_ride_out_redis_being_killed(
    world, redis_cache, two_a_minute, caplog
):
    event = world.built.event
    player = world.players[0]
    standings = reverse("tournaments:standings", args=[event.pk])
    api_standings = f"/api/v1/events/{event.pk}/standings/"
    anonymous, signed = Client(), signed_in(player)
    caplog.set_level(logging.WARNING, logger="config.cache")

    # Redis up: the pages are cached there, and so is the session.
    home_up = signed.get("/")
    assert home_up.status_code == 200
    assert home_up.wsgi_request.user == player
    assert page_rows(anonymous.get(standings)) == [(name, rank) for name, rank, _ in EXPECTED_ROWS]
    up_json = signed.get(api_standings).json()
    assert api_rows(signed.get(api_standings)) == EXPECTED_ROWS
    assert signed.get("/api/v1/decks/").json()["count"] == 0
    assert anonymous.get("/api/v1/decks/").status_code == 403
    session_key = f"{SESSION_KEY_PREFIX}{signed.session.session_key}"
    cached = redis_cache.stored_keys()
    assert session_key in cached
    assert any(":page:" in key for key in cached)
    assert anonymous.get("/healthz").content == b"ok"
    # The throttle counts in Redis: the third deck check within a minute is refused.
    deck_checks = [
        anonymous.post("/api/v1/decks/check/", DECK_CHECK, content_type="application/json")
        for _ in range(3)
    ]
    assert [r.status_code for r in deck_checks] == [200, 200, 429]

    redis_cache.kill()

    # Redis gone: the same answers, built without the cache; the session from the database.
    for _ in range(3):
        home = signed.get("/")
        assert home.status_code == 200
        assert home.wsgi_request.user == player
        assert page_rows(anonymous.get(standings)) == [
            (name, rank) for name, rank, _ in EXPECTED_ROWS
        ]
        answer = signed.get(api_standings)
        assert answer.json() == up_json
        assert api_rows(answer) == EXPECTED_ROWS
        assert signed.get("/api/v1/decks/").status_code == 200
        assert signed.get(standings).wsgi_request.user == player
    # Throttles fail open: nothing is counted, every check is let through, and the log says so.
    deck_checks = [
        anonymous.post("/api/v1/decks/check/", DECK_CHECK, content_type="application/json")
        for _ in range(4)
    ]
    assert [r.status_code for r in deck_checks] == [200, 200, 200, 200]
    assert len(messages(caplog, "throttles fail open")) == 1
    health = anonymous.get("/healthz")
    assert (health.status_code, health.content) == (200, b"ok; degraded: cache")
    assert anonymous.get("/readyz").status_code == 503
    # One warning for the outage, not one per request.
    assert len(messages(caplog, "cache unavailable (ConnectionError")) == 1
    assert messages(caplog, "cache available again") == []

    # Redis back on the same port (empty): after the retry period the cache is used again.
    redis_cache.start()
    time.sleep(RETRY_AFTER + 0.1)
    assert page_rows(anonymous.get(standings)) == [(name, rank) for name, rank, _ in EXPECTED_ROWS]
    assert signed.get(api_standings).json() == up_json
    assert signed.get("/").wsgi_request.user == player
    cached = redis_cache.stored_keys()
    assert session_key in cached
    assert any(":page:" in key for key in cached)
    assert len(messages(caplog, "cache available again after")) == 1
    assert anonymous.get("/healthz").content == b"ok"
    assert anonymous.get("/readyz").status_code == 200
    deck_checks = [
        anonymous.post("/api/v1/decks/check/", DECK_CHECK, content_type="application/json")
        for _ in range(3)
    ]
    assert [r.status_code for r in deck_checks] == [200, 200, 429]


def test_a_logout_during_a_blip_does_not_come_back_with_redis(world, redis_cache, caplog):
    """Redis frozen (it keeps the session it cached) while the player signs out: the
    session is deleted from the database, and when Redis answers again its stale copy is
    deleted before anything reads it, so the old cookie stays signed out."""
    player = world.players[0]
    signed = signed_in(player)
    assert signed.get("/").wsgi_request.user == player
    cookie = signed.cookies["sessionid"].value
    session_key = f"{SESSION_KEY_PREFIX}{cookie}"
    assert session_key in redis_cache.stored_keys()

    redis_cache.freeze()
    try:
        assert signed.post("/accounts/logout/").status_code == 302
        replay = Client()
        replay.cookies["sessionid"] = cookie
        assert replay.get("/").wsgi_request.user.is_anonymous
    finally:
        redis_cache.thaw()
    # Redis kept the session it had while frozen.
    assert session_key in redis_cache.stored_keys()

    time.sleep(RETRY_AFTER + 0.1)
    replay = Client()
    replay.cookies["sessionid"] = cookie
    assert replay.get("/").wsgi_request.user.is_anonymous
    assert session_key not in redis_cache.stored_keys()
    assert messages(caplog, "cache available again after")[0].endswith(
        "keys written meanwhile deleted from it"
    )


def test_a_frozen_redis_costs_one_timeout_then_is_skipped(redis_cache, caplog):
    cache.set("kept", "value")
    cache.set("count", 5)
    redis_cache.freeze()
    try:
        started = time.monotonic()
        assert cache.get("kept") is None  # waits for the read timeout (0.5 s), then a miss
        first = time.monotonic() - started
        started = time.monotonic()
        answers = [
            cache.get("kept", "default"),
            cache.get_many(["kept", "count"]),
            cache.has_key("kept"),
            "kept" in cache,
            cache.add("lock", 1),  # a lock fails open: the caller goes ahead
            cache.incr("count", 3),  # a counter restarts: the delta
            cache.decr("count"),
            cache.set("kept", "new"),
            cache.set_many({"a": 1, "b": 2}),  # every key reported as not stored
            cache.touch("kept"),
            cache.delete("kept"),
            cache.delete_many(["a", "b"]),
            cache.get_or_set("built", lambda: "fresh"),
        ]
        skipped = time.monotonic() - started
    finally:
        redis_cache.thaw()
    assert answers == [
        "default",
        {},
        False,
        False,
        True,
        3,
        -1,
        None,
        ["a", "b"],
        False,
        False,
        None,
        "fresh",
    ]
    assert 0.4 < first < 1.0
    # Skipped, not one timeout each (that would be 6.5 s).
    assert skipped < 0.2
    assert len(messages(caplog, "cache unavailable (TimeoutError")) == 1
    # Redis kept the old values; the keys written meanwhile are deleted before the cache
    # is read again, the others come back.
    time.sleep(RETRY_AFTER + 0.1)
    assert cache.get("kept") is None
    assert cache.get("count") is None
    assert cache.get_many(["a", "b", "lock", "built"]) == {}
    cache.set("after", 1)
    assert cache.get("after") == 1


def test_a_page_waiting_for_another_builder_stops_waiting_when_redis_goes(redis_cache):
    """Another request builds this entry (its lock is in Redis): a waiter polls for the
    result, and when Redis is killed it builds for itself at once instead of polling
    ``BUILD_WAIT_SECONDS`` (10 s) for a result that can no longer arrive."""
    cache.add("page:test:building", 1, 30)
    results = {}

    def wait_for_it():
        started = time.monotonic()
        results["value"] = pagecache.get_or_build("page:test", lambda: "built here")
        results["seconds"] = time.monotonic() - started

    waiter = threading.Thread(target=wait_for_it)
    waiter.start()
    time.sleep(0.3)
    assert "value" not in results
    redis_cache.kill()
    waiter.join(timeout=15)
    assert results["value"] == "built here"
    assert results["seconds"] < 1.5


def test_readyz_names_redis_down_with_its_own_error(db, redis_cache, caplog):
    redis_cache.kill()
    with override_settings(CELERY_BROKER_URL=None):
        response = Client().get("/readyz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "failed",
        "checks": {"database": "ok", "cache": "failed"},
        "failed": ["cache"],
    }
    assert "readiness check 'cache' failed" in caplog.text
    assert "Connection refused" in caplog.text


def test_healthz_is_ok_with_redis_up(redis_cache):
    response = Client().get("/healthz")
    assert (response.status_code, response.content) == (200, b"ok")
