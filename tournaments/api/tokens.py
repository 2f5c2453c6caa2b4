"""``Authorization: Bearer <token>`` (or ``Token <token>``) for the API, beside sessions.

:class:`ApiTokenAuthentication` is first in ``REST_FRAMEWORK["DEFAULT_AUTHENTICATION_
CLASSES"]``, so a request that carries a token is judged by its token, even from a
browser that is also signed in. It enforces the token's limits itself, before any view
runs, because the views set their own ``permission_classes`` (a default permission class
would not reach them):

* a read-only token may use only GET, HEAD and OPTIONS (403 ``token_read_only``);
* an event-scoped token acts as its maker only on its event's endpoints (``events/{id}/``
  and everything under it); another event's endpoints are refused (403
  ``token_wrong_event``). Outside any event it is an anonymous visitor: it reads what
  anyone may read (the card list, the public events list), and anything an anonymous
  visitor could not use (the maker's decks and export jobs, or any write such as making
  an event or a deck) is refused with 403 ``token_event_only``.

A token that does not authenticate is a 401 (``invalid_token``, ``token_revoked``,
``token_expired``, ``user_inactive``, ``not_event_staff``). Every refusal has the API's
``{"code", "message", "details"}`` shape, also on views that keep DRF's own error handler.
"""

from __future__ import annotations

import re

from django.contrib.auth.models import AnonymousUser
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import SAFE_METHODS

from .. import tokens
from ..models import TokenScope
from ..services.errors import TournamentError

KEYWORDS = ("bearer", "token")
# The event routes (tournaments.api.views.register_routes): the event itself is ``pk``
# of the ``event`` viewset; everything under it has ``event_pk``.
EVENT_VIEWSET_BASENAME = "event"
# And any route under an event's path, whatever its kwargs are named (a later route that
# calls the event ``pk`` is still that event's endpoint, never "outside events").
EVENT_PATH = re.compile(r"^/api/v\d+/events/([^/]+)(?:/|$)")


class TokenRefused(TournamentError, exceptions.APIException):
    """A refusal in the API's error shape under either exception handler: the
    tournament views' handler reads it as a :class:`TournamentError`; DRF's own handler
    answers with ``detail``, which is the whole body here."""

    def __init__(self, code: str, message: str, http_status: int, **details) -> None:
        super().__init__(code, message, **details)
        self.http_status = self.status_code = http_status
        self.detail = {"code": code, "message": message, "details": details}
        if http_status == 401:
            # DRF's own handler sends it as WWW-Authenticate (RFC 9110 asks for one).
            self.auth_header = 'Bearer realm="api"'

    def get_codes(self):
        return self.code


def target_event_id(request) -> int | None:
    """The id of the event whose endpoint ``request`` is for, or None outside events."""
    context = getattr(request, "parser_context", None) or {}
    kwargs = context.get("kwargs") or {}
    raw = kwargs.get("event_pk")
    if raw is None and getattr(context.get("view"), "basename", None) == EVENT_VIEWSET_BASENAME:
        raw = kwargs.get("pk")
    if raw is None and (match := EVENT_PATH.match(request.path_info)):
        raw = match.group(1)
    if raw is None:
        return None
    raw = str(raw)
    # Routes only match digits; anything else is no event (and then a 404 of the view).
    return int(raw) if raw.isascii() and raw.isdecimal() else -1


class _AsAnonymous:
    """``request`` as an anonymous visitor would make it, for asking the view's
    permissions before DRF has set ``request.user`` (reading it there would authenticate
    again)."""

    def __init__(self, request) -> None:
        self._request = request
        self.user = AnonymousUser()
        self.auth = None

    def __getattr__(self, name):
        return getattr(self._request, name)


def anonymous_may(request) -> bool:
    """Whether the view ``request`` is for lets an anonymous visitor in."""
    view = (getattr(request, "parser_context", None) or {}).get("view")
    if view is None:
        return False
    anonymous = _AsAnonymous(request)
    return all(p.has_permission(anonymous, view) for p in view.get_permissions())


def check_limits(token, request) -> bool:
    """Raise :class:`TokenRefused` (403) when ``token`` may not make ``request``;
    True when the request goes ahead as the token's maker, False when it goes ahead as
    an anonymous visitor (an event-scoped token outside its event)."""
    safe = request.method in SAFE_METHODS
    if token.scope == TokenScope.READ and not safe:
        raise TokenRefused(
            "token_read_only", "this token is read-only: it may only read (GET)", 403
        )
    if token.event_id is None:
        return True
    event_id = target_event_id(request)
    if event_id is None:
        # Outside its event the token is nobody: it must not read its maker's own
        # things (decks, export jobs), only what any visitor may read.
        if not safe or not anonymous_may(request):
            raise TokenRefused(
                "token_event_only",
                "this token is limited to one event: outside it, it may only read "
                "what anyone may read",
                403,
                event=token.event_id,
            )
        return False
    if event_id != token.event_id:
        raise TokenRefused(
            "token_wrong_event", "this token is limited to another event", 403, event=token.event_id
        )
    return True


class ApiTokenAuthentication(BaseAuthentication):
    """Authenticates ``Authorization: Bearer cot_…`` or ``Token cot_…``; other schemes
    and requests without the header are left to the next class (sessions).
    ``request.auth`` is the :class:`~tournaments.models.ApiToken`."""

    def authenticate(self, request):
        header = get_authorization_header(request).split()
        if not header or header[0].lower().decode(errors="replace") not in KEYWORDS:
            return None
        if len(header) != 2:
            raise TokenRefused(
                "invalid_token", "give exactly one token after the scheme: Bearer <token>", 401
            )
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise TokenRefused("invalid_token", "the token is malformed", 401) from None
        try:
            token = tokens.authenticate(raw)
        except tokens.TokenInvalid as refusal:
            raise TokenRefused(refusal.code, refusal.message, 401) from None
        if not check_limits(token, request):
            return AnonymousUser(), token
        return token.user, token

    def authenticate_header(self, request):
        # None keeps DRF's answer to a request without credentials as it was with sessions
        # alone (403 not_authenticated); a bad token is still a 401 (TokenRefused).
        return None


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """The bearer scheme in the OpenAPI schema (drf-spectacular)."""

    target_class = ApiTokenAuthentication
    name = "apiToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "A personal or event-scoped API token (`cot_…`), made on the site's "
                "“API tokens” pages and shown once: `Authorization: Bearer <token>` "
                "(`Token <token>` works too). A read-only token may only read; an "
                "event-scoped token works on its event's endpoints and elsewhere reads only "
                "what an anonymous visitor may read. A token may have an expiry, chosen when "
                "it is made: after it, the token is refused (401 `token_expired`)."
            ),
        }
