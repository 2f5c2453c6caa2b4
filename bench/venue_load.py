"""Round turnover at the venue: the production server under a real HTTP load (issue 10).

    .venv/bin/python bench/venue_load.py [--reuse] [--json FILE] [--duration 15]
        [--clients 1,10,50] [--pages standings,standings-api,...] [--random-page N]
        [--conditional] [--no-redis] [--checkout DIR] [--burst-clients 50] [--no-burst]

1. **Build** (or, with ``--reuse``, restore) a scratch PostgreSQL database
   ``crossover_bench_venue`` on 127.0.0.1:5432: an event of 5,000 registered players (legal,
   locked decklists; ``bench/event_4096.build_event``) after 5 Swiss rounds played through
   the project's services (``generate_round``, ``publish_round``, ``report_result`` by
   player 1, ``confirm_result`` by player 2, ``close_round``: every match, ResultReport and
   audit entry as in production; ``--build-jobs`` processes share the tables), round 6
   generated and published (2,500 tables). Every
   player ``player00001`` … has the password ``bench-player``. The build runs with the
   served checkout's own code (``--checkout``) and is saved as a ``pg_dump`` in
   ``--cache-dir``, keyed by the player count and the checkout's migrations; ``--reuse``
   restores that dump (seconds) instead of building (minutes). Only the database
   ``--db-name`` is ever created or dropped on the server.
2. **Serve** it with the production server from the checkout (``gunicorn -c
   config/gunicorn.conf.py config.wsgi`` when that file exists, else ``gunicorn config.wsgi
   -w 4``; ``--workers`` overrides), ``DEBUG=false``, Redis database ``--redis-db`` (flushed
   first) as ``REDIS_URL`` unless ``--no-redis``; migrations, and ``collectstatic`` when the
   checkout's static storage needs a manifest that is missing or stale.
3. **Sign in** ``max(--clients)`` players over HTTP (GET the login page for the CSRF token,
   ``POST /accounts/login/``): a row of its own.
4. **Read steps** with Locust (``bench/venue_locust.py``, headless, one subprocess per step,
   ``--csv`` kept in the run folder): for each page and each client count a closed loop
   with no think time for ``--duration`` seconds, each Locust user one signed-in player
   (the home page signed out), ``Accept-Encoding: gzip``, redirects not followed; a request
   still in flight when the time is up is waited for and counted, so a slow page's queueing
   shows in its percentiles. Errors: status not 2xx/3xx, a redirect to the login page, or
   no answer within ``--stop-timeout`` ("unfinished": recorded with the time waited, the
   step's percentiles become lower bounds, and the server is restarted so that the
   abandoned requests do not delay the next step; otherwise its queue is drained).
   ``--conditional`` sends ``If-None-Match`` with the previous response's ETag;
   ``--random-page N`` asks standings and pairings for ``?page=`` 1…N.
5. **Write burst**: ``--burst-clients`` Locust users take round 6's tables off one queue;
   for each, player 1 ``POST /api/v1/events/{id}/matches/{m}/report/`` (``games``,
   ``expected_version``) and player 2 ``POST …/confirm/`` (``expected_version`` from the
   report's answer), each with their own session (made at build time in the database, as
   ``login()`` makes it: 5,000 PBKDF2 sign-ins would take ~20 min on 2 cores) and CSRF
   token. Then the database is checked: every match confirmed once with the record sent,
   version 3, exactly two ResultReports (report v2, confirm v3) and two audit entries
   (``match.reported`` v2, ``match.confirmed`` v3), nothing else written.

Prints one table (page, clients, req/s, p50, p95, p99, errors, …), the burst row and the
checks, the machine (``nproc``), the load average before and after, and the commit served;
``--json FILE`` writes the same figures.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import math
import os
import platform
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
LOCUSTFILE = BENCH / "venue_locust.py"
BUILD_VERSION = "1"  # bump when the built data changes shape (invalidates saved dumps)
PASSWORD = "bench-player"
SECRET_KEY = "bench"  # the server's: session data and session hashes are signed with it
CSRF_TOKEN = "venuebenchcsrftoken0123456789abc"  # a 32-character CSRF secret
BURST_ROUND_OFFSET = 7  # records cycle as in event_4096: RECORDS[(round * 7 + table) % 10]

PAGES = {
    # name: (label, path template, paged)
    "standings": ("standings page", "/events/{event}/standings/", True),
    "standings-api": ("standings API", "/api/v1/events/{event}/standings/", True),
    "pairings": ("pairings page R{round}", "/events/{event}/rounds/{round}/pairings/", True),
    "pairings-api": (
        "pairings API R{round}",
        "/api/v1/events/{event}/rounds/{round}/pairings/",
        True,
    ),
    "event": ("event page", "/events/{event}/", False),
    "my-match": ("my match page", "/events/{event}/me/match/", False),
    # What every open phone polls (live.js, every 20 s), and the pages it reloads.
    "live": ("live JSON", "/events/{event}/live/", False),
    "clock": ("round clock R{round}", "/events/{event}/rounds/{round}/clock/", False),
    "hub": ("home (signed in: my events)", "/", False),
    # Signed out: the reference of what the server and the load generator can do at all
    # (signed in, a page reads the session and the user from the database).
    "home": ("home (signed out, no database)", "/", False),
}


# What the server will load, asked in the server's environment.
PROBE = """
import json, os, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from django.conf import settings
import config.settings
print(json.dumps({"settings": config.settings.__file__, "static_root": str(settings.STATIC_ROOT),
                  "storage": settings.STORAGES["staticfiles"]["BACKEND"]}))
