"""Requests carrying U+0000 (NUL) are refused before any view sees them (issue #15).

PostgreSQL refuses NUL in text (a lookup or a write with one was a 500) while SQLite stores
it, so the same input meant two different outcomes. No form field, filter or API field has
a use for it: a request with NUL in its path, query string, form fields or JSON body is
answered 400 — ``{"code": "invalid_input", "message", "details": {"field"}}`` under /api/
(the API's one error shape), a plain page elsewhere — the same on both databases. Uploaded
files are not read here: their importers refuse NUL row by row.
"""

from __future__ import annotations

import json

from django.core.exceptions import RequestDataTooBig
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    JsonResponse,
    QueryDict,
)
from django.http.multipartparser import MultiPartParserError
from django.http.request import UnreadablePostError
from django.utils.html import format_html
from django.utils.translation import get_language
from django.utils.translation import gettext as _

NUL = "\x00"
# A JSON body can only hold NUL as this escape (a raw NUL byte is not valid JSON).
_JSON_NUL = b"\\u0000"


def _shown(name: str) -> str:
    """A field name fit to show and to put in JSON."""
    return name.replace(NUL, "\\u0000")


def _query_field(data) -> str | None:
    for key, values in data.lists():
        if NUL in key or any(NUL in value for value in values):
            return _shown(key)
    return None


def _json_field(body: bytes) -> str | None:
    """The dotted path of the first key or text in ``body`` holding NUL (None when none
    does or the body is not JSON: the view answers that)."""
    if _JSON_NUL not in body:
        return None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    stack: list[tuple[str, object]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if NUL in value:
                return path or "body"
        elif isinstance(value, dict):
            for key, item in reversed(value.items()):
                child = f"{path}.{_shown(key)}" if path else _shown(key)
                if NUL in key:
                    return child
                stack.append((child, item))
        elif isinstance(value, list):
            for index in reversed(range(len(value))):
                stack.append((f"{path}.{index}" if path else str(index), value[index]))
    return None


def nul_field(request: HttpRequest) -> str | None:
    """Where ``request`` carries NUL: "path", a query or form field name, a dotted path in
    a JSON body; None when it carries none."""
    if NUL in request.path_info:
        return "path"
    field = _query_field(request.GET)
    if field is not None:
        return field
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    content_type = request.content_type or ""
    try:
        if content_type == "application/json" or content_type.endswith("+json"):
            return _json_field(request.body)
        if request.method == "POST":
            return _query_field(request.POST)
        if content_type == "application/x-www-form-urlencoded":
            # PUT and PATCH forms: Django parses request.POST for POST only.
            return _query_field(QueryDict(request.body, encoding=request.encoding))
    except (RequestDataTooBig, MultiPartParserError, UnreadablePostError, OSError):
        # An unreadable or oversized body: the view meets the same error and answers it.
        return None
    return None


def refusal(request: HttpRequest, field: str) -> HttpResponse:
    if request.path_info.startswith("/api/"):
        return JsonResponse(
            {
                "code": "invalid_input",
                "message": f"{field} contains a NUL character (U+0000), which is not allowed",
                "details": {"field": field},
            },
            status=400,
        )
    title = _("Bad request")
    message = _("%(field)s contains a NUL character (U+0000), which is not allowed.") % {
        "field": field
    }
    return HttpResponseBadRequest(
        format_html(
            '<!doctype html><html lang="{}"><meta charset="utf-8"><title>{}</title>'
            "<h1>{}</h1><p>{}</p></html>",
            get_language() or "en",
            title,
            title,
            message,
        ),
        content_type="text/html; charset=utf-8",
    )


class RefuseNulMiddleware:
    """Answers 400 to a request with NUL in its input (module docstring). Listed after
    LocaleMiddleware, so the page is in the reader's language."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        field = nul_field(request)
        if field is not None:
            return refusal(request, field)
        return self.get_response(request)
