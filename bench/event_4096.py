"""A 4,096-player event through the API: generate a round, record 2,048 results, standings.

    .venv/bin/python bench/event_4096.py [--players 4096] [--rounds 2] [--setup bulk|services]
        [--auth force|session] [--profile PHASE ...] [--keep]

Builds an event of ``--players`` registered players with legal, locked decklists (state
running), then, as real clients would, through the whole in-process HTTP stack (URL
routing, authentication, DRF serializers, the service, the database):

* the organizer ``POST /api/v1/events/{id}/generate-round/`` and
  ``POST /api/v1/events/{id}/rounds/{n}/publish/``;
* for every match player 1 ``POST …/matches/{m}/report/`` (``games``,
  ``expected_version``), then for every match player 2 ``POST …/matches/{m}/confirm/``;
* the organizer closes the round (``POST …/rounds/{n}/close/`` when that route exists,
  else ``services.close_round``);
* ``GET /api/v1/events/{id}/standings/`` and the page ``GET /events/{id}/standings/``,
  best of 3 each, with their query counts;

for ``--rounds`` rounds (round 2 pairs players who have a history). Every request is
checked for its status code; per-request mean, p50, p95 and max are printed.

Setup (timed apart, not a target): ``--setup bulk`` (default) checks the decklist once
with ``services.check_decklist`` and inserts the registrations and their
``registration.created`` audit entries as ``services.register_player`` would write them,
then starts the event with ``services.start_event`` (which locks the lists);
``--setup services`` calls ``services.register_player`` for every player instead.

Authentication: ``--auth force`` (default) uses ``APIClient.force_authenticate`` (no
session lookup: two queries fewer per request than a browser); ``--auth session`` logs
every player in once beforehand and sends their session cookie (``SessionAuthentication``
as in production).

Database: a new SQLite file in a temporary folder; with ``DATABASE_URL=postgres://…`` a
scratch database ``bench_event_<pid>`` is created on that server (the named database is
never touched) and dropped at the end (``--keep`` keeps either). Runs with DEBUG off.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import math
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LEGAL_DECK = "4 森原 さとみ\n4 狡猾フィーリア [base]\n42 スワティ\n"
# Records from player 1's side, cycled by table (wins, losses and draws all occur).
RECORDS = ["2-0", "2-1", "0-2", "1-2", "2-0", "0-2", "2-1", "1-2", "1-1-1", "1-0-1"]
PHASES = ("generate", "publish", "report", "confirm", "close", "standings-api", "standings-page")


# --- database ------------------------------------------------------------------------


@dataclass
class Scratch:
    """Where the benchmark's data lives, and how to remove it."""

    vendor: str
    url: str
    folder: str | None = None
    admin_url: str | None = None
    name: str | None = None

    def drop(self) -> None:
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
        if self.admin_url and self.name:
            import psycopg

            with psycopg.connect(self.admin_url, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def scratch_database() -> Scratch:
    url = os.environ.get("DATABASE_URL", "").strip()
    if url.startswith(("postgres://", "postgresql://", "pgsql://")):
        import psycopg

        parts = urlsplit(url)
        name = f"bench_event_{os.getpid()}"
        admin_url = urlunsplit(("postgresql", parts.netloc, "/postgres", "", ""))
        with psycopg.connect(admin_url, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        scratch_url = urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))
        return Scratch("postgresql", scratch_url, admin_url=admin_url, name=name)
    if url:
        print(f"DATABASE_URL={url!r} is not PostgreSQL: using a new SQLite file instead")
    folder = tempfile.mkdtemp(prefix="event-bench-")
    return Scratch("sqlite", f"sqlite:///{folder}/bench.sqlite3", folder=folder)


def configure_django(scratch: Scratch) -> None:
    os.environ["DATABASE_URL"] = scratch.url
    os.environ["DEBUG"] = "false"  # as in production: no query log, no debug pages
    os.environ.setdefault("SECRET_KEY", "bench-only")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    os.environ["SECURE_SSL_REDIRECT"] = "false"  # the test client speaks plain HTTP
    os.environ["SECURE_COOKIES"] = "false"
    os.environ.pop("CELERY_BROKER_URL", None)
    import django

    django.setup()


