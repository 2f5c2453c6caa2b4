"""The production web tier: gunicorn with config/gunicorn.conf.py, WhiteNoise, gzip, and
the health endpoints (config/health.py).

The server tests start the real thing in a subprocess, as `./dev prod` does: DEBUG=false,
`collectstatic` into a scratch STATIC_ROOT, gunicorn on a free port, answering over real
HTTP from the test database (SQLite file or PostgreSQL, whichever this run uses).
"""

from __future__ import annotations

import gzip
import http.client
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import brotli
import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings

from tests.config.test_settings_env import SETTINGS_VARIABLES

SERVER_READY_TIMEOUT = 30
# Nothing listens on port 1 here: a connection there is refused at once.
CLOSED_PORT = 1

# Variables of this run that must not leak into the production subprocesses (the test run's
# own database choice is passed on explicitly, as DATABASE_URL).
PRIVATE_VARIABLES = {
    *SETTINGS_VARIABLES,
    "DJANGO_SETTINGS_MODULE",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "CACHE_URL",
    "REDIS_URL",
    "STATIC_ROOT",
    "DB_CONN_MAX_AGE",
    "WEB_CONCURRENCY",
}


def production_env(**variables: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in PRIVATE_VARIABLES and not key.startswith("GUNICORN_")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        PYTHONUNBUFFERED="1",
    )
    env.update(variables)
    return env


def database_url_of_this_run() -> str:
    """A DATABASE_URL naming the database this test process uses (the test one)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return "sqlite:///" + str(Path(db["NAME"]).resolve())  # sqlite:////absolute/path
    auth = quote(db.get("USER") or "", safe="")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"], safe="")
    host = db.get("HOST") or "localhost"
    port = db.get("PORT") or 5432
    return f"postgres://{auth}@{host}:{port}/{quote(db['NAME'], safe='')}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Response:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def decoded(self) -> bytes:
        encoding = self.headers.get("Content-Encoding")
        if encoding == "gzip":
            return gzip.decompress(self.body)
        if encoding == "br":
            return brotli.decompress(self.body)
        assert encoding is None, encoding
        return self.body


@dataclass
class Server:
    port: int
    process: subprocess.Popen
    log: Path
    static_root: Path

    def output(self) -> str:
        return f"--- gunicorn (exit code {self.process.poll()}) ---\n" + self.log.read_text(
            errors="replace"
        )

    def get(self, path: str, *, https: bool = True, **headers: str) -> Response:
        """GET over a fresh connection; https=True says so as the TLS proxy in front would."""
        headers = {key.replace("_", "-"): value for key, value in headers.items()}
        headers.setdefault("Host", "127.0.0.1")
        if https:
            headers["X-Forwarded-Proto"] = "https"
        client = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        try:
            client.request("GET", path, headers=headers)
            answer = client.getresponse()
            return Response(answer.status, answer.headers, answer.read())
        finally:
            client.close()


@pytest.fixture(scope="module")
def static_root(tmp_path_factory) -> Path:
    """`collectstatic` with the production storage (hashed names, .gz and .br copies).

    The API-docs and admin bundles (30 MB, most of a minute to compress with Brotli) are
    left out: the pages fetched here use only the project's own files.
    """
    root = tmp_path_factory.mktemp("staticfiles")
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "collectstatic",
            "--noinput",
            "--ignore=admin",
            "--ignore=rest_framework",
            "--ignore=drf_spectacular_sidecar",
        ],
        cwd=settings.BASE_DIR,
        env=production_env(STATIC_ROOT=str(root)),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (root / "staticfiles.json").exists(), result.stdout
    return root


@pytest.fixture(scope="module")
def server(django_db_setup, static_root, tmp_path_factory) -> Server:
    """gunicorn with the project's config, production settings and the test database."""
    port = free_port()
    log = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
    env = production_env(
        STATIC_ROOT=str(static_root),
        DATABASE_URL=database_url_of_this_run(),
        ALLOWED_HOSTS="127.0.0.1",
        BEHIND_HTTPS_PROXY="true",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="2",
    )
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py", "config.wsgi"],
            cwd=settings.BASE_DIR,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    running = Server(port, process, log, static_root)
    try:
        deadline = time.monotonic() + SERVER_READY_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"gunicorn exited before answering\n{running.output()}")
            try:
                if running.get("/healthz", https=False).status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"gunicorn did not answer within {SERVER_READY_TIMEOUT}s\n{running.output()}"
                )
            time.sleep(0.1)
        yield running
    finally:
        # The workers hold persistent database connections: they must be gone before the
        # test database is dropped.
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


