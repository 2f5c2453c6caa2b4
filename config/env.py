"""Strict reading of settings from the environment.

django-environ parses URLs and lists for us, but it quietly accepts values such as
``DEBUG=maybe`` (read as False) or ``DATABASE_URL=mysq://…`` (an unknown engine). A
misconfigured server must refuse to start, so every value read here is checked and a
bad one raises ``ImproperlyConfigured`` naming the variable and what was wrong.
"""

from __future__ import annotations

import os

import environ
from django.core.exceptions import ImproperlyConfigured

_env = environ.Env()

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})
DATABASE_ENGINES = {
    "django.db.backends.postgresql": "PostgreSQL",
    "django.db.backends.sqlite3": "SQLite",
}
BROKER_SCHEMES = ("redis://", "rediss://", "amqp://", "amqps://", "pyamqp://")


def _raw(name: str) -> str | None:
    # Read os.environ directly: django-environ's Env.str() treats a value starting with
    # "$" as a reference to another variable, so SECRET_KEY="$ecret…" would be replaced.
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    word = value.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(
        f"{name}={value!r} is not a boolean; use one of "
        f"{', '.join(sorted(TRUE_WORDS | FALSE_WORDS))}."
    )


def env_str(name: str, default: str | None = None) -> str | None:
    value = _raw(name)
    return default if value is None else value


def env_int(name: str, default: int, minimum: int = 0) -> int:
    value = _raw(name)
    if value is None:
        return default
    if not value.isdigit() or int(value) < minimum:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number ≥ {minimum}.")
    return int(value)


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return list(default)
    items = [item.strip() for item in value.split(",")]
    if any(not item for item in items):
        raise ImproperlyConfigured(
            f"{name}={value!r} has an empty entry; separate hosts by commas."
        )
    return items


def env_database(name: str, default_sqlite_path: str) -> dict:
    """Return a Django DATABASES entry from a URL, or the embedded SQLite file."""
    url = _raw(name)
    if url is None:
        config = {"ENGINE": "django.db.backends.sqlite3", "NAME": default_sqlite_path}
    else:
        if "://" not in url:
            raise ImproperlyConfigured(
                f"{name}={url!r} is not a database URL; expected e.g. "
                "postgres://user@127.0.0.1:5432/dbname or sqlite:////absolute/path.db"
            )
        config = _env.db_url_config(url)
        if config.get("ENGINE") not in DATABASE_ENGINES:
            scheme = url.split("://", 1)[0]
            raise ImproperlyConfigured(
                f"{name} uses the scheme {scheme!r}; supported are postgres:// and sqlite://."
            )
        if not config.get("NAME") or config["NAME"] == ":memory:":
            raise ImproperlyConfigured(f"{name}={url!r} names no database.")
        if config["ENGINE"] == "django.db.backends.sqlite3" and not os.path.isabs(config["NAME"]):
            raise ImproperlyConfigured(
                f"{name}={url!r}: give the SQLite file as an absolute path "
                "(sqlite:////absolute/path.db)."
            )
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # WAL lets readers work while one writer writes; IMMEDIATE takes the write lock at
        # BEGIN so concurrent writers queue for up to `timeout` seconds instead of failing
        # with "database is locked" half-way through a transaction.
        config["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    else:
        config["CONN_HEALTH_CHECKS"] = True
    config["ATOMIC_REQUESTS"] = False
    return config


def env_broker(name: str) -> str | None:
    url = _raw(name)
    if url is not None and not url.startswith(BROKER_SCHEMES):
        raise ImproperlyConfigured(
            f"{name}={url!r} is not a Redis or RabbitMQ URL; expected one starting with "
            f"{', '.join(BROKER_SCHEMES)}."
        )
    return url
