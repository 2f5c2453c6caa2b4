# ruff: noqa: N999 - gunicorn looks for this file name (gunicorn.conf.py), not a module
"""gunicorn settings for the production web tier (`./dev prod`, README "Production").

    gunicorn -c config/gunicorn.conf.py config.wsgi

The values below come from the environment (a bad value stops gunicorn with a message
naming the variable); any other gunicorn setting can be given in GUNICORN_CMD_ARGS or on
the command line (`./dev prod --graceful-timeout 60`), which win over this file.
"""

from __future__ import annotations

import gc
import os
import sys

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def _raw(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def _int(name: str, default: int, minimum: int = 0) -> int:
    value = _raw(name)
    if value is None:
        return default
    if not value.isdigit() or int(value) < minimum:
        sys.exit(f"gunicorn.conf.py: {name}={value!r} is not a whole number ≥ {minimum}.")
    return int(value)


def _bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in TRUE_WORDS:
        return True
    if value.lower() in FALSE_WORDS:
        return False
    sys.exit(f"gunicorn.conf.py: {name}={value!r} is not a boolean (true/false, 1/0, yes/no).")


CORES = os.cpu_count() or 1

# Where to listen: one or more addresses, comma-separated (host:port or unix:/path).
# Loopback by default; the TLS proxy in front connects here.
bind = [address.strip() for address in (_raw("GUNICORN_BIND") or "127.0.0.1:8000").split(",")]

# Processes × threads: one process per core, four threads each (gthread). Measured here
# with wrk, 50 clients, against sync workers (2 × cores + 1 = 5 processes): the same CPU
# per request within the noise (2.3-3.3 ms for the home page, 7-11 ms for the event list:
# the GIL costs nothing measurable at these request sizes), 35-50 % more
# requests/s on the home and event-list pages in 20 of 22 paired runs, a similar p90 and a
# somewhat longer p99, and a third less memory (135 MB against 205 MB for the whole
# server). Threads also keep idle keep-alive connections and slow phones from holding a
# whole process. GUNICORN_THREADS=1 gives sync workers (then WEB_CONCURRENCY=5 here).
workers = _int("WEB_CONCURRENCY", default=CORES, minimum=1)
threads = _int("GUNICORN_THREADS", default=4, minimum=1)
worker_class = "gthread" if threads > 1 else "sync"

# A worker silent for this long is killed and replaced. With sync workers that is any
# request running longer; with threads only a worker whose main loop hangs (one slow
# request does not count). Synchronous exports are bounded by EXPORT_SYNC_LIMIT.
timeout = _int("GUNICORN_TIMEOUT", default=30, minimum=1)

# Recycle a worker after this many requests (with jitter so they do not all restart at
# once): a slow leak in any library cannot grow without bound. 0 turns it off.
max_requests = _int("GUNICORN_MAX_REQUESTS", default=10_000, minimum=0)
max_requests_jitter = max_requests // 10

# Load Django once in the master, then fork: workers start faster and share the loaded
# code's memory pages (with gc.freeze, below). A code deploy then needs a full restart
# (or USR2), not just HUP: HUP forks new workers from the old code.
preload_app = _bool("GUNICORN_PRELOAD", default=True)

# The access log costs a write per request; the proxy in front keeps one already.
# GUNICORN_ACCESS_LOG=- writes it to stdout, or give a file path.
accesslog = _raw("GUNICORN_ACCESS_LOG")
errorlog = "-"

# Heartbeat files in memory, not on a disk that may stall (gunicorn's advice for containers).
if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"

# gunicorn ≥ 25 opens a control socket in ~/.gunicorn by default: a second server on the
# machine (a test, the benchmark) would take it over. Opt in with GUNICORN_CONTROL_SOCKET.
control_socket = _raw("GUNICORN_CONTROL_SOCKET") or ""
control_socket_disable = not control_socket
if control_socket_disable:
    del control_socket

proc_name = "crossover-web"

# gc.freeze() once the application is loaded: the objects that exist then (Django, the
# URLconf, every imported module) move to a generation the collector never scans, so the
# workers' collections no longer write to the pages they share with the master
# (copy-on-write). Measured after the same requests: preload + freeze 135 MB, preload
# alone 186 MB, no preload 180 MB (2 × 4 threads); 205, 228-325 and 375 MB with 5 sync
# workers. CPU per request did not change measurably.
GC_FREEZE = _bool("GUNICORN_GC_FREEZE", default=True)


def _load_urlconf() -> None:
    # The URLconf (and through it every view module) is otherwise imported on the first
    # request of each worker; importing it here shares it and spares that request.
    from django.db import connections
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - the import is the point
    # Nothing should query at import time, but a connection opened in the master would be
    # shared by every forked worker: close it before forking.
    connections.close_all()


def when_ready(server) -> None:
    if preload_app:
        _load_urlconf()
        if GC_FREEZE:
            gc.collect()
            gc.freeze()


def post_worker_init(worker) -> None:
    if not preload_app:
        _load_urlconf()
        if GC_FREEZE:
            gc.collect()
            gc.freeze()