# --- figures ---------------------------------------------------------------------------


@dataclass
class Figure:
    """One timed step: its request times in seconds and the queries of one request."""

    name: str
    times: list[float] = field(default_factory=list)
    queries: int | None = None
    note: str = ""

    def row(self) -> str:
        times = self.times
        count = len(times)
        queries = "" if self.queries is None else str(self.queries)
        if count == 1:
            cells = ["", f"{times[0] * 1000:,.1f}", "", "", ""]
        else:
            ordered = sorted(times)
            p95 = ordered[math.ceil(0.95 * count) - 1]  # nearest rank
            cells = [
                f"{sum(times):,.2f}",
                f"{statistics.fmean(times) * 1000:.1f}",
                f"{statistics.median(times) * 1000:.1f}",
                f"{p95 * 1000:.1f}",
                f"{max(times) * 1000:.1f}",
            ]
        return f"| {self.name} | {count:,} | " + " | ".join(cells) + f" | {queries} | {self.note} |"


def best_of(figure: Figure) -> str:
    return f"best {min(figure.times) * 1000:,.0f} ms of " + ", ".join(
        f"{t * 1000:,.0f}" for t in figure.times
    )


def load() -> str:
    """The load average and the database's round trip (``SELECT 1``, median of 200): the
    machine is shared, and a busy CPU shows first in the round trip to PostgreSQL."""
    from django.db import connection

    one, five, fifteen = os.getloadavg()
    trips = []
    with connection.cursor() as cursor:
        for _ in range(200):
            start = time.perf_counter()
            cursor.execute("SELECT 1")
            cursor.fetchone()
            trips.append(time.perf_counter() - start)
    return (
        f"load average {one:.2f} {five:.2f} {fifteen:.2f}, "
        f"SELECT 1 round trip {statistics.median(trips) * 1e6:.0f} µs"
    )


class Profiler:
    """cProfile around the phases named with ``--profile``; prints the top functions."""

    def __init__(self, phases: list[str]):
        self.phases = set(phases)

    @contextmanager
    def around(self, phase: str):
        if phase not in self.phases:
            yield
            return
        profile = cProfile.Profile()
        profile.enable()
        try:
            yield
        finally:
            profile.disable()
            out = io.StringIO()
            stats = pstats.Stats(profile, stream=out).strip_dirs()
            stats.sort_stats("cumulative").print_stats(35)
            stats.sort_stats("tottime").print_stats(20)
            print(f"\n--- profile of {phase} ---\n{out.getvalue()}")


# --- the benchmark --------------------------------------------------------------------


def build_card_pool():
    """The deck tests' small CrossOver pool and the built-in formats (LEGAL_DECK is legal)."""
    from cardpool.models import Card, CardSet, CardType, Element, Game, Printing
    from decks.builtin import load_builtin_formats

    game = Game.objects.create(slug="crossover", name="CrossOver The F&C TCG")
    Game.objects.create(slug="monster-collection", name="Monster Collection TCG")
    Game.objects.create(slug="asura-system", name="AsuraSystem TCG")
    specs = [
        ("beta", "βedition", ["β", "β版"], True),
        ("base", "基本セット", ["基本", "ベーシック"], False),
        ("setup", "Setup Deck", [], False),
        ("first", "FIRST EXPANSION", [], False),
        ("second", "SECOND EXPANSION", [], False),
        ("promo", "プロモーションカード", ["プロモ"], False),
        ("third", "THIRD EXPANSION", [], False),
    ]
    sets = {
        code: CardSet.objects.create(
            game=game, code=code, name=name, aliases=aliases, release_order=order, is_beta=beta
        )
        for order, (code, name, aliases, beta) in enumerate(specs, start=1)
    }
    satomi = Card.objects.create(
        game=game, name="森原 さとみ", card_type=CardType.CHARACTER, element=Element.FIRE
    )
    Printing.objects.create(card=satomi, set=sets["base"], number="001")
    feeria = Card.objects.create(game=game, name="狡猾フィーリア", card_type=CardType.CHARACTER)
    Printing.objects.create(card=feeria, set=sets["beta"], number="B-10", text="old")
    Printing.objects.create(card=feeria, set=sets["base"], number="010", text="new")
    swati = Card.objects.create(
        game=game,
        name="スワティ",
        card_type=CardType.NAVIGATOR,
        element=Element.SKY,
        unlimited=True,
    )
    Printing.objects.create(card=swati, set=sets["base"], number="100")
    return {fmt.slug: fmt for fmt in load_builtin_formats()}["crossover"]


