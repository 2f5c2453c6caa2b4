"""The Redis cache backend (config/cache.py) against the real Redis of this machine."""

import os

import pytest

from config.cache import RedisCache

pytestmark = pytest.mark.services

# CI runs the SQLite and the PostgreSQL suites side by side: each clears its own database.
REDIS = f"redis://127.0.0.1:6379/{13 if os.environ.get('DATABASE_URL') else 14}"


@pytest.fixture
def redis_cache():
    cache = RedisCache(REDIS, {"KEY_PREFIX": "test-cache-backend"})
    cache.clear()
    yield cache
    cache.clear()


def test_one_client_per_pool_serves_every_call(redis_cache):
    redis_cache.set("a", {"rows": [1, 2]})
    redis_cache.set_many({"b": "two", "c": 3})
    assert redis_cache.get("a") == {"rows": [1, 2]}
    assert redis_cache.get_many(["b", "c", "missing"]) == {"b": "two", "c": 3}
    assert redis_cache.add("a", "other") is False
    assert redis_cache.add("d", 4) is True
    client = redis_cache._cache
    # reads and writes go to the one server: one client, made once
    assert client.get_client(write=False) is client.get_client(write=True)
    assert len(client._clients) == 1
    assert redis_cache.delete("a") is True
    assert redis_cache.get("a") is None
