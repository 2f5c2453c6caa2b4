"""The API's OpenAPI schema class (``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]``): every
operation documents the errors that any request to it may get, in the one error shape
(``{code, message, details}``), besides the ones its view documents itself.

Which errors an operation can answer follows from how the API works, not from each view:

* 401: any request that carries a token may carry a bad one (``invalid_token``,
  ``token_revoked``, …; ``tournaments.api.tokens``), whatever the view;
* 403: a write with a read-only or event-scoped token (``token_read_only``,
  ``token_event_only``), any request to another event's endpoints with an event-scoped
  token (``token_wrong_event``), and any view that not everyone may use (``not_authenticated``,
  ``not_staff``, …); only a read of a public view outside the events never gets one;
* 404: an object named in the path that does not exist or is not visible to the caller,
  and a page number past the last page of a paginated list;
* 400: invalid query parameters (filters, search) or an invalid request body (one that
  cannot be parsed is ``parse_error``);
* 413: a request body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (``request_too_large``,
  ``details.limit`` in bytes);
* 415: a request body in a media type the operation does not read (a JSON body must be
  UTF-8: tournaments/api/parsers.py);
* 429: a throttled view (its ``throttle_classes``, or ``DEFAULT_THROTTLE_CLASSES`` were
  it set) refuses a caller past the rate (``throttled``, with ``Retry-After``).
"""

from __future__ import annotations

import re

from drf_spectacular.openapi import AutoSchema
from rest_framework.permissions import SAFE_METHODS, AllowAny

from .serializers import ErrorSerializer
from .tokens import EVENT_PATH, ApiTokenAuthentication

IMPLICIT_ERRORS = {
    400: "Invalid input (`invalid_input` with the field errors in `details.fields`), or a "
    "body that is not JSON as its media type says (`parse_error`: not JSON, nested too "
    "deeply, a number of more than 4300 digits).",
    401: "The request's API token is not valid (`invalid_token`, `token_revoked`, "
    "`user_inactive`, `not_event_staff`).",
    403: "Not signed in (`not_authenticated`), not allowed, or beyond the token's limits "
    "(`token_read_only`, `token_event_only`, `token_wrong_event`).",
    404: "No such object, one the caller may not see, or a page past the last (`not_found`).",
    413: "The request body is larger than the site reads (`request_too_large`; "
    "`details.limit` is the limit in bytes).",
    415: "The body is not JSON, form data or multipart, or is JSON in another charset than "
    "UTF-8 (`unsupported_media_type`).",
    429: "Too many requests (`throttled`); `Retry-After` gives the seconds to wait.",
}
RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "integer"},
        "description": "Seconds to wait before asking again.",
    }
}
PATH_PARAMETER = re.compile(r"{[^}]+}")


class ApiAutoSchema(AutoSchema):
    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation["responses"]
        error = self.resolve_serializer(ErrorSerializer, "response").ref
        for code in self._implicit_error_codes(operation):
            responses.setdefault(
                str(code),
                {
                    "content": {"application/json": {"schema": error}},
                    "description": IMPLICIT_ERRORS[code],
                },
            )
        if "429" in responses:
            # A view's own 429 (the deck check) says when to ask again too.
            responses["429"].setdefault("headers", RETRY_AFTER)
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def _implicit_error_codes(self, operation: dict) -> list[int]:
        view = self.view
        public = all(isinstance(p, AllowAny) for p in view.get_permissions())
        safe = self.method in SAFE_METHODS
        codes = []
        has_query = any(p.get("in") == "query" for p in operation.get("parameters", []))
        if "requestBody" in operation or has_query:
            codes.append(400)
        if any(isinstance(auth, ApiTokenAuthentication) for auth in view.get_authenticators()):
            codes.append(401)
            if not safe or not public or EVENT_PATH.match(self.path):
                codes.append(403)
        elif not public:
            codes.append(403)
        if PATH_PARAMETER.search(self.path) or self._is_paginated():
            codes.append(404)
        if "requestBody" in operation:
            codes += [413, 415]
        if view.get_throttles():
            codes.append(429)
        return codes

    def _is_paginated(self) -> bool:
        return self._is_list_view() and self._get_paginator() is not None


class OneObjectSchema(ApiAutoSchema):
    """For a router "list" route that answers one object (a search page, an export)."""

    def _is_list_view(self, serializer=None) -> bool:
        return False