"""


ANONYMOUS_PAGES = {"home"}


def log(message: str) -> None:
    print(
        f"[{time.strftime('%H:%M:%S', time.gmtime())} UTC] {message}", file=sys.stderr, flush=True
    )


# --- building the event (runs in a subprocess, with the checkout's code) -----------------


def report_and_confirm(match_ids: list[int], number: int, users: dict) -> None:
    """Player 1 reports, player 2 confirms each match, through the services."""
    from event_4096 import RECORDS

    from tournaments import services
    from tournaments.demo import games_for
    from tournaments.models import Match

    matches = Match.objects.filter(pk__in=match_ids).select_related("player1", "player2")
    for match in matches.order_by("table"):
        record = RECORDS[(number * BURST_ROUND_OFFSET + match.table) % len(RECORDS)]
        match = services.report_result(
            match,
            actor=users[match.player1.player_id],
            games=games_for(record),
            expected_version=match.version,
        )
        services.confirm_result(
            match, actor=users[match.player2.player_id], expected_version=match.version
        )


def play_results(round_, users: dict, jobs: int) -> int:
    """Every result of ``round_`` through the services, in ``jobs`` forked processes (each
    its own database connection and a share of the tables); returns the match count."""
    from django.db import connections

    from tournaments.models import Match

    ids = list(
        Match.objects.filter(round=round_, player2__isnull=False)
        .order_by("table")
        .values_list("pk", flat=True)
    )
    if jobs <= 1:
        report_and_confirm(ids, round_.number, users)
        return len(ids)
    connections.close_all()  # a forked child must not share the parent's connection
    children = []
    for share in range(jobs):
        pid = os.fork()
        if pid == 0:  # the child
            code = 0
            try:
                report_and_confirm(ids[share::jobs], round_.number, users)
            except BaseException:
                import traceback

                traceback.print_exc()
                code = 1
            finally:
                connections.close_all()
                os._exit(code)
        children.append(pid)
    failed = [pid for pid in children if os.waitpid(pid, 0)[1] != 0]
    if failed:
        sys.exit(f"build: {len(failed)} result workers failed")
    return len(ids)


def build(
    meta_path: Path, players: int, closed_rounds: int, database_url: str, jobs: int = 2
) -> None:
    """Migrate, build the event, play ``closed_rounds`` rounds through the services,
    publish the next one, make a database session for every player; write the meta file
    (event id, players, sessions, the burst plan)."""
    checkout = Path.cwd()
    import event_4096  # noqa: F401  (puts this repository first on sys.path)

    sys.path.insert(0, str(checkout))  # … but the served checkout's code comes first
    os.environ.update(
        DATABASE_URL=database_url,
        DEBUG="false",
        SECRET_KEY=SECRET_KEY,
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        LOG_LEVEL="WARNING",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    for name in ("CELERY_BROKER_URL", "REDIS_URL", "CACHE_URL"):
        os.environ.pop(name, None)
    import django

    django.setup()
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.hashers import make_password
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone
    from django.utils.crypto import get_random_string
    from event_4096 import RECORDS, build_event

    import config
    from tournaments import services
    from tournaments.demo import games_for
    from tournaments.models import Match, Round

    if not Path(config.__file__).resolve().is_relative_to(checkout.resolve()):
        sys.exit(f"build: loaded {config.__file__}, not the checkout {checkout}")
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    event, organizer, users = build_event(players, "bulk")
    type(organizer).objects.filter(pk__in=list(users)).update(password=make_password(PASSWORD))
    log(f"build: {players:,} registered players in {time.perf_counter() - started:.0f} s")

    phases = {"generate": 0.0, "publish": 0.0, "results": 0.0, "close": 0.0}

    def timed(phase, function, *args, **kwargs):
        begin = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            phases[phase] += time.perf_counter() - begin

    for number in range(1, closed_rounds + 2):
        round_ = timed("generate", services.generate_round, event, actor=organizer)
        assert round_.number == number, (round_.number, number)
        round_ = timed("publish", services.publish_round, round_, actor=organizer)
        if number > closed_rounds:
            break
        begin = time.perf_counter()
        count = play_results(round_, users, jobs)
        phases["results"] += time.perf_counter() - begin
        timed("close", services.close_round, round_, actor=organizer)
        log(
            f"build: round {number} closed ({count:,} results) "
            f"at {time.perf_counter() - started:.0f} s"
        )

    current = Round.objects.get(event=event, number=closed_rounds + 1)
    plan = []
    rows = (
        Match.objects.filter(round=current, player2__isnull=False)
        .order_by("table")
        .values_list(
            "pk", "table", "version", "player1__player__username", "player2__player__username"
        )
    )
    for pk, table, version, player1, player2 in rows:
        record = RECORDS[(current.number * BURST_ROUND_OFFSET + table) % len(RECORDS)]
        plan.append(
            {
                "match": pk,
                "table": table,
                "version": version,
                "player1": player1,
                "player2": player2,
                "record": record,
                "games": games_for(record),
            }
        )

    # A database session per player, as django.contrib.auth.login() stores it.
    store = SessionStore()
    expires = timezone.now() + dt.timedelta(days=30)
    backend = "django.contrib.auth.backends.ModelBackend"
    sessions = {}
    rows = []
    user_model = type(organizer)
    for user in user_model.objects.filter(pk__in=list(users)).order_by("username"):
        key = get_random_string(32, "abcdefghijklmnopqrstuvwxyz0123456789")
        data = {
            SESSION_KEY: str(user.pk),
            BACKEND_SESSION_KEY: backend,
            HASH_SESSION_KEY: user.get_session_auth_hash(),
        }
        rows.append(Session(session_key=key, session_data=store.encode(data), expire_date=expires))
        sessions[user.username] = key
    with transaction.atomic():
        Session.objects.bulk_create(rows, batch_size=1000)

    meta = {
        "build_version": BUILD_VERSION,
        "event": event.pk,
        "round": current.number,
        "players": sorted(sessions),
        "password": PASSWORD,
        "sessions": sessions,
        "burst": plan,
        "build_seconds": round(time.perf_counter() - started, 1),
        "build_phases": {name: round(value, 1) for name, value in phases.items()},
        "built_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    meta_path.write_text(json.dumps(meta))
    log(f"build: done in {meta['build_seconds']:.0f} s ({meta['build_phases']})")


# --- the database ------------------------------------------------------------------------


class Database:
    """The scratch database on the PostgreSQL server; nothing else is touched."""

    def __init__(self, server: str, name: str):
        self.server = server.rstrip("/")
        self.name = name
        self.url = f"{self.server}/{name}"
        self.admin_url = f"{self.server}/postgres"

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as connection:
            connection.execute(sql)

    def recreate(self) -> None:
        self._admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        self._admin(f'CREATE DATABASE "{self.name}"')

    def drop(self) -> None:
        self._admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')

    def dump(self, path: Path) -> None:
        tmp = path.with_suffix(".tmp")
        subprocess.run(
            ["pg_dump", "--format=custom", "--no-owner", f"--file={tmp}", self.url], check=True
        )
        tmp.replace(path)

    def restore(self, path: Path) -> None:
        self.recreate()
        subprocess.run(
            ["pg_restore", "--no-owner", "--jobs=2", f"--dbname={self.url}", str(path)],
            check=True,
        )
        self.query("ANALYZE")

    def query(self, sql: str, params=()):
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            cursor = connection.execute(sql, params)
            return cursor.fetchall() if cursor.description else None


def cache_key(checkout: Path, players: int, closed_rounds: int) -> str:
    """Dumps are valid for one schema: the checkout's migration files (names and text)."""
    digest = hashlib.sha256(f"{BUILD_VERSION}/{players}/{closed_rounds}".encode())
    for path in sorted(checkout.glob("*/migrations/*.py")):
        digest.update(str(path.relative_to(checkout)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def prepare_database(args, database: Database, checkout: Path) -> tuple[dict, dict]:
    """Restore (``--reuse``) or build the event; returns (meta, timing)."""
    cache = Path(args.cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    key = cache_key(checkout, args.players, args.closed_rounds)
    dump = cache / f"venue_{args.players}_{key}.dump"
    meta_path = cache / f"venue_{args.players}_{key}.json"
    started = time.perf_counter()
    if args.reuse and dump.exists() and meta_path.exists():
        log(f"restoring {dump}")
        database.restore(dump)
        meta = json.loads(meta_path.read_text())
        return meta, {"reused": True, "restore_seconds": round(time.perf_counter() - started, 1)}
    if args.reuse:
        log(f"--reuse: no saved build {dump.name} for this schema: building")
    database.recreate()
    env = dict(os.environ, PYTHONPATH=str(checkout))
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--_build",
        str(meta_path),
        "--players",
        str(args.players),
        "--closed-rounds",
        str(args.closed_rounds),
        "--build-jobs",
        str(args.build_jobs),
        "--db-name",
        args.db_name,
        "--pg",
        args.pg,
    ]
    subprocess.run(command, cwd=checkout, env=env, check=True)
    build_seconds = time.perf_counter() - started
    database.query("ANALYZE")
    database.dump(dump)
    meta = json.loads(meta_path.read_text())
    return meta, {
        "reused": False,
        "build_seconds": round(build_seconds, 1),
        "build_phases": meta.get("build_phases"),
        "dump": str(dump),
    }


# --- the server ---------------------------------------------------------------------------


def free_port(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def pick_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_env(args, database: Database, checkout: Path) -> dict:
    env = dict(os.environ)
    for name in ("CELERY_BROKER_URL", "CACHE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"):
        env.pop(name, None)
    env.update(
        DEBUG="false",
        SECRET_KEY=SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        DATABASE_URL=database.url,
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(checkout),
    )
    if not args.no_redis:
        env["REDIS_URL"] = f"redis://127.0.0.1:6379/{args.redis_db}"
    return env


def flush_redis(db: int) -> None:
    import redis

    redis.Redis(host="127.0.0.1", port=6379, db=db).flushdb()


class Server:
    def __init__(self, args, env: dict, checkout: Path, run_dir: Path):
        self.args = args
        self.env = env
        self.checkout = checkout
        self.port = args.port or pick_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = run_dir / "gunicorn.log"
        bin_dir = Path(sys.executable).parent
        config_file = checkout / "config" / "gunicorn.conf.py"
        if config_file.exists():
            self.command = [str(bin_dir / "gunicorn"), "-c", "config/gunicorn.conf.py"]
        else:
            self.command = [str(bin_dir / "gunicorn"), "-w", "4"]
        if args.workers:
            self.command += ["-w", str(args.workers)]
        self.command += ["--bind", f"127.0.0.1:{self.port}", "config.wsgi"]
        self.process: subprocess.Popen | None = None

    def prepare(self) -> str:
        """Message catalogues, migrations and (when the checkout's storage needs a manifest
        and it is missing or older than static/) collectstatic; returns the settings file
        the server will load (checked to be the checkout's)."""
        python = sys.executable
        run = {"cwd": self.checkout, "env": self.env, "check": True}
        if not any((self.checkout / "locale").glob("*/LC_MESSAGES/django.mo")):
            babel = Path(python).parent / "pybabel"
            subprocess.run(
                [str(babel), "-q", "compile", "--domain", "django", "--directory", "locale"], **run
            )
        subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], **run)
        probe = (
            subprocess.run([python, "-c", PROBE], **run, capture_output=True, text=True)
            .stdout.strip()
            .splitlines()[-1]
        )
        found = json.loads(probe)
        if not Path(found["settings"]).resolve().is_relative_to(self.checkout.resolve()):
            sys.exit(f"the server would load {found['settings']}, not the checkout {self.checkout}")
        if "Manifest" in found["storage"]:
            manifest = Path(found["static_root"]) / "staticfiles.json"
            sources = [
                p.stat().st_mtime for p in (self.checkout / "static").rglob("*") if p.is_file()
            ]
            stale = not manifest.exists() or manifest.stat().st_mtime < max(sources, default=0)
            if stale or self.args.collectstatic:
                log(f"collectstatic into {found['static_root']} (compressing: a minute or two)")
                subprocess.run([python, "manage.py", "collectstatic", "--noinput", "-v0"], **run)
        return found["settings"]

    def start(self) -> None:
        if not free_port(self.port):
            sys.exit(f"port {self.port} is in use (--port)")
        log(f"starting {' '.join(self.command)} in {self.checkout}")
        self.log_file = self.log_path.open("a")
        self.process = subprocess.Popen(
            self.command,
            cwd=self.checkout,
            env=self.env,
            stdout=self.log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"gunicorn exited ({self.process.returncode}):\n{self.tail()}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.3)
        self.stop()
        sys.exit(f"gunicorn did not answer on {self.url} within 60 s:\n{self.tail()}")

    def drain(self, probes: int = 8) -> float:
        """Wait until the server has worked off every request queued so far (Locust gives
        up on unanswered ones, but gunicorn still accepts and serves them): ``probes``
        cheap requests at once, queued behind the rest; returns the seconds waited."""
        started = time.perf_counter()
        with ThreadPoolExecutor(probes) as pool:
            list(pool.map(lambda url: fetch(url, timeout=1800), [self.url + "/"] * probes))
        return time.perf_counter() - started

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def restart(self) -> float:
        """Quick shutdown (SIGINT: workers stop at once, the queued connections are
        dropped) and a new start; returns the seconds it took."""
        started = time.perf_counter()
        self.stop(quick=True)
        self.start()
        return time.perf_counter() - started

    def stop(self, quick: bool = False) -> None:
        if self.process and self.process.poll() is None:
            # SIGTERM: the master lets the workers finish their requests; SIGINT: at once.
            self.process.send_signal(signal.SIGINT if quick else signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def fetch(url: str, cookie: str | None = None, timeout: float = 300) -> tuple[int, int, float]:
    """GET without following redirects: (status, wire bytes, seconds)."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    if cookie:
        request.add_header("Cookie", cookie)
    started = time.perf_counter()
    try:
        with opener.open(request, timeout=timeout) as response:
            body = response.read()
            return response.status, len(body), time.perf_counter() - started
    except urllib.error.HTTPError as error:
        return error.code, 0, time.perf_counter() - started


# --- Locust --------------------------------------------------------------------------------


def percentile(ordered: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not ordered:
        return float("nan")
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


UNFINISHED = "unfinished at stop"


def summarize(records: list[list], names: set[str] | None = None) -> dict:
    """Figures of Locust requests recorded by venue_locust.py:
    [name, start (epoch s), response ms, status, ok, wire bytes, body bytes, error].
    Requests still unanswered at the end of a step count as errors with the time waited so
    far, so every percentile is then a lower bound (marked ≥); req/s counts answers."""
    chosen = [r for r in records if names is None or r[0] in names]
    if not chosen:
        return {"requests": 0}
    times = sorted(r[2] for r in chosen)
    begin = min(r[1] for r in chosen)
    end = max(r[1] + r[2] / 1000 for r in chosen)
    window = max(end - begin, 1e-9)
    answered = [r for r in chosen if r[7] != UNFINISHED]
    statuses: dict[str, int] = {}
    errors: dict[str, int] = {}
    for r in chosen:
        statuses[str(r[3])] = statuses.get(str(r[3]), 0) + 1
        if not r[4]:
            key = r[7] or str(r[3])
            errors[key] = errors.get(key, 0) + 1
    sizes = [r[5] for r in chosen if r[3] == 200 and r[5] is not None]
    bodies = [r[6] for r in chosen if r[3] == 200 and r[6]]
    return {
        "requests": len(chosen),
        "unfinished": len(chosen) - len(answered),
        "seconds": round(window, 2),
        "rps": round(len(answered) / window, 2),
        "p50_ms": round(percentile(times, 0.50), 1),
        "p95_ms": round(percentile(times, 0.95), 1),
        "p99_ms": round(percentile(times, 0.99), 1),
        "max_ms": round(times[-1], 1),
        "errors": sum(errors.values()),
        "server_errors": sum(n for s, n in statuses.items() if s.startswith("5")),
        "error_kinds": errors,
        "statuses": statuses,
        "wire_kb": round(sum(sizes) / len(sizes) / 1024, 1) if sizes else None,
        "body_kb": round(sum(bodies) / len(bodies) / 1024, 1) if bodies else None,
    }


def run_locust(
    args, server: Server, run_dir: Path, step: str, config: dict, users: int, run_time: str
) -> list[list]:
    """One headless Locust run (subprocess); returns its request records."""
    config_path = run_dir / f"{step}.config.json"
    out_path = run_dir / f"{step}.requests.json"
    config = {**config, "out": str(out_path), "users": users}
    config_path.write_text(json.dumps(config))
    command = [
        sys.executable,
        "-m",
        "locust",
        "-f",
        str(LOCUSTFILE),
        "--headless",
        "-u",
        str(users),
        "-r",
        str(users),
        "-t",
        run_time,
        "--host",
        server.url,
        "--csv",
        str(run_dir / step),
        "--only-summary",
        "--loglevel",
        "WARNING",
        "--stop-timeout",
        str(args.stop_timeout),
    ]
    env = dict(os.environ, VENUE_CONFIG=str(config_path))
    with (run_dir / f"{step}.locust.log").open("w") as output:
        result = subprocess.run(command, env=env, stdout=output, stderr=subprocess.STDOUT)
    if not out_path.exists():
        sys.exit(
            f"locust step {step} wrote no results (exit {result.returncode}); "
            f"see {run_dir / (step + '.locust.log')}"
        )
    return json.loads(out_path.read_text())


def sign_in(args, server: Server, run_dir: Path, players: list[str]) -> tuple[list, dict]:
    """Sign ``players`` in over HTTP; returns their cookies and the figures."""
    concurrency = min(len(players), args.login_clients)
    config = {
        "mode": "login",
        "logins": [{"username": name, "password": PASSWORD} for name in players],
    }
    records = run_locust(args, server, run_dir, "login", config, concurrency, "30m")
    signed = json.loads((run_dir / "login.sessions.json").read_text())
    missing = [name for name in players if name not in signed]
    if missing:
        sys.exit(f"sign-in failed for {len(missing)} players, e.g. {missing[:3]}: see {run_dir}")
    figures = summarize(records, {"POST /accounts/login/"})
    figures.update(page="sign-in (POST /accounts/login/)", clients=concurrency)
    return [{"username": name, **signed[name]} for name in players], figures


def warm_up(server: Server, paths: dict[str, str], cookie: str, workers: int) -> dict:
    """Each page ``workers`` times at once before any measurement (cold workers pay for
    imports and the URL resolver); returns the slowest time per page."""
    cold = {}
    with ThreadPoolExecutor(workers) as pool:
        for key, path in paths.items():
            urls = [server.url + path] * workers
            results = list(pool.map(lambda url: fetch(url, cookie), urls))
            bad = [status for status, _, _ in results if not 200 <= status < 400]
            if bad:
                log(f"warm-up {path}: HTTP {bad}")
            cold[key] = round(max(seconds for _, _, seconds in results) * 1000)
    return cold


def read_steps(args, server, run_dir, meta, players) -> list[dict]:
    rows = []
    cold = False
    cookie = f"sessionid={players[0]['sessionid']}"
    for key in args.pages:
        label, template, paged = PAGES[key]
        label = label.format(round=meta["round"])
        path = template.format(event=meta["event"], round=meta["round"])
        for clients in args.clients:
            if cold:  # restarted after the last step: warm the new workers up first
                warm_up(server, {key: path}, cookie, args.workers or 4)
                cold = False
            step = f"read-{key}-{clients}"
            log(f"{label}: {clients} clients, {args.duration} s")
            config = {
                "mode": "read",
                "name": label,
                "path": path,
                "random_page": args.random_page if paged else 0,
                "conditional": args.conditional,
                "players": players,
                "anonymous": key in ANONYMOUS_PAGES,
            }
            load_before = os.getloadavg()[0]
            records = run_locust(args, server, run_dir, step, config, clients, f"{args.duration}s")
            figures = summarize(records)
            figures.update(
                page=label,
                path=path,
                clients=clients,
                load1_before=round(load_before, 2),
                load1_after=round(os.getloadavg()[0], 2),
            )
            if figures.get("unfinished"):
                # gunicorn would still serve every abandoned request before the next step's:
                # drop them with the workers instead of waiting.
                figures["restart_seconds"] = round(server.restart(), 1)
                cold = True
                after = f"server restarted to drop them ({figures['restart_seconds']} s)"
            else:
                figures["drain_seconds"] = round(server.drain(), 1)
                after = f"queue drained in {figures['drain_seconds']} s"
            rows.append(figures)
            log(
                f"  {figures.get('rps', 0):.1f} req/s, p50 {figures.get('p50_ms')} ms, "
                f"p95 {figures.get('p95_ms')} ms, errors {figures.get('errors')} "
                f"({figures.get('unfinished', 0)} unfinished); {after}"
            )
    return rows


# --- the write burst ----------------------------------------------------------------------


def burst(args, server, run_dir, meta, database: Database) -> tuple[dict, dict]:
    plan = meta["burst"][: args.burst_tables] if args.burst_tables else meta["burst"]
    sessions = meta["sessions"]
    event = meta["event"]
    # The build's database sessions must be accepted by the served code.
    first = plan[0]
    status, _, _ = fetch(
        f"{server.url}/events/{event}/me/match/", cookie=f"sessionid={sessions[first['player1']]}"
    )
    if status != 200:
        sys.exit(
            f"the server refuses the build's database sessions (my match page: HTTP {status}); "
            "has SESSION_ENGINE changed? The write burst needs them."
        )
    before = database.query(
        """SELECT (SELECT count(*) FROM tournaments_auditentry WHERE event_id = %s),
                  (SELECT count(*) FROM tournaments_resultreport rr
                     JOIN tournaments_match m ON m.id = rr.match_id
                     JOIN tournaments_round r ON r.id = m.round_id WHERE r.event_id = %s)""",
        (event, event),
    )[0]
    tables = [
        {
            "match": item["match"],
            "version": item["version"],
            "games": item["games"],
            "session1": sessions[item["player1"]],
            "session2": sessions[item["player2"]],
        }
        for item in plan
    ]
    config = {"mode": "burst", "event": event, "tables": tables, "csrf": CSRF_TOKEN}
    clients = min(args.burst_clients, len(tables))
    log(f"write burst: {len(tables):,} report/confirm pairs, {clients} clients")
    load_before = os.getloadavg()[0]
    records = run_locust(args, server, run_dir, "burst", config, clients, "30m")
    figures = summarize(records)
    figures.update(
        page=f"write burst: {len(tables):,} report + confirm (API)",
        clients=clients,
        load1_before=round(load_before, 2),
        load1_after=round(os.getloadavg()[0], 2),
        report=summarize(records, {"POST report"}),
        confirm=summarize(records, {"POST confirm"}),
    )
    checks = check_burst(database, event, meta["round"], plan, before)
    return figures, checks


def check_burst(database: Database, event: int, number: int, plan: list, before) -> dict:
    expected = {item["match"]: item["record"] for item in plan}
    rows = database.query(
        """
        SELECT m.id, m.status, m.wins, m.losses, m.draws, m.version,
          (SELECT coalesce(array_agg(rr.kind || ':' || rr.match_version
                                     ORDER BY rr.match_version), '{}')
             FROM tournaments_resultreport rr WHERE rr.match_id = m.id),
          (SELECT coalesce(array_agg(a.action || ':' || coalesce(a.object_version, 0)
                                     ORDER BY a.object_version, a.id), '{}')
             FROM tournaments_auditentry a
            WHERE a.object_type = 'match' AND a.object_id = m.id)
        FROM tournaments_match m JOIN tournaments_round r ON r.id = m.round_id
        WHERE r.event_id = %s AND r.number = %s AND m.player2_id IS NOT NULL
        """,
        (event, number),
    )
    after = database.query(
        """SELECT (SELECT count(*) FROM tournaments_auditentry WHERE event_id = %s),
                  (SELECT count(*) FROM tournaments_resultreport rr
                     JOIN tournaments_match m ON m.id = rr.match_id
                     JOIN tournaments_round r ON r.id = m.round_id WHERE r.event_id = %s)""",
        (event, event),
    )[0]
    problems = []
    confirmed = right_record = right_reports = right_audit = 0
    for pk, status, wins, losses, draws, version, reports, audits in rows:
        if pk not in expected:
            continue
        record = expected[pk].split("-")
        record = [int(x) for x in record] + [0] * (3 - len(record))
        ok_status = status == "confirmed" and version == 3
        ok_record = [wins, losses, draws] == record
        ok_reports = list(reports) == ["report:2", "confirm:3"]
        ok_audit = list(audits) == ["match.reported:2", "match.confirmed:3"]
        confirmed += ok_status
        right_record += ok_record
        right_reports += ok_reports
        right_audit += ok_audit
        if not (ok_status and ok_record and ok_reports and ok_audit) and len(problems) < 10:
            problems.append(
                {
                    "match": pk,
                    "status": status,
                    "version": version,
                    "record": [wins, losses, draws],
                    "expected": expected[pk],
                    "reports": list(reports),
                    "audit": list(audits),
                }
            )
    count = len(expected)
    audit_added = after[0] - before[0]
    reports_added = after[1] - before[1]
    return {
        "matches": count,
        "confirmed_once_v3": confirmed,
        "record_as_sent": right_record,
        "two_result_reports": right_reports,
        "two_audit_entries": right_audit,
        "audit_entries_added": audit_added,
        "result_reports_added": reports_added,
        "ok": (
            confirmed == right_record == right_reports == right_audit == count
            and audit_added == reports_added == 2 * count
        ),
        "problems": problems,
    }


# --- output ----------------------------------------------------------------------------------


def fmt(value, digits: int = 0) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:,.{digits}f}"


def table(rows: list[dict]) -> str:
    lines = [
        "| page | clients | req/s | p50 ms | p95 ms | p99 ms | errors | requests "
        "| KB wire (body) | 304s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        if not row.get("requests"):
            lines.append(f"| {row['page']} | {row['clients']} | – | – | – | – | – | 0 | – | – |")
            continue
        size = f"{fmt(row['wire_kb'], 1)} ({fmt(row['body_kb'], 1)})" if row.get("wire_kb") else "–"
        bound = "≥" if row.get("unfinished") else ""
        errors = str(row["errors"])
        if row.get("unfinished"):
            errors += f" ({row['unfinished']} unfinished)"
        lines.append(
            f"| {row['page']} | {row['clients']} | {fmt(row['rps'], 1)} "
            f"| {bound}{fmt(row['p50_ms'])} | {bound}{fmt(row['p95_ms'])} "
            f"| {bound}{fmt(row['p99_ms'])} | {errors} "
            f"| {row['requests']:,} | {size} | {row['statuses'].get('304', 0)} |"
        )
    return "\n".join(lines)


def commit_of(checkout: Path) -> str:
    try:
        head = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return head + ("+uncommitted changes" if dirty else "")
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--players", type=int, default=5000)
    add("--closed-rounds", type=int, default=5, help="Swiss rounds played before the measured one")
    add("--reuse", action="store_true", help="restore the saved build instead of building")
    add("--build-jobs", type=int, default=2, help="processes recording results while building")
    add("--cache-dir", default=os.path.expanduser("~/.cache/crossover-bench"))
    add("--pg", default="postgresql://postgres@127.0.0.1:5432", help="the PostgreSQL server")
    add("--db-name", default="crossover_bench_venue", help="the scratch database (dropped!)")
    add("--drop", action="store_true", help="drop the scratch database at the end")
    add("--checkout", default=str(ROOT), help="serve (and build with) this checkout's code")
    add("--port", type=int, default=0, help="default: a free port")
    add("--collectstatic", action="store_true", help="run collectstatic even if up to date")
    add("--workers", type=int, default=0, help="gunicorn workers (default: config or 4)")
    add("--no-redis", action="store_true", help="local-memory cache instead of Redis")
    add("--redis-db", type=int, default=5, help="Redis database number (flushed first)")
    add("--clients", default="1,10,50", help="comma-separated concurrent client counts")
    add("--pages", default=",".join(PAGES), help="comma-separated: " + ", ".join(PAGES))
    add("--duration", type=int, default=15, help="seconds per read step")
    add(
        "--stop-timeout",
        type=int,
        default=30,
        help="seconds to wait for answers after a step (then: errors, 'unfinished')",
    )
    add("--random-page", type=int, default=0, metavar="N", help="?page=1..N on paged pages")
    add("--conditional", action="store_true", help="send If-None-Match with the last ETag")
    add("--login-clients", type=int, default=10, help="concurrent sign-ins")
    add("--burst-clients", type=int, default=50)
    add("--burst-tables", type=int, default=0, help="only the first N tables (default all)")
    add("--build-only", action="store_true", help="build (or restore) the database and stop")
    add("--no-read", action="store_true", help="skip the read steps")
    add("--no-burst", action="store_true", help="skip the write burst")
    add("--json", help="write the figures to this file")
    add("--run-dir", help="where Locust CSVs and logs go (default: a new folder in /tmp)")
    add("--_build", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.clients = [int(n) for n in str(args.clients).split(",") if n]
    args.pages = [p for p in str(args.pages).split(",") if p]
    unknown = set(args.pages) - set(PAGES)
    if unknown:
        parser.error(f"unknown pages {sorted(unknown)}; known: {', '.join(PAGES)}")
    if args.players < 2 or args.players % 2:
        parser.error("--players must be even")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    database = Database(args.pg, args.db_name)
    if args._build:
        build(Path(args._build), args.players, args.closed_rounds, database.url, args.build_jobs)
        return 0

    checkout = Path(args.checkout).resolve()
    run_dir = (
        Path(args.run_dir)
        if args.run_dir
        else Path(f"/tmp/venue_load_{time.strftime('%Y%m%d_%H%M%S')}")
    )
    run_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    load_start = os.getloadavg()
    commit = commit_of(checkout)
    log(f"checkout {checkout} at {commit}; run folder {run_dir}")

    meta, prepared = prepare_database(args, database, checkout)
    prepared_seconds = time.perf_counter() - started
    if args.build_only:
        log(f"database ready in {prepared_seconds:.0f} s: {prepared}")
        return 0
    env = server_env(args, database, checkout)
    if not args.no_redis:
        flush_redis(args.redis_db)
    server = Server(args, env, checkout, run_dir)
    served = server.prepare()
    results: dict = {
        "machine": {
            "nproc": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
        "checkout": str(checkout),
        "commit": commit,
        "server": " ".join(server.command),
        "cache": "local memory" if args.no_redis else f"redis db {args.redis_db}",
        "event": meta["event"],
        "players": len(meta["players"]),
        "round": meta["round"],
        "prepare": prepared,
        "options": {
            "duration": args.duration,
            "clients": args.clients,
            "random_page": args.random_page,
            "conditional": args.conditional,
        },
        "loadavg_start": [round(x, 2) for x in load_start],
    }
    rows: list[dict] = []
    try:
        server.start()
        log(f"serving {served} at {server.url}")
        load_before = os.getloadavg()
        results["loadavg_before"] = [round(x, 2) for x in load_before]
        measured = time.perf_counter()
        if not args.no_read:
            players_needed = meta["players"][: max(args.clients)]
            players, login = sign_in(args, server, run_dir, players_needed)
            rows.append(login)
            paths = {
                key: PAGES[key][1].format(event=meta["event"], round=meta["round"])
                for key in args.pages
            }
            cookie = f"sessionid={players[0]['sessionid']}"
            results["cold_ms"] = warm_up(server, paths, cookie, args.workers or 4)
            rows += read_steps(args, server, run_dir, meta, players)
        if not args.no_burst:
            burst_row, checks = burst(args, server, run_dir, meta, database)
            results["burst"] = burst_row
            results["burst_checks"] = checks
            rows.append(burst_row)
        results["measured_seconds"] = round(time.perf_counter() - measured, 1)
        results["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        server.stop()
        if args.drop:
            database.drop()
    results["rows"] = rows
    results["total_seconds"] = round(time.perf_counter() - started, 1)

    print()
    print(
        f"venue load: {results['players']:,} players, event {meta['event']}, round "
        f"{meta['round']} published; checkout {checkout} at {commit}"
    )
    print(f"server: {results['server']} ({results['cache']}); machine: nproc {os.cpu_count()}")
    if prepared["reused"]:
        print(f"database: restored from the saved build in {prepared['restore_seconds']} s")
    else:
        print(
            f"database: built in {prepared['build_seconds']} s "
            f"(services, by phase: {prepared.get('build_phases')})"
        )
    print(
        f"load average before {' '.join(map(str, results.get('loadavg_before', [])))}, "
        f"after {' '.join(map(str, results.get('loadavg_after', [])))}"
    )
    if "cold_ms" in results:
        print(f"first requests (cold workers, ms): {results['cold_ms']}")
    print()
    print(table(rows))
    if "burst_checks" in results:
        checks = results["burst_checks"]
        burst_row = results["burst"]
        print()
        for kind in ("report", "confirm"):
            part = burst_row[kind]
            print(
                f"  POST {kind}: {part.get('requests', 0):,} requests, p50 {part.get('p50_ms')} "
                f"ms, p95 {part.get('p95_ms')} ms, p99 {part.get('p99_ms')} ms, "
                f"errors {part.get('errors')} {part.get('error_kinds') or ''}"
            )
        print(
            f"  server errors (5xx): {burst_row.get('server_errors', 0)}; "
            f"statuses {burst_row.get('statuses')}"
        )
        print(
            f"DB checks ({'OK' if checks['ok'] else 'FAILED'}): of {checks['matches']:,} matches "
            f"{checks['confirmed_once_v3']:,} confirmed at version 3, "
            f"{checks['record_as_sent']:,} with the record sent, "
            f"{checks['two_result_reports']:,} with exactly 2 ResultReports (report v2, "
            f"confirm v3), {checks['two_audit_entries']:,} with exactly 2 audit entries "
            f"(match.reported v2, match.confirmed v3); rows added: "
            f"{checks['result_reports_added']:,} ResultReports, "
            f"{checks['audit_entries_added']:,} audit entries"
        )
        for problem in checks["problems"]:
            print(f"  problem: {problem}")
    print(
        f"\nprepare {prepared_seconds:.0f} s, measured {results.get('measured_seconds')} s, "
        f"total {results['total_seconds']:.0f} s; Locust logs and CSVs in {run_dir}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
        print(f"figures written to {args.json}")
    failed = any(row.get("errors") for row in rows) or (
        "burst_checks" in results and not results["burst_checks"]["ok"]
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
