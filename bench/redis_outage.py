"""Redis down for 20 s under load (issue #21, "Riding out a blip"): the production server
keeps answering the home page, an event's standings and the signed-in API.

    .venv/bin/python bench/redis_outage.py [--outage 20] [--before 10] [--after 15]
        [--clients 8] [--db-name crossover_bench_redis_outage] [--checkout DIR] [--json FILE]

1. **Data**: a scratch PostgreSQL database ``--db-name`` on 127.0.0.1:5432 (user
   ``postgres``; dropped and created again, no other database is touched): ``migrate``,
   ``setup_site`` and ``load_demo`` (the four demo events, players ``demo-player01`` … with
   the password ``demo-player``). The event is "Demo: mid-Swiss" (8 players, 2 rounds
   closed, round 3 running).
2. **Redis of its own**: ``redis-server`` on a free port in a temporary directory
   (``--save "" --appendonly no``), never the shared one on 6379.
3. **Server**: the production server as ``./dev prod`` starts it (``gunicorn -c
   config/gunicorn.conf.py config.wsgi``: one process per core, four threads each) from the
   checkout (``--checkout``, default this one) with this virtualenv, ``DEBUG=false``,
   ``DATABASE_URL`` the scratch database, ``CACHE_URL`` that Redis, ``LOG_LEVEL=WARNING``
   (its log is kept in the run folder), ``collectstatic`` into ``--static-root`` when the
   manifest is missing.
4. **Load**: ``demo-player01`` signs in over HTTP (login page, CSRF token, POST). Then
   ``--clients`` threads, each with a keep-alive connection, ask in a closed loop without
   think time, in turn: ``/`` (signed in), the event's standings page (signed out), the
   standings API and ``/api/v1/decks/`` (both signed in with the session). A signed-in
   answer that is not the player's (the home page without its "Log out" form, the decks
   API 403) counts as "signed out". One more thread asks ``/healthz`` every 0.5 s.
   Phases: ``--before`` seconds with Redis up; then Redis is killed (SIGKILL) and, after
   ``--outage`` seconds, started again on the same port, empty; ``--after`` seconds more.
5. **Report**: for each phase and page, the answers by status, "signed out", requests per
   second, p50/p95/max; the ``/healthz`` bodies by phase; the server's warnings about the
   cache (how many times each was logged) and its server errors; the load average
   (``/proc/loadavg``) before and after; the commit served. ``--json FILE`` writes it too.

Exit status 0 when no answer was a server error or a timeout, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
USERNAME = "demo-player01"
PASSWORD = "demo-player"
EVENT_NAME = "Demo: mid-Swiss"
SECRET_KEY = "bench-redis-outage-" + "x" * 40
REQUEST_TIMEOUT = 30.0

PROBE = """
import json, django
django.setup()
from django.urls import reverse
from tournaments.models import Event
event = Event.objects.get(name=%r)
standings = reverse("tournaments:standings", args=[event.pk])
print(json.dumps({"event": event.pk, "standings": standings}))
"""

LOG_LINES = {
    "cache unavailable": "cache unavailable (",
    "cache still unavailable": "cache still unavailable",
    "throttles fail open": "throttles fail open",
    "cache available again": "cache available again",
    "server errors": "Internal Server Error",
}


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().strip()


def commit_of(checkout: Path) -> str:
    result = subprocess.run(
        ["git", "-C", str(checkout), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip() or "unknown"


# --- pieces ---------------------------------------------------------------------------------


class Redis:
    """A redis-server of the benchmark's own."""

    def __init__(self, directory: Path) -> None:
        self.program = shutil.which("redis-server") or sys.exit("redis-server is not installed")
        self.directory = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with (self.directory / "redis.log").open("ab") as out:
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
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2),
            ):
                return
            time.sleep(0.05)
        sys.exit("redis-server did not start")

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill()


