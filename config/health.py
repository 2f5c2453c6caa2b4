"""Health endpoints for the load balancer and the orchestrator.

``/healthz`` (liveness) answers as long as the process serves requests: it touches
nothing else, so a database outage does not get every web worker restarted. It says
"ok"; while the Redis cache does not answer (the site then serves without it, see
config/cache.py) it still answers 200, with "ok; degraded: cache". Asking costs one PING
within the cache's short timeouts, nothing while the cache is known to be down.
``/readyz`` (readiness) checks what a request needs: the database, the cache and, when
tasks go through a broker, the broker. It answers 200 when all pass and 503 naming the
failed checks; the reasons go to the log, not to whoever asks.

Both are exempt from the HTTPS redirect (SECURE_REDIRECT_EXEMPT): probes speak plain HTTP.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from config.cache import degraded_caches

logger = logging.getLogger(__name__)

# A probe must not hang on a broker that does not answer: the load balancer would time out
# and see neither "ok" nor which check failed.
BROKER_TIMEOUT_SECONDS = 3


@never_cache
@require_safe
def healthz(request):
    degraded = ["cache" if alias == "default" else f"cache {alias}" for alias in degraded_caches()]
    body = "ok; degraded: " + ", ".join(degraded) if degraded else "ok"
    return HttpResponse(body, content_type="text/plain; charset=utf-8")


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        if cursor.fetchone() != (1,):
            raise RuntimeError("SELECT 1 did not return 1")


def check_cache() -> None:
    key = f"readyz:{uuid.uuid4().hex}"
    token = uuid.uuid4().hex
    if hasattr(cache, "check_round_trip"):
        # The Redis cache turns an outage into misses; the check wants Redis's own error.
        cache.check_round_trip(key, token)
        return
    cache.set(key, token, timeout=30)
    try:
        if cache.get(key) != token:
            raise RuntimeError("the cache did not return the value just stored")
    finally:
        cache.delete(key)


def check_broker() -> None:
    from config.celery import app

    with app.connection_for_write(connect_timeout=BROKER_TIMEOUT_SECONDS) as broker:
        broker.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT_SECONDS)


def readiness_checks() -> dict[str, Callable[[], None]]:
    checks = {"database": check_database, "cache": check_cache}
    if settings.CELERY_BROKER_URL:
        checks["broker"] = check_broker
    return checks


@never_cache
@require_safe
def readyz(request):
    results = {}
    for name, check in readiness_checks().items():
        try:
            check()
        except Exception:
            logger.exception("readiness check %r failed", name)
            results[name] = "failed"
        else:
            results[name] = "ok"
    failed = [name for name, result in results.items() if result != "ok"]
    body = {"status": "failed" if failed else "ok", "checks": results}
    if failed:
        body["failed"] = failed
    return JsonResponse(body, status=503 if failed else 200)
