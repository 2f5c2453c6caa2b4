"""The cache of an event's public pages and API answers, and their conditional GETs.

What a page shows of an event is a function of the event's revision
(:class:`~tournaments.models.EventRevision`: every audited change bumps it in the change's
own transaction), the language and the page asked for. So the expensive part of a page
(the standings or pairings rows, the event's facts) is built once per revision and
language and then served from the cache: Redis when ``CACHE_URL``/``REDIS_URL`` is set
(shared by every web worker), this process's memory otherwise.

Readers take the revision *before* they read what they render: a page built from newer
data than its key says is harmless (the next change moves the key on), while the opposite
(an old page under a new key) cannot happen, because the revision becomes visible with the
change's commit. Nothing user-specific goes into a shared entry: the viewer's own row,
staff controls, messages and the page frame are rendered per request around it.

The same parts make the response's ETag: a phone polling a page it already has gets a
304 with no rendering at all.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.middleware.gzip import re_accepts_gzip
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.translation import get_language

from config.cache import is_degraded

T = TypeVar("T")

# How long an entry lives (settings.PAGE_CACHE_SECONDS). Entries are keyed by revision,
# so this bounds memory, not freshness.
TIMEOUT = settings.PAGE_CACHE_SECONDS
# One request builds an entry while the others wait for it (a 5,000-player standings
# takes about half a second to compute: fifty phones computing it at once would take
# the web tier down for seconds). A builder that dies frees the slot after this time.
BUILD_LOCK_SECONDS = 30
BUILD_WAIT_SECONDS = 10.0
_POLL_SECONDS = 0.02

# The header of every cached page and answer: the browser may keep it but asks again
# each time (with If-None-Match), so a poll costs a 304 until something changes. Private:
# pages carry the viewer's frame, and a shared proxy must not keep a draft's answer.
CACHE_CONTROL = "private, no-cache"


# Stands for the CSRF token in a cached block with forms; each response puts its own
# token in (``str.replace``). The same in every worker (derived from the secret key) and
# never sent to anyone, so no name or other user text can contain it on purpose.
CSRF_SENTINEL = (
    "csrf-"
    + hashlib.blake2b(
        settings.SECRET_KEY.encode(), digest_size=12, person=b"csrf-sentinel"
    ).hexdigest()
)


def key(*parts) -> str:
    return "page:" + ":".join(str(part) for part in parts)


def get_or_build(cache_key: str, build: Callable[[], T], timeout: int | None = None) -> T:
    """The cached value of ``cache_key``, built by ``build()`` on a miss; one request
    builds while the others wait for its result (up to ``BUILD_WAIT_SECONDS``, after
    which they build it themselves rather than fail). While the cache is unavailable
    (config/cache.py) nobody waits: each request builds for itself."""
    value = cache.get(cache_key)
    if value is not None:
        return value
    lock_key = f"{cache_key}:building"
    if not cache.add(lock_key, 1, BUILD_LOCK_SECONDS):
        deadline = time.monotonic() + BUILD_WAIT_SECONDS
        # A builder's result cannot arrive through a cache that went down meanwhile.
        while time.monotonic() < deadline and not is_degraded(cache):
            time.sleep(_POLL_SECONDS)
            value = cache.get(cache_key)
            if value is not None:
                return value
    try:
        value = build()
        cache.set(cache_key, value, TIMEOUT if timeout is None else timeout)
    finally:
        cache.delete(lock_key)
    return value


def accepts_gzip(request: HttpRequest) -> bool:
    """The test the compression middleware makes (Django's), so the two always agree."""
    return bool(re_accepts_gzip.search(request.META.get("HTTP_ACCEPT_ENCODING", "")))


def etag(request: HttpRequest, *parts) -> str:
    """The entity tag of the representation these parts describe (quoted, without the
    weak prefix). The language and whether the answer is compressed are always parts of
    it: each is another representation with its own tag (RFC 9110 8.8.3)."""
    digest = hashlib.blake2b(
        repr((get_language(), accepts_gzip(request), *parts)).encode(), digest_size=16
    ).hexdigest()
    return f'"{digest}"'


def viewer_parts(request: HttpRequest) -> tuple:
    """What a page's frame depends on besides the event: the user (and their staff flag)
    and the CSRF secret (the frame's forms carry it; it changes at login). ``get_token``
    first: on a first visit it makes the secret that this response's cookie will carry,
    so the tag of this answer is the tag of the next request too."""
    get_token(request)
    user = request.user
    return (user.pk, user.is_staff, request.META.get("CSRF_COOKIE", ""))


def has_pending_messages(request: HttpRequest) -> bool:
    """A flash message waits to be shown (cookie or session storage): the page must be
    rendered, not answered with a 304."""
    if request.COOKIES.get("messages"):
        return True
    session = getattr(request, "session", None)
    return bool(session is not None and session.get("_messages"))


def not_modified(request: HttpRequest, tag: str, *, weak: bool) -> HttpResponse | None:
    """The 304 answer when the client already has ``tag``, else None."""
    if has_pending_messages(request):
        return None
    response = get_conditional_response(request, etag=tag)
    if response is not None:
        finish(response, tag, weak=weak)
    return response


def finish(response: HttpResponse, tag: str, *, weak: bool) -> HttpResponse:
    """Give a cached page or answer its validator and caching headers.

    ``weak``: the pages. Their frame carries a CSRF token masked anew at every render
    (and the compression middleware pads each gzip answer against BREACH), so two
    answers under one tag mean the same but differ in bytes: a weak tag says exactly
    that. The API's JSON is the same bytes every time (its gzip form too, made once and
    cached), so it gets a strong tag."""
    response["ETag"] = f"W/{tag}" if weak else tag
    response["Cache-Control"] = CACHE_CONTROL
    patch_vary_headers(response, ["Accept-Encoding"])
    return response