# --- over real HTTP ---------------------------------------------------------------------


def test_production_server_serves_a_page_gzipped(server):
    response = server.get("/", Accept_Encoding="gzip")

    assert response.status == 200, server.output()
    assert response.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response.headers["Vary"]
    page = response.decoded().decode()
    assert "CrossOver tournaments" in page
    # Static files are linked by their content-hashed names from the manifest.
    assert re.search(r'href="/static/css/site\.[0-9a-f]{12}\.css"', page), page[:2000]
    assert response.headers["Strict-Transport-Security"].startswith("max-age=31536000")
    assert response.headers["Content-Security-Policy"].startswith(
        "default-src 'self'; script-src 'self'; style-src 'self';"
    )


def test_production_server_answers_uncompressed_when_not_asked(server):
    response = server.get("/", Accept_Encoding="identity")

    assert response.status == 200, server.output()
    assert "Content-Encoding" not in response.headers
    assert b"CrossOver tournaments" in response.body


def test_production_server_serves_hashed_static_files_compressed_and_cached(server):
    page = server.get("/").decoded().decode()
    css_url = re.search(r'href="(/static/css/site\.[0-9a-f]{12}\.css)"', page).group(1)
    original = (settings.BASE_DIR / "static" / "css" / "site.css").read_bytes()

    for accept, encoding in [("br, gzip", "br"), ("gzip", "gzip"), ("identity", None)]:
        response = server.get(css_url, Accept_Encoding=accept)

        assert response.status == 200, (accept, server.output())
        assert response.headers.get("Content-Encoding") == encoding, accept
        assert response.headers["Content-Type"].startswith("text/css"), accept
        # A hashed name never changes content: browsers and CDNs keep it for good.
        assert response.headers["Cache-Control"] == "max-age=315360000, public, immutable"
        assert "Accept-Encoding" in response.headers["Vary"]
        assert response.decoded() == original, accept


def test_production_server_unhashed_static_name_is_cached_briefly(server):
    response = server.get("/static/css/site.css", Accept_Encoding="gzip")

    assert response.status == 200, server.output()
    assert response.headers["Content-Encoding"] == "gzip"
    assert response.headers["Cache-Control"] == "max-age=60, public"


def test_production_server_missing_static_file_is_404(server):
    assert server.get("/static/css/nothing-here.css").status == 404


def test_production_server_health_endpoints_over_plain_http(server):
    # A load balancer probes over plain HTTP: no redirect to HTTPS for these two …
    live = server.get("/healthz", https=False)
    ready = server.get("/readyz", https=False)
    # … while every other page is sent to HTTPS.
    home = server.get("/", https=False)

    assert (live.status, live.body) == (200, b"ok"), server.output()
    assert ready.status == 200, ready.body
    assert json.loads(ready.body) == {
        "status": "ok",
        "checks": {"database": "ok", "cache": "ok"},
    }
    assert "no-cache" in ready.headers["Cache-Control"]
    assert home.status == 301
    assert home.headers["Location"] == "https://127.0.0.1/"


def test_production_server_writes_no_access_log_by_default(server):
    server.get("/healthz", https=False, User_Agent="access-log-probe")

    assert "access-log-probe" not in server.log.read_text(errors="replace")


# --- the health endpoints, in this process ----------------------------------------------


