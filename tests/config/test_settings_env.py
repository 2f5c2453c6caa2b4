"""Settings come from the environment and refuse bad values loudly (config/env.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction

from cardpool import services
from cardpool.models import Card, CardSet, Game, ImportJob
from config.celery import app
from config.env import env_bool, env_broker, env_database, env_int, env_list, env_str

# Every variable config/settings.py reads; the subprocess tests start from none of them.
SETTINGS_VARIABLES = (
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "DATABASE_URL",
    "TIME_ZONE",
    "CELERY_BROKER_URL",
    "LOG_LEVEL",
    "SECURE_COOKIES",
    "SECURE_SSL_REDIRECT",
    "HSTS",
    "HSTS_PRELOAD",
    "BEHIND_HTTPS_PROXY",
    "THROTTLE_ANON",
    "THROTTLE_USER",
)

SHOW_SETTINGS = """
import json, django
django.setup()
from django.conf import settings
print(json.dumps({
    "DEBUG": settings.DEBUG,
    "SECRET_KEY": settings.SECRET_KEY,
    "ALLOWED_HOSTS": settings.ALLOWED_HOSTS,
    "DATABASE": {k: settings.DATABASES["default"][k] for k in ("ENGINE", "NAME")},
    "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
    "CELERY_TASK_ALWAYS_EAGER": settings.CELERY_TASK_ALWAYS_EAGER,
}))
"""


def load_settings(**variables: str) -> subprocess.CompletedProcess:
    """Import config.settings in a fresh interpreter with exactly these variables set."""
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS_VARIABLES}
    env.update(variables, DJANGO_SETTINGS_MODULE="config.settings")
    return subprocess.run(
        [sys.executable, "-c", SHOW_SETTINGS],
        cwd=settings.BASE_DIR,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def error_line(result: subprocess.CompletedProcess) -> str:
    """The exception line closing the traceback (the source lines quoted above it name
    every variable, so only this line shows what the error message says)."""
    lines = result.stderr.strip().splitlines()
    return lines[-1] if lines else ""


@pytest.mark.parametrize(
    ("variables", "named"),
    [
        pytest.param({"DEBUG": "maybe", "SECRET_KEY": "k"}, "DEBUG", id="debug-maybe"),
        pytest.param({"DEBUG": "false"}, "SECRET_KEY", id="no-secret-key"),
        pytest.param({}, "SECRET_KEY", id="no-secret-key-debug-unset"),
        pytest.param({"SECRET_KEY": "k", "DATABASE_URL": "mysql://x/y"}, "DATABASE_URL", id="my"),
        pytest.param({"SECRET_KEY": "k", "DATABASE_URL": "mysq://x/y"}, "DATABASE_URL", id="typo"),
        pytest.param({"SECRET_KEY": "k", "DATABASE_URL": "notaurl"}, "DATABASE_URL", id="notaurl"),
        pytest.param(
            {"SECRET_KEY": "k", "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/"},
            "DATABASE_URL",
            id="postgres-without-database",
        ),
        pytest.param(
            {"SECRET_KEY": "k", "CELERY_BROKER_URL": "http://x"},
            "CELERY_BROKER_URL",
            id="http-broker",
        ),
        pytest.param({"SECRET_KEY": "k", "ALLOWED_HOSTS": "a,,b"}, "ALLOWED_HOSTS", id="hosts"),
        pytest.param({"SECRET_KEY": "k", "ALLOWED_HOSTS": "a,"}, "ALLOWED_HOSTS", id="hosts-end"),
        pytest.param(
            {"SECRET_KEY": "k", "DEBUG": "false", "SECURE_COOKIES": "sometimes"},
            "SECURE_COOKIES",
            id="secure-cookies",
        ),
    ],
)
def test_bad_environment_stops_django_setup(variables, named):
    result = load_settings(**variables)

    assert result.returncode != 0, result.stdout
    last = error_line(result)
    assert last.startswith("django.core.exceptions.ImproperlyConfigured:"), result.stderr
    assert named in last, result.stderr


def test_good_environment_loads():
    result = load_settings(
        SECRET_KEY="k",
        DEBUG="off",
        ALLOWED_HOSTS=" cards.example.org , 127.0.0.1 ",
        DATABASE_URL="sqlite:////tmp/crossover-settings-test.sqlite3",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
    )

    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    assert loaded["DEBUG"] is False
    assert loaded["ALLOWED_HOSTS"] == ["cards.example.org", "127.0.0.1"]
    assert loaded["DATABASE"] == {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": "/tmp/crossover-settings-test.sqlite3",
    }
    assert loaded["CELERY_BROKER_URL"] == "redis://127.0.0.1:6379/0"
    assert loaded["CELERY_TASK_ALWAYS_EAGER"] is False


def test_without_a_broker_tasks_run_eagerly():
    result = load_settings(SECRET_KEY="k")

    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    assert loaded["CELERY_BROKER_URL"] is None
    assert loaded["CELERY_TASK_ALWAYS_EAGER"] is True


def test_debug_has_a_development_secret_key():
    result = load_settings(DEBUG="true")

    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    assert loaded["DEBUG"] is True
    assert loaded["SECRET_KEY"]
    assert loaded["ALLOWED_HOSTS"] == ["127.0.0.1", "localhost"]


def test_secret_key_starting_with_dollar_is_taken_literally():
    # django-environ would read "$abc" as "the value of the variable abc".
    result = load_settings(SECRET_KEY="$abc-secret", DEBUG="false")

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["SECRET_KEY"] == "$abc-secret"


# --- config/env.py, called directly ---------------------------------------------------


@pytest.mark.parametrize("word", ["1", "true", "TRUE", "yes", "on", " True "])
def test_env_bool_true(monkeypatch, word):
    monkeypatch.setenv("SOME_FLAG", word)
    assert env_bool("SOME_FLAG", default=False) is True


@pytest.mark.parametrize("word", ["0", "false", "No", "off"])
def test_env_bool_false(monkeypatch, word):
    monkeypatch.setenv("SOME_FLAG", word)
    assert env_bool("SOME_FLAG", default=True) is False


def test_env_int_reads_whole_numbers_and_refuses_the_rest(monkeypatch):
    monkeypatch.delenv("SOME_LIMIT", raising=False)
    assert env_int("SOME_LIMIT", default=2000, minimum=1) == 2000
    monkeypatch.setenv("SOME_LIMIT", " 150 ")
    assert env_int("SOME_LIMIT", default=2000, minimum=1) == 150
    for bad in ("0", "-3", "1.5", "many"):
        monkeypatch.setenv("SOME_LIMIT", bad)
        with pytest.raises(ImproperlyConfigured, match="SOME_LIMIT="):
            env_int("SOME_LIMIT", default=2000, minimum=1)


def test_env_bool_unset_or_empty_is_the_default(monkeypatch):
    monkeypatch.delenv("SOME_FLAG", raising=False)
    assert env_bool("SOME_FLAG", default=True) is True
    monkeypatch.setenv("SOME_FLAG", "  ")
    assert env_bool("SOME_FLAG", default=False) is False


@pytest.mark.parametrize("word", ["maybe", "2", "y", "truee"])
def test_env_bool_rejects_other_words(monkeypatch, word):
    monkeypatch.setenv("SOME_FLAG", word)
    with pytest.raises(ImproperlyConfigured, match="SOME_FLAG"):
        env_bool("SOME_FLAG", default=False)


def test_env_str_is_literal(monkeypatch):
    monkeypatch.setenv("OTHER_VARIABLE", "other value")
    monkeypatch.setenv("SOME_TEXT", "$OTHER_VARIABLE")
    assert env_str("SOME_TEXT") == "$OTHER_VARIABLE"
    monkeypatch.setenv("SOME_TEXT", "  padded  ")
    assert env_str("SOME_TEXT") == "padded"
    monkeypatch.delenv("SOME_TEXT")
    assert env_str("SOME_TEXT", default="fallback") == "fallback"


def test_env_list(monkeypatch):
    monkeypatch.setenv("SOME_HOSTS", "a.example, b.example")
    assert env_list("SOME_HOSTS", default=[]) == ["a.example", "b.example"]
    monkeypatch.delenv("SOME_HOSTS")
    assert env_list("SOME_HOSTS", default=["x"]) == ["x"]
    monkeypatch.setenv("SOME_HOSTS", "a,,b")
    with pytest.raises(ImproperlyConfigured, match="SOME_HOSTS"):
        env_list("SOME_HOSTS", default=[])


def test_env_database_default_is_sqlite_with_wal(monkeypatch):
    monkeypatch.delenv("SOME_DATABASE_URL", raising=False)

    config = env_database("SOME_DATABASE_URL", "/srv/site/db.sqlite3")

    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == "/srv/site/db.sqlite3"
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]
    assert config["ATOMIC_REQUESTS"] is False


def test_env_database_sqlite_url(monkeypatch):
    monkeypatch.setenv("SOME_DATABASE_URL", "sqlite:////var/lib/crossover/db.sqlite3")

    config = env_database("SOME_DATABASE_URL", "/unused")

    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == "/var/lib/crossover/db.sqlite3"
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]


def test_env_database_postgres_url(monkeypatch):
    monkeypatch.setenv("SOME_DATABASE_URL", "postgres://site:pw@db.internal:5433/crossover")

    config = env_database("SOME_DATABASE_URL", "/unused")

    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["NAME"], config["USER"], config["PASSWORD"]) == ("crossover", "site", "pw")
    assert (config["HOST"], config["PORT"]) == ("db.internal", 5433)
    assert config["CONN_HEALTH_CHECKS"] is True
    assert "transaction_mode" not in config.get("OPTIONS", {})


@pytest.mark.parametrize(
    "url", ["mysql://x/y", "notaurl", "postgres://u@h:5432/", "sqlite://", "sqlite:///relative.db"]
)
def test_env_database_rejects(monkeypatch, url):
    monkeypatch.setenv("SOME_DATABASE_URL", url)
    with pytest.raises(ImproperlyConfigured, match="SOME_DATABASE_URL"):
        env_database("SOME_DATABASE_URL", "/unused")


def test_env_broker(monkeypatch):
    monkeypatch.delenv("SOME_BROKER", raising=False)
    assert env_broker("SOME_BROKER") is None
    for url in ("redis://127.0.0.1:6379/0", "amqp://guest:guest@127.0.0.1:5672//"):
        monkeypatch.setenv("SOME_BROKER", url)
        assert env_broker("SOME_BROKER") == url
    monkeypatch.setenv("SOME_BROKER", "http://x")
    with pytest.raises(ImproperlyConfigured, match="SOME_BROKER"):
        env_broker("SOME_BROKER")


# --- the settings the test process runs with ------------------------------------------


@pytest.mark.django_db
def test_sqlite_runs_in_wal_mode():
    if connection.vendor != "sqlite":
        pytest.skip(f"WAL is SQLite's journal mode; this run uses {connection.vendor}")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        (mode,) = cursor.fetchone()
    assert mode == "wal"


def test_broker_less_settings_are_eager():
    if os.environ.get("CELERY_BROKER_URL", "").strip():
        pytest.skip("CELERY_BROKER_URL is set for this run, so tasks are not eager")
    assert settings.CELERY_BROKER_URL is None
    assert settings.CELERY_TASK_ALWAYS_EAGER is True
    assert app.conf.task_always_eager is True


CSV = "name,set,card_type\n山名春恵,base,CHARACTER\nスワティ,base,NAVIGATOR\n".encode()


def make_game() -> Game:
    game = Game.objects.create(slug="crossover", name="CrossOver The F&C TCG")
    CardSet.objects.create(game=game, code="base", name="基本セット", release_order=1)
    return game


@pytest.fixture
def import_runs(monkeypatch):
    """The job ids the import task ran for (in this process: the tasks are eager)."""
    if not app.conf.task_always_eager:
        pytest.skip("these tests need eager tasks (CELERY_BROKER_URL unset)")
    runs = []
    real = services.run_import_job

    def recording(job_id):
        runs.append(job_id)
        return real(job_id)

    monkeypatch.setattr(services, "run_import_job", recording)
    return runs


@pytest.mark.django_db(transaction=True)
def test_rolled_back_import_job_runs_no_task(import_runs):
    game = make_game()

    with transaction.atomic():
        services.create_import_job(game=game, filename="cards.csv", content=CSV)
        transaction.set_rollback(True)

    assert import_runs == []
    assert not ImportJob.objects.exists()
    assert not Card.objects.exists()


@pytest.mark.django_db
def test_committed_import_job_runs_the_task_eagerly(
    import_runs, django_capture_on_commit_callbacks
):
    game = make_game()

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        job = services.create_import_job(game=game, filename="cards.csv", content=CSV)
        assert import_runs == []  # not before the commit

    assert len(callbacks) == 1
    assert import_runs == [job.pk]
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE
    assert job.report["cards_created"] == 2
    assert sorted(Card.objects.values_list("name", flat=True)) == sorted(["山名春恵", "スワティ"])


def test_production_settings_pass_the_deployment_checks():
    # The test run's own switches (the browser tests' async guard) are not production's.
    ignored = {*SETTINGS_VARIABLES, "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {key: value for key, value in os.environ.items() if key not in ignored}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        SECRET_KEY="a-long-random-production-secret-" + "x" * 40,
        ALLOWED_HOSTS="tournaments.example.org",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=settings.BASE_DIR,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
