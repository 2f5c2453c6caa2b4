"""Django's Redis cache, with one redis-py client per connection pool, that rides out a
Redis outage.

Django's ``RedisCacheClient`` builds a new ``redis.Redis`` object for every cache call, and
each one copies redis-py's table of ~170 response callbacks: on a page that makes four
cache reads (the session, the page's rows, the viewer's own row, the summary) that was a
measurable share of the request. A client over a connection pool is safe to share between
the threads of a worker, so it is made once per pool instead.

**An outage.** Everything the site keeps in this cache can be rebuilt (rendered pages and
rows), is also in the database (sessions: ``cached_db`` writes through) or may be lost
(throttle counts). So when Redis does not answer, a cache call does not fail the request:
it is a miss (``get`` gives the default, ``get_many`` nothing, ``has_key``/``touch``/
``delete`` False) or a write that did not happen (``set``; ``set_many`` returns every key as
not stored). ``add`` answers True and ``incr``/``decr`` the delta, as for a key that was
absent: a lock or a counter kept in the cache fails open (each page builder builds for
itself rather than wait for a result that can never be stored; the throttles let requests
through), which is safe only because nothing here keeps a lock or a count that guards
data in the cache (those are database locks and rows). Pages are then built per request,
sessions read from the database, and the throttles count nothing.

Calls wait at most ``socket_connect_timeout`` (0.25 s) to connect and ``socket_timeout``
(0.5 s) for an answer. After a failure the whole process (every thread's backend of the
same servers) skips Redis for ``RETRY_AFTER_SECONDS`` (5 s), so requests do not each wait
for a timeout; then one call tries again, and the others keep skipping until it knows.
The operator gets one warning when the cache becomes unavailable, one a minute while it
stays so, one when throttles go uncounted, and one when it is back (not one per request);
``/healthz`` says "degraded: cache" meanwhile (config/health.py).

A write that could not reach Redis leaves whatever Redis held under that key, which may
come back with Redis if the outage was a network blip: a session changed or ended
meanwhile (a logout) must not return from the cache. So the keys of the writes skipped
meanwhile are remembered (up to ``STALE_KEYS_LIMIT``) and deleted from Redis before it is
used again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit, urlunsplit

import redis
from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient

logger = logging.getLogger(__name__)

# What a Redis that is down, restarting, loading its data or out of reach raises
# (BusyLoadingError is a ConnectionError). Anything else is a bug and stays an error.
UNAVAILABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
# redis-py waits for the OS by default (a minute or more for an address that does not
# answer); a cache call that takes longer than a page built without it is worthless.
CONNECT_TIMEOUT_SECONDS = 0.25
READ_TIMEOUT_SECONDS = 0.5
# After a failure, this process skips Redis this long, then one call tries again
# (OPTIONS "RETRY_AFTER_SECONDS" overrides it).
RETRY_AFTER_SECONDS = 5.0
# While Redis stays unavailable the warning is repeated this often, not once per request.
WARN_EVERY_SECONDS = 60.0
# Keys whose write was skipped, deleted from Redis when it answers again. Beyond this
# many (a long outage under load) the rest are not tracked, and the log says so.
STALE_KEYS_LIMIT = 10_000
# DRF's throttles (SimpleRateThrottle.cache_format) and the page throttle of
# config/throttling.py keep their counts under this prefix.
THROTTLE_KEY_PREFIX = "throttle_"


class ReusedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._client(connection_pool=self._get_connection_pool(write))
            self._clients[index] = client
        return client

    def disconnect(self) -> None:
        """Close every pooled connection: after an outage they may point at a Redis that
        is gone (a restarted one closed them), and each would fail once more."""
        for pool in self._pools.values():
            pool.disconnect()


class Outage:
    """What this process knows about one Redis location's availability, shared by the
    backends of every thread (Django makes one per thread)."""

    def __init__(self, location: str) -> None:
        self.location = location
        self.lock = threading.Lock()
        # monotonic time of the first failure; None while Redis answers
        self.since: float | None = None
        self.retry_at = 0.0
        # bumped at each failure: a backend seeing a new one drops its pooled connections
        self.generation = 0
        self.retry_after = RETRY_AFTER_SECONDS
        self.stale: set[str] = set()
        self.stale_overflow = False
        self.warned: dict[str, float] = {}

    @property
    def degraded(self) -> bool:
        return self.since is not None

    def skip(self, stale_keys: Callable[[], Iterable[str]]) -> bool:
        """True: Redis is known to be down, leave it alone (the keys of a skipped write are
        remembered). False: call it; while down, this call is the one retry of this
        period, and the others skip until it is over."""
        with self.lock:
            if self.since is None:
                return False
            now = time.monotonic()
            if now >= self.retry_at:
                self.retry_at = now + self.retry_after
                return False
            self.remember(stale_keys())
            return True

    def failed(self, error: Exception, stale_keys: Iterable[str], retry_after: float) -> None:
        with self.lock:
            now = time.monotonic()
            self.retry_after = retry_after
            self.retry_at = now + retry_after
            self.generation += 1
            self.remember(stale_keys)
            if self.since is None:
                self.since = now
                logger.warning(
                    "cache unavailable (%s: %s): serving without it (pages are built per "
                    "request, sessions read from the database, throttles count nothing); "
                    "trying %s again every %g s",
                    type(error).__name__,
                    error,
                    self.location,
                    retry_after,
                )
                self.warned["down"] = now
            elif now - self.warned.get("down", 0.0) >= WARN_EVERY_SECONDS:
                logger.warning(
                    "cache still unavailable after %.0f s (%s: %s)",
                    now - self.since,
                    type(error).__name__,
                    error,
                )
                self.warned["down"] = now

    def remember(self, stale_keys: Iterable[str]) -> None:
        for key in stale_keys:
            if len(self.stale) >= STALE_KEYS_LIMIT:
                self.stale_overflow = True
                return
            self.stale.add(key)

    def warn_once(self, topic: str, message: str, *args) -> None:
        """A warning about ``topic`` at most once per WARN_EVERY_SECONDS."""
        now = time.monotonic()
        with self.lock:
            if now - self.warned.get(topic, -WARN_EVERY_SECONDS) < WARN_EVERY_SECONDS:
                return
            self.warned[topic] = now
        logger.warning(message, *args)

    def recover(self, delete_many: Callable[[list[str]], None]) -> None:
        """Delete the keys whose writes were skipped, then mark Redis available. A skipped
        write may still be remembered while a batch is deleted: loop until none is left,
        and clear the outage under the same lock that remembering takes."""
        dropped = 0
        while True:
            with self.lock:
                batch = list(self.stale)[:1000]
                if not batch:
                    lasted = time.monotonic() - (self.since or time.monotonic())
                    overflow = self.stale_overflow
                    self.since = None
                    self.stale_overflow = False
                    self.warned.pop("down", None)
                    self.warned.pop("throttle", None)
                    break
            delete_many(batch)
            with self.lock:
                self.stale.difference_update(batch)
            dropped += len(batch)
        logger.warning(
            "cache available again after %.1f s; %d keys written meanwhile deleted from it%s",
            lasted,
            dropped,
            f" (more than {STALE_KEYS_LIMIT} were written: the rest may be stale)"
            if overflow
            else "",
        )


_outages: dict[str, Outage] = {}
_outages_lock = threading.Lock()


def outage_of(location: str) -> Outage:
    with _outages_lock:
        outage = _outages.get(location)
        if outage is None:
            outage = _outages[location] = Outage(location)
        return outage


def without_password(url: str) -> str:
    """The server's address for the log: a password in the URL stays out of it."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc))