def test_healthz_answers_ok_without_the_database(client):
    # No database access is allowed in this test: the view must not touch it.
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.content == b"ok"
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
@override_settings(CELERY_BROKER_URL=None)
def test_readyz_names_every_check_when_ready(client):
    response = client.get("/readyz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "cache": "ok"}}


@pytest.mark.django_db
@override_settings(
    CELERY_BROKER_URL=None,
    CACHES={
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{CLOSED_PORT}/0",
        }
    },
)
def test_readyz_is_503_naming_the_cache_when_the_cache_is_down(client, caplog):
    response = client.get("/readyz")

    assert response.status_code == 503
    assert response.json() == {
        "status": "failed",
        "checks": {"database": "ok", "cache": "failed"},
        "failed": ["cache"],
    }
    # The reason is logged for the operator, not shown to whoever asks.
    assert "readiness check 'cache' failed" in caplog.text
    assert "Connection refused" in caplog.text or "Error 111" in caplog.text


@pytest.mark.django_db
@override_settings(CELERY_BROKER_URL=f"redis://127.0.0.1:{CLOSED_PORT}/0")
def test_readyz_is_503_naming_the_broker_when_the_broker_is_down(client):
    started = time.monotonic()
    response = client.get("/readyz")

    assert response.status_code == 503
    assert response.json() == {
        "status": "failed",
        "checks": {"database": "ok", "cache": "ok", "broker": "failed"},
        "failed": ["broker"],
    }
    assert time.monotonic() - started < 5  # no retry loop


BROKERS = {
    "redis": ("Redis", 6379, "redis://127.0.0.1:6379/15"),
    "rabbitmq": ("RabbitMQ", 5672, "amqp://guest:guest@127.0.0.1:5672//"),
}


@pytest.mark.services
@pytest.mark.django_db
@pytest.mark.parametrize("broker", sorted(BROKERS))
def test_readyz_checks_a_running_broker(client, broker):
    service, port, url = BROKERS[broker]
    try:
        socket.create_connection(("127.0.0.1", port), timeout=3).close()
    except OSError as exc:
        problem = f"{service} is not reachable at 127.0.0.1:{port} ({exc})"
        if os.environ.get("CI"):
            pytest.fail(f"{problem}; CI must run with {service} available", pytrace=False)
        pytest.skip(problem)

    with override_settings(CELERY_BROKER_URL=url):
        response = client.get("/readyz")

    assert response.status_code == 200, response.content
    assert response.json()["checks"] == {"database": "ok", "cache": "ok", "broker": "ok"}


READYZ_WITH_EVERYTHING_DOWN = """
import json, django
django.setup()
from django.test import Client
response = Client().get("/readyz")
print(json.dumps({"status": response.status_code, "body": response.json()}))
"""