def build_event(players: int, setup: str):
    """Organizer, players and a running event with every player registered (legal,
    locked decklists). Returns (event, organizer, users by id)."""
    import datetime as dt

    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import transaction
    from django.utils import timezone

    from tournaments import services
    from tournaments.models import AuditEntry, Registration, RegistrationStatus

    user_model = get_user_model()
    fmt = build_card_pool()
    organizer = user_model.objects.create_user("organizer", password="bench-organizer")
    unusable = make_password(None)
    users = user_model.objects.bulk_create(
        user_model(username=f"player{n:05d}", password=unusable) for n in range(1, players + 1)
    )
    event = services.create_event(
        organizer=organizer,
        format=fmt,
        name=f"Benchmark Open ({players} players)",
        date=dt.date(2026, 5, 16),
        capacity=players,
        pairing_seed="bench-4096",
    )
    event = services.open_registration(event, actor=organizer)
    if setup == "services":
        for user in users:
            services.register_player(event, actor=user, deck_text=LEGAL_DECK)
    else:
        # What register_player writes for each player, checked once (the same list).
        checked = services.check_decklist(event, player=users[0], deck_text=LEGAL_DECK)
        with transaction.atomic():
            start = timezone.now()
            registrations = Registration.objects.bulk_create(
                (
                    Registration(
                        event=event,
                        player=user,
                        status=RegistrationStatus.REGISTERED,
                        registered_at=start + dt.timedelta(microseconds=index),
                        deck_text=checked.text,
                        deck_report=checked.report,
                        deck=None,
                        deck_submitted_at=start + dt.timedelta(microseconds=index),
                    )
                    for index, user in enumerate(users)
                ),
                batch_size=1000,
            )
            AuditEntry.objects.bulk_create(
                (
                    AuditEntry(
                        event=event,
                        actor=registration.player,
                        action="registration.created",
                        object_type="registration",
                        object_id=registration.pk,
                        before=None,
                        after={
                            "player": registration.player_id,
                            "status": RegistrationStatus.REGISTERED,
                            "decklist": True,
                        },
                    )
                    for registration in registrations
                ),
                batch_size=1000,
            )
    event = services.start_event(event, actor=organizer)
    return event, organizer, {user.pk: user for user in users}


class Caller:
    """Sends requests as a given user, through the test client's full HTTP stack."""

    def __init__(self, auth: str, users):
        from django.conf import settings
        from django.test import Client
        from rest_framework.test import APIClient

        self.auth = auth
        self.api = APIClient()
        self.cookie = settings.SESSION_COOKIE_NAME
        self.sessions: dict[int, str] = {}
        if auth == "session":
            for user in users:
                client = Client()
                client.force_login(user)
                self.sessions[user.pk] = client.cookies[self.cookie].value

    def as_user(self, user):
        if self.auth == "session":
            self.api.cookies[self.cookie] = self.sessions[user.pk]
        else:
            self.api.force_authenticate(user=user)
        return self.api

    def post(self, user, url: str, payload: dict | None = None):
        return self.as_user(user).post(url, payload, format="json")

    def get(self, user, url: str):
        return self.as_user(user).get(url)


