"""Content-Security-Policy on every response (issue #15).

The site runs only its own files: htmx is vendored under static/vendor/, every script is a
static file (no inline ``<script>`` body, no ``on*=`` handler, no ``hx-on``) and every
style lives in a stylesheet (no ``style=`` attribute, no ``<style>`` element), so the
policy allows ``'self'`` and nothing inline or evaluated. ``img-src`` also allows
``data:``: the empty favicon (``<link rel="icon" href="data:,">``) and Swagger UI's icons
are data: URIs. QR codes are inline SVG markup and need nothing more.

Django 5.2 has no built-in CSP (6.0 brings one); this middleware is the few lines the fixed
policy needs, instead of django-csp with its per-view decorators and nonces that the site
does not use. Settings:

* ``CSP_DIRECTIVES``: the policy as ``{directive: [sources]}`` (``DEFAULT_DIRECTIVES``
  below); a deployment that must allow more (say an analytics host) overrides it in its
  settings.
* ``CSP_REPORT_ONLY`` (environment variable, default ``false``): send the policy as
  ``Content-Security-Policy-Report-Only``, so browsers only report what it would block.
  Without ``CSP_REPORT_URI`` they "report" in the visitor's browser console only.
* ``CSP_REPORT_URI`` (environment variable, default empty): where browsers send their
  violation reports (``report-uri <uri>`` added to the policy, enforced or report-only),
  for instance a collector such as report-uri.com or Sentry's security endpoint.

A response that already carries the header (a view that set its own) keeps it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:  # settings.py imports this module: nothing from django.http at load time
    from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"
REPORT_ONLY_HEADER = "Content-Security-Policy-Report-Only"

DEFAULT_DIRECTIVES: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}


def policy_text(directives: Mapping[str, Sequence[str]]) -> str:
    """``{"default-src": ["'self'"], ...}`` → ``"default-src 'self'; ..."``."""
    return "; ".join(
        " ".join([name, *sources]) if sources else name for name, sources in directives.items()
    )


def with_report_uri(
    directives: Mapping[str, Sequence[str]], uri: str | None
) -> Mapping[str, Sequence[str]]:
    """``directives`` plus ``report-uri <uri>`` when ``uri`` is set (one URL: whitespace,
    ``;`` or ``,`` in it would change the policy, so it is refused)."""
    uri = (uri or "").strip()
    if not uri:
        return directives
    if any(char.isspace() or char in ";," for char in uri):
        raise ImproperlyConfigured(f"CSP_REPORT_URI={uri!r} is not one URL.")
    return {**directives, "report-uri": [uri]}


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response
        self.header = REPORT_ONLY_HEADER if getattr(settings, "CSP_REPORT_ONLY", False) else HEADER
        self.policy = policy_text(
            with_report_uri(
                getattr(settings, "CSP_DIRECTIVES", DEFAULT_DIRECTIVES),
                getattr(settings, "CSP_REPORT_URI", ""),
            )
        )

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if HEADER not in response.headers and REPORT_ONLY_HEADER not in response.headers:
            response.headers[self.header] = self.policy
        return response