def degraded_caches() -> list[str]:
    """The aliases of the caches that do not answer now. Each Redis cache is asked (a
    PING, at most the short timeouts, and nothing while it is known to be down); other
    backends are always available."""
    return [
        alias
        for alias in caches.settings
        if isinstance(caches[alias], RedisCache) and not caches[alias].available()
    ]


def is_degraded(backend) -> bool:
    """This backend is known to be down now (without asking it)."""
    return bool(getattr(backend, "degraded", False))


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        options = dict(params.get("OPTIONS") or {})
        self.retry_after = float(options.pop("RETRY_AFTER_SECONDS", RETRY_AFTER_SECONDS))
        options.setdefault("socket_connect_timeout", CONNECT_TIMEOUT_SECONDS)
        options.setdefault("socket_timeout", READ_TIMEOUT_SECONDS)
        super().__init__(server, {**params, "OPTIONS": options})
        self._class = ReusedClientRedisCacheClient
        self._outage = outage_of(",".join(without_password(url) for url in self._servers))
        self._generation = self._outage.generation

    @property
    def degraded(self) -> bool:
        return self._outage.degraded

    def _call(self, call: Callable, miss, written: Iterable = (), version=None):
        """``call()`` on Redis, or ``miss`` when Redis is unavailable. ``written``: the
        keys this call writes (remembered when the write is skipped)."""
        outage = self._outage

        def stale() -> list[str]:
            return [self.make_key(key, version=version) for key in written]

        if outage.skip(stale):
            self._note_uncounted(written)
            return miss
        try:
            if self._generation != outage.generation:
                self._generation = outage.generation
                self._cache.disconnect()
            if outage.degraded:
                outage.recover(self._cache.delete_many)
            return call()
        except UNAVAILABLE as error:
            outage.failed(error, stale(), self.retry_after)
            self._note_uncounted(written)
            return miss

    def _note_uncounted(self, written: Iterable) -> None:
        if any(str(key).startswith(THROTTLE_KEY_PREFIX) for key in written):
            self._outage.warn_once(
                "throttle",
                "throttles fail open: the cache is unavailable, so requests are let "
                "through uncounted (%s)",
                ", ".join(sorted({str(key) for key in written})),
            )

    def available(self) -> bool:
        """Redis answers a PING (skipped, so False, while it is known to be down)."""
        return bool(self._call(lambda: self._cache.get_client(write=True).ping(), False))

    def check_round_trip(self, key: str, value) -> None:
        """Store, read back and delete ``value`` without the outage handling: the readiness
        check wants Redis's own error, not a miss."""
        super().set(key, value, 30)
        try:
            if super().get(key) != value:
                raise RuntimeError("the cache did not return the value just stored")
        finally:
            super().delete(key)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call(
            lambda: super(RedisCache, self).add(key, value, timeout, version),
            True,
            [key],
            version,
        )

    def get(self, key, default=None, version=None):
        return self._call(lambda: super(RedisCache, self).get(key, default, version), default)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call(
            lambda: super(RedisCache, self).set(key, value, timeout, version),
            None,
            [key],
            version,
        )

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call(
            lambda: super(RedisCache, self).touch(key, timeout, version), False, [key], version
        )

    def delete(self, key, version=None):
        return self._call(
            lambda: super(RedisCache, self).delete(key, version), False, [key], version
        )

    def get_many(self, keys, version=None):
        return self._call(lambda: super(RedisCache, self).get_many(keys, version), {})

    def has_key(self, key, version=None):
        return self._call(lambda: super(RedisCache, self).has_key(key, version), False)

    def incr(self, key, delta=1, version=None):
        return self._call(
            lambda: super(RedisCache, self).incr(key, delta, version), delta, [key], version
        )

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        keys = list(data)
        return self._call(
            lambda: super(RedisCache, self).set_many(data, timeout, version), keys, keys, version
        )

    def delete_many(self, keys, version=None):
        keys = list(keys)
        return self._call(
            lambda: super(RedisCache, self).delete_many(keys, version), None, keys, version
        )

    def clear(self):
        return self._call(lambda: super(RedisCache, self).clear(), False)