def test_readyz_names_database_cache_and_broker_when_all_are_down():
    unreachable = f"127.0.0.1:{CLOSED_PORT}"
    result = subprocess.run(
        [sys.executable, "-c", READYZ_WITH_EVERYTHING_DOWN],
        cwd=settings.BASE_DIR,
        env=production_env(
            ALLOWED_HOSTS="testserver",
            SECURE_SSL_REDIRECT="false",
            DATABASE_URL=f"postgres://postgres@{unreachable}/crossover",
            CACHE_URL=f"redis://{unreachable}/0",
            CELERY_BROKER_URL=f"redis://{unreachable}/0",
        ),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer == {
        "status": 503,
        "body": {
            "status": "failed",
            "checks": {"database": "failed", "cache": "failed", "broker": "failed"},
            "failed": ["database", "cache", "broker"],
        },
    }
    for name in ("database", "cache", "broker"):
        assert f"readiness check '{name}' failed" in result.stderr


# --- production settings -----------------------------------------------------------------


def test_deployment_checks_pass_with_the_full_production_environment(tmp_path):
    """`./dev prod` runs this check; with every service configured it must stay clean."""
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=settings.BASE_DIR,
        env=production_env(
            ALLOWED_HOSTS="tournaments.example.org",
            CSRF_TRUSTED_ORIGINS="https://tournaments.example.org",
            DATABASE_URL="postgres://crossover:secret@db.internal:5432/crossover",
            CACHE_URL="redis://cache.internal:6379/1",
            CELERY_BROKER_URL="redis://cache.internal:6379/0",
            BEHIND_HTTPS_PROXY="true",
            STATIC_ROOT=str(tmp_path / "static"),
        ),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_deployment_checks_fail_on_a_weak_secret_key():
    # The check above would pass vacuously if warnings did not count.
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=settings.BASE_DIR,
        env=production_env(ALLOWED_HOSTS="tournaments.example.org", SECRET_KEY="short"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode != 0
    assert "security.W009" in result.stderr + result.stdout


SHOW_PRODUCTION_SETTINGS = """
import json, django
django.setup()
from django.conf import settings
from django.core.cache import cache, caches
from rest_framework.throttling import SimpleRateThrottle
print(json.dumps({
    "MIDDLEWARE": settings.MIDDLEWARE[:4],
    "STATICFILES_STORAGE": settings.STORAGES["staticfiles"]["BACKEND"],
    "SESSION_ENGINE": settings.SESSION_ENGINE,
    "CONN_MAX_AGE": settings.DATABASES["default"]["CONN_MAX_AGE"],
    "CONN_HEALTH_CHECKS": settings.DATABASES["default"]["CONN_HEALTH_CHECKS"],
    "CACHE": type(caches["default"]).__name__,
    "THROTTLES_USE_DEFAULT_CACHE": SimpleRateThrottle.cache is cache,
}))
"""


def production_settings(**variables: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", SHOW_PRODUCTION_SETTINGS],
        cwd=settings.BASE_DIR,
        env=production_env(**variables),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_production_settings_with_postgres_and_redis():
    loaded = production_settings(
        DATABASE_URL="postgres://crossover@db.internal:5432/crossover",
        REDIS_URL="redis://cache.internal:6379/1",
    )

    assert loaded == {
        "MIDDLEWARE": [
            "django.middleware.security.SecurityMiddleware",
            "config.csp.ContentSecurityPolicyMiddleware",
            "whitenoise.middleware.WhiteNoiseMiddleware",
            "config.middleware.CompressionMiddleware",
        ],
        "STATICFILES_STORAGE": "whitenoise.storage.CompressedManifestStaticFilesStorage",
        "SESSION_ENGINE": "django.contrib.sessions.backends.cached_db",
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
        # DRF counts throttled requests in the default cache: Redis, shared by the workers.
        "CACHE": "RedisCache",
        "THROTTLES_USE_DEFAULT_CACHE": True,
    }


def test_production_settings_without_a_shared_cache():
    loaded = production_settings(DB_CONN_MAX_AGE="0")

    assert loaded["SESSION_ENGINE"] == "django.contrib.sessions.backends.db"
    assert loaded["CACHE"] == "LocMemCache"
    assert loaded["CONN_MAX_AGE"] == 0


def test_postgres_connection_lifetime_comes_from_the_environment():
    loaded = production_settings(
        DATABASE_URL="postgres://crossover@db.internal:5432/crossover", DB_CONN_MAX_AGE="300"
    )

    assert loaded["CONN_MAX_AGE"] == 300


RAISE_IN_A_VIEW = """
import sys, types, django
django.setup()
from django.test import Client, override_settings
from django.urls import path

def boom(request):
    raise RuntimeError("boom from a view")

urls = types.ModuleType("boom_urls")
urls.urlpatterns = [path("boom", boom)]
sys.modules["boom_urls"] = urls
with override_settings(ROOT_URLCONF="boom_urls"):
    response = Client(raise_request_exception=False).get("/boom")
print(response.status_code)
"""


def test_a_server_error_is_logged_with_its_traceback_on_stderr():
    result = subprocess.run(
        [sys.executable, "-c", RAISE_IN_A_VIEW],
        cwd=settings.BASE_DIR,
        env=production_env(ALLOWED_HOSTS="testserver", SECURE_SSL_REDIRECT="false"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "500"
    assert "ERROR django.request: Internal Server Error: /boom" in result.stderr
    assert "Traceback (most recent call last):" in result.stderr
    assert "RuntimeError: boom from a view" in result.stderr
