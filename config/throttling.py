"""Who is asking, and how often: one client address for the API throttles, the page
throttles and the login lockout (django-axes), and a throttle for plain Django views.

The address follows ``TRUSTED_PROXY_COUNT`` (REST_FRAMEWORK ``NUM_PROXIES``): with 0, the
default, ``X-Forwarded-For`` is ignored, because anyone can send it; behind N proxies the
N-th address from the right, the one the outermost trusted proxy saw, is the client.
"""

from __future__ import annotations

import functools
import math

from django.conf import settings
from django.shortcuts import render
from rest_framework.throttling import BaseThrottle


def client_address(request) -> str:
    """The client's address for counting requests and failed logins.

    DRF's own ``get_ident`` (it reads ``NUM_PROXIES``), so the API's throttles, the pages'
    throttles and the login lockout never disagree about who a client is."""
    return BaseThrottle().get_ident(request)


def throttled(*throttle_classes):
    """Count a view's POSTs with these DRF throttle classes (the same cache keys, so the
    same budget as the API actions that use them) and answer 429 with a page and
    ``Retry-After`` once one of them refuses. Safe methods are not counted."""

    def decorator(view):
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method == "POST":
                waits = []
                for throttle_class in throttle_classes:
                    throttle = throttle_class()
                    if not throttle.allow_request(request, None):
                        waits.append(throttle.wait())
                if waits:
                    return too_many_requests(request, waits)
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


def too_many_requests(request, waits) -> object:
    """The 429 page; ``Retry-After`` is the longest wait of the refusing throttles. An htmx
    request (a page's live part) gets the message alone, for the part it replaces."""
    known = [wait for wait in waits if wait is not None]
    retry_after = max(1, math.ceil(max(known))) if known else None
    partial = request.headers.get("HX-Request") == "true"
    template = "_too_many_requests.html" if partial else "429.html"
    response = render(request, template, {"retry_after": retry_after}, status=429)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def locked_out(request, original_response=None, credentials=None):
    """django-axes' answer to a locked-out login (AXES_LOCKOUT_CALLABLE): the lockout page,
    429 with ``Retry-After``. The message names neither whether the account exists nor
    whether the password was right."""
    cooloff = settings.AXES_COOLOFF_TIME
    minutes = max(1, math.ceil(cooloff.total_seconds() / 60))
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "minutes": minutes}
    response = render(request, "registration/locked_out.html", context, status=429)
    response["Retry-After"] = str(int(cooloff.total_seconds()))
    return response