def call(figure: Figure, send, expected: int):
    start = time.perf_counter()
    response = send()
    figure.times.append(time.perf_counter() - start)
    if response.status_code != expected:
        body = getattr(response, "content", b"")[:500]
        sys.exit(f"{figure.name}: HTTP {response.status_code} (expected {expected}): {body!r}")
    return response


def counted(figure: Figure, send, expected: int):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        response = call(figure, send, expected)
    figure.queries = len(captured.captured_queries)
    return response


def play_round(number, event, organizer, users, caller, profiler, figures):
    """Generate, publish, report, confirm and close round ``number``; then the standings."""
    from django.test import Client
    from django.urls import NoReverseMatch, reverse

    from tournaments.demo import games_for
    from tournaments.models import Match, Round

    api = f"/api/v1/events/{event.pk}"
    prefix = f"R{number} "
    as_organizer = partial(caller.post, organizer)

    generate = Figure(prefix + "POST generate-round")
    with profiler.around("generate"):
        body = counted(generate, partial(as_organizer, f"{api}/generate-round/"), 201).json()
    assert body["number"] == number, body
    generate.note = f"{body['match_count']:,} tables"
    publish = Figure(prefix + "POST rounds/{n}/publish")
    with profiler.around("publish"):
        counted(publish, partial(as_organizer, f"{api}/rounds/{number}/publish/"), 200)
    figures += [generate, publish]

    matches = list(
        Match.objects.filter(round__event=event, round__number=number, player2__isnull=False)
        .order_by("table")
        .values_list("pk", "table", "player1__player_id", "player2__player_id", "version")
    )
    report = Figure(prefix + "POST matches/{m}/report")
    confirm = Figure(prefix + "POST matches/{m}/confirm")
    versions = {}
    started = time.perf_counter()
    with profiler.around("report"):
        for index, (pk, table, player1, _player2, version) in enumerate(matches):
            payload = {
                "games": games_for(RECORDS[(number * 7 + table) % len(RECORDS)]),
                "expected_version": version,
            }
            send = partial(caller.post, users[player1], f"{api}/matches/{pk}/report/", payload)
            measure = counted if index == len(matches) - 1 else call
            versions[pk] = measure(report, send, 200).json()["version"]
    reported = time.perf_counter() - started
    started = time.perf_counter()
    with profiler.around("confirm"):
        for index, (pk, _table, _player1, player2, _version) in enumerate(matches):
            payload = {"expected_version": versions[pk]}
            send = partial(caller.post, users[player2], f"{api}/matches/{pk}/confirm/", payload)
            measure = counted if index == len(matches) - 1 else call
            status = measure(confirm, send, 200).json()["status"]
            assert status == "confirmed", status
    confirmed = time.perf_counter() - started
    report.note = f"phase wall {reported:.2f} s; queries of one request"
    confirm.note = f"phase wall {confirmed:.2f} s"
    total = Figure(prefix + f"{len(matches):,} results (report + confirm)")
    total.times = report.times + confirm.times
    total.note = f"wall {reported + confirmed:.2f} s"
    figures += [report, confirm, total]

    close = Figure(prefix + "close round")
    try:
        close_url = reverse("event-round-close", kwargs={"event_pk": event.pk, "number": number})
    except NoReverseMatch:
        close_url = None
    with profiler.around("close"):
        if close_url:
            close.name += " (POST rounds/{n}/close)"
            counted(close, partial(as_organizer, close_url), 200)
        else:
            close.name += " (services.close_round: no API route)"
            round_ = Round.objects.get(event=event, number=number)
            counted(close, partial(close_through_service, round_, organizer), 200)
    figures.append(close)

    standings_api = Figure(prefix + "GET standings/ (API)")
    standings_page = Figure(prefix + "GET /events/{id}/standings/ (page)")
    page_client = Client()
    page_client.force_login(organizer)
    for figure, phase, send in (
        (standings_api, "standings-api", partial(caller.get, organizer, f"{api}/standings/")),
        (
            standings_page,
            "standings-page",
            partial(page_client.get, f"/events/{event.pk}/standings/"),
        ),
    ):
        with profiler.around(phase):
            for _ in range(3):
                response = call(figure, send, 200)
        size = len(response.content)
        counter = Figure(figure.name)
        counted(counter, send, 200)
        figure.queries = counter.queries
        figure.note = f"{best_of(figure)}; {size / 1e6:.2f} MB"
        if phase == "standings-api":
            rows = response.json()["rows"]
            assert len(rows) == len(users), (len(rows), len(users))
    figures += [standings_api, standings_page]