class Server:
    """gunicorn with config/gunicorn.conf.py, as ``./dev prod`` starts it."""

    def __init__(self, checkout: Path, env: dict, log_path: Path) -> None:
        self.checkout = checkout
        self.env = env
        self.port = free_port()
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    def manage(self, *arguments: str) -> None:
        subprocess.run(
            [sys.executable, "manage.py", *arguments],
            cwd=self.checkout,
            env=self.env,
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def probe(self) -> dict:
        result = subprocess.run(
            [sys.executable, "-c", PROBE % EVENT_NAME],
            cwd=self.checkout,
            env=self.env,
            check=True,
            capture_output=True,
            text=True,
        )
        return json.loads(result.stdout.strip().splitlines()[-1])

    def start(self) -> None:
        gunicorn = str(Path(sys.executable).parent / "gunicorn")
        env = {**self.env, "GUNICORN_BIND": f"127.0.0.1:{self.port}"}
        self.out = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [gunicorn, "--config", "config/gunicorn.conf.py", "config.wsgi"],
            cwd=self.checkout,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self.out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"gunicorn exited:\n{self.log_path.read_text(errors='replace')[-3000:]}")
            with contextlib.suppress(OSError, http.client.HTTPException):
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                connection.request("GET", "/healthz")
                if connection.getresponse().status == 200:
                    return
            time.sleep(0.3)
        sys.exit("gunicorn did not answer within 60 s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def recreate_database(name: str) -> str:
    import psycopg

    if not re.fullmatch(r"[a-z0-9_]+", name):
        sys.exit(f"--db-name {name!r}: lower-case letters, digits and _ only")
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as db:
        db.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        db.execute(f"CREATE DATABASE {name}")
    return f"postgres://postgres@127.0.0.1:5432/{name}"


def sign_in(port: int) -> str:
    """The session cookie of USERNAME, signed in through the login page."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT)
    connection.request("GET", "/accounts/login/")
    response = connection.getresponse()
    page = response.read().decode()
    csrf_cookie = re.search(r"csrftoken=([^;]+)", response.getheader("Set-Cookie", "")).group(1)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    body = urllib.parse.urlencode(
        {"username": USERNAME, "password": PASSWORD, "csrfmiddlewaretoken": token}
    )
    connection.request(
        "POST",
        "/accounts/login/",
        body=body,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf_cookie}",
            "Referer": f"http://127.0.0.1:{port}/accounts/login/",
        },
    )
    response = connection.getresponse()
    response.read()
    found = re.search(r"sessionid=([^;]+)", response.getheader("Set-Cookie", "") or "")
    if response.status != 302 or found is None:
        sys.exit(f"sign-in failed: {response.status}")
    return found.group(1)


# --- the load -------------------------------------------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.phase = "before"
        # (phase, page) -> list of (status or "timeout"/"error", seconds, signed_out)
        self.answers: dict[tuple[str, str], list] = defaultdict(list)
        self.health: dict[str, Counter] = defaultdict(Counter)
        self.phase_seconds: dict[str, float] = {}

    def add(self, page: str, status, seconds: float, signed_out: bool) -> None:
        with self.lock:
            self.answers[(self.phase, page)].append((status, seconds, signed_out))


def pages_of(meta: dict, session: str) -> list[tuple[str, str, str | None]]:
    """(name, path, cookie)."""
    cookie = f"sessionid={session}"
    event = meta["event"]
    return [
        ("home (signed in)", "/", cookie),
        ("standings page", meta["standings"], None),
        ("standings API (signed in)", f"/api/v1/events/{event}/standings/", cookie),
        ("my decks API (signed in)", "/api/v1/decks/", cookie),
    ]


def signed_out(name: str, status, body: bytes) -> bool:
    if status != 200 or "signed in" not in name:
        return status == 403
    if name.startswith("home"):
        # The frame's "Log out" form is there only for a signed-in visitor.
        return b'action="/accounts/logout/"' not in body
    return False


def client_loop(port: int, pages, recorder: Recorder, stop: threading.Event, offset: int):
    connection = None
    turn = offset
    while not stop.is_set():
        name, path, cookie = pages[turn % len(pages)]
        turn += 1
        headers = {"Accept-Encoding": "gzip"}
        if cookie:
            headers["Cookie"] = cookie
        started = time.perf_counter()
        try:
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT)
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            status = response.status
            if response.getheader("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
        except TimeoutError:
            status, body = "timeout", b""
            connection = None
        except (OSError, http.client.HTTPException):
            status, body = "error", b""
            connection = None
        recorder.add(name, status, time.perf_counter() - started, signed_out(name, status, body))


def health_loop(port: int, recorder: Recorder, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT)
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            answer = f"{response.status} {response.read().decode()}"
        except (OSError, http.client.HTTPException) as error:
            answer = type(error).__name__
        with recorder.lock:
            recorder.health[recorder.phase][answer] += 1
        stop.wait(0.5)


def percentile(ordered: list[float], fraction: float) -> float:
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[index]


def summarize(recorder: Recorder, pages) -> list[dict]:
    rows = []
    for phase in ("before", "outage", "after"):
        for name, _path, _cookie in pages:
            answers = recorder.answers.get((phase, name), [])
            seconds = sorted(s for _status, s, _out in answers)
            rows.append(
                {
                    "phase": phase,
                    "page": name,
                    "requests": len(answers),
                    "per_second": len(answers) / recorder.phase_seconds[phase],
                    "statuses": dict(sorted(Counter(str(s) for s, _, _ in answers).items())),
                    "signed_out": sum(1 for _s, _t, out in answers if out),
                    "p50_ms": percentile(seconds, 0.50) * 1000,
                    "p95_ms": percentile(seconds, 0.95) * 1000,
                    "max_ms": (seconds[-1] if seconds else float("nan")) * 1000,
                }
            )
    return rows


def print_table(rows: list[dict]) -> None:
    header = (
        f"{'phase':<7} {'page':<26} {'requests':>8} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'max ms':>7} {'signed out':>10}  statuses"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        statuses = ", ".join(f"{k}: {v}" for k, v in row["statuses"].items())
        print(
            f"{row['phase']:<7} {row['page']:<26} {row['requests']:>8} {row['per_second']:>7.1f} "
            f"{row['p50_ms']:>7.1f} {row['p95_ms']:>7.1f} {row['max_ms']:>7.1f} "
            f"{row['signed_out']:>10}  {statuses}"
        )


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--outage", type=float, default=20.0, help="seconds Redis stays down (20)")
    add("--before", type=float, default=10.0, help="seconds of load with Redis up first (10)")
    add("--after", type=float, default=15.0, help="seconds of load after Redis is back (15)")
    add("--clients", type=int, default=8, help="concurrent clients (8)")
    add("--db-name", default="crossover_bench_redis_outage", help="scratch database")
    add("--checkout", type=Path, default=ROOT, help="the checkout to serve (this one)")
    add(
        "--static-root",
        type=Path,
        default=Path.home() / ".cache" / "crossover-bench" / "redis-outage-static",
        help="collectstatic's folder (kept between runs)",
    )
    add("--json", type=Path, help="also write the figures to this file")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    checkout = args.checkout.resolve()
    run_dir = Path(tempfile.mkdtemp(prefix="redis-outage-"))
    log(f"run folder {run_dir}; serving {checkout} at {commit_of(checkout)}")
    redis = Redis(run_dir)
    redis.start()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CELERY_BROKER_URL", "CACHE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        DEBUG="false",
        SECRET_KEY=SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        DATABASE_URL=recreate_database(args.db_name),
        CACHE_URL=redis.url,
        STATIC_ROOT=str(args.static_root),
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(checkout),
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    server = Server(checkout, env, run_dir / "gunicorn.log")
    try:
        log("migrate, setup_site, load_demo")
        server.manage("migrate", "--noinput", "-v0")
        server.manage("setup_site")
        server.manage("load_demo", "--no-admin")
        if not (args.static_root / "staticfiles.json").exists():
            log(f"collectstatic into {args.static_root} (a minute or two)")
            server.manage("collectstatic", "--noinput", "-v0")
        meta = server.probe()
        server.start()
        pages = pages_of(meta, sign_in(server.port))
        log(f"event {meta['event']}; {args.clients} clients; load average {loadavg()}")
        recorder = Recorder()
        load_before = loadavg()
        stop = threading.Event()
        threads = [
            threading.Thread(
                target=client_loop, args=(server.port, pages, recorder, stop, n), daemon=True
            )
            for n in range(args.clients)
        ]
        threads.append(
            threading.Thread(target=health_loop, args=(server.port, recorder, stop), daemon=True)
        )
        for thread in threads:
            thread.start()

        started = time.monotonic()
        time.sleep(args.before)
        log("killing Redis")
        with recorder.lock:
            recorder.phase = "outage"
            recorder.phase_seconds["before"] = time.monotonic() - started
            started = time.monotonic()
        redis.kill()
        time.sleep(args.outage)
        redis.start()
        log("Redis started again on the same port")
        with recorder.lock:
            recorder.phase = "after"
            recorder.phase_seconds["outage"] = time.monotonic() - started
            started = time.monotonic()
        time.sleep(args.after)
        stop.set()
        for thread in threads:
            thread.join(timeout=REQUEST_TIMEOUT + 5)
        recorder.phase_seconds["after"] = time.monotonic() - started
        load_after = loadavg()
    finally:
        server.stop()
        redis.close()

    rows = summarize(recorder, pages)
    server_log = (run_dir / "gunicorn.log").read_text(errors="replace")
    lines = {name: server_log.count(text) for name, text in LOG_LINES.items()}
    print()
    print_table(rows)
    print()
    for phase in ("before", "outage", "after"):
        print(
            f"/healthz {phase:<7} "
            + ", ".join(f"{k!r}: {v}" for k, v in recorder.health[phase].items())
        )
    print("server log lines: " + ", ".join(f"{k}: {v}" for k, v in lines.items()))
    print(f"load average before: {load_before}")
    print(f"load average after:  {load_after}")
    print(f"nproc: {os.cpu_count()}; commit served: {commit_of(checkout)}; log: {run_dir}")
    failures = sum(
        count
        for row in rows
        for status, count in row["statuses"].items()
        if status in ("timeout", "error") or status.startswith("5")
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "rows": rows,
                    "healthz": {phase: dict(c) for phase, c in recorder.health.items()},
                    "log_lines": lines,
                    "loadavg": {"before": load_before, "after": load_after},
                    "commit": commit_of(checkout),
                    "clients": args.clients,
                    "outage_seconds": args.outage,
                },
                indent=2,
            )
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