def warm_up(event, organizer, caller) -> None:
    """First requests pay for imports and URL resolver set-up: not part of any figure."""
    from django.test import Client

    caller.as_user(organizer).get(f"/api/v1/events/{event.pk}/")
    caller.as_user(organizer).get(f"/api/v1/events/{event.pk}/standings/")
    client = Client()
    client.force_login(organizer)
    client.get(f"/events/{event.pk}/standings/")


class _Done:
    """A stand-in response for a step done through the service (no HTTP)."""

    status_code = 200
    content = b""


def close_through_service(round_, organizer) -> _Done:
    from tournaments import services

    services.close_round(round_, actor=organizer)
    return _Done()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--setup", choices=("bulk", "services"), default="bulk")
    parser.add_argument("--auth", choices=("force", "session"), default="force")
    parser.add_argument(
        "--profile", action="append", default=[], choices=PHASES, help="cProfile this phase"
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    args = parser.parse_args(argv)
    if args.players < 2 or args.players % 2:
        parser.error("--players must be an even number ≥ 2 (every player in a match)")

    scratch = scratch_database()
    try:
        configure_django(scratch)
        return run(args, scratch)
    finally:
        from django.db import connections

        connections.close_all()
        if args.keep:
            print(f"kept the scratch database: {scratch.url}")
        else:
            scratch.drop()


def run(args, scratch: Scratch) -> int:
    from django.core.management import call_command

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    migrated = time.perf_counter() - started
    started = time.perf_counter()
    event, organizer, users = build_event(args.players, args.setup)
    built = time.perf_counter() - started
    started = time.perf_counter()
    caller = Caller(args.auth, [organizer, *users.values()])
    logged_in = time.perf_counter() - started
    print(
        f"{scratch.vendor}: event {event.pk} with {len(users):,} registered players "
        f"({event.state}, {event.swiss_rounds} Swiss rounds); migrate {migrated:.1f} s, "
        f"setup ({args.setup}) {built:.1f} s"
        + (
            f", {len(users) + 1:,} session logins {logged_in:.1f} s"
            if args.auth == "session"
            else ""
        )
    )
    auth = (
        "APIClient.force_authenticate (no session lookup)"
        if args.auth == "force"
        else "session cookie per player (SessionAuthentication)"
    )
    print(f"auth: {auth}")
    print(f"before: {load()}")

    if args.rounds > event.swiss_rounds:
        sys.exit(f"--rounds {args.rounds}: the event has {event.swiss_rounds} Swiss rounds")
    warm_up(event, organizer, caller)
    profiler = Profiler(args.profile)
    figures: list[Figure] = []
    started = time.perf_counter()
    for number in range(1, args.rounds + 1):
        play_round(number, event, organizer, users, caller, profiler, figures)
        elapsed = time.perf_counter() - started
        print(f"round {number} measured ({elapsed:.0f} s so far)", file=sys.stderr, flush=True)
    measured = time.perf_counter() - started
    print(f"after:  {load()}; measured part {measured:.1f} s")
    print()
    print("| step | requests | sum s | mean ms | p50 ms | p95 ms | max ms | queries | note |")
    print("|---|---|---|---|---|---|---|---|---|")
    for figure in figures:
        print(figure.row())
    return 0


if __name__ == "__main__":
    sys.exit(main())
