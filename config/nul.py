"""Requests carrying U+0000 (NUL) are refused before any view sees them (issue #15).

PostgreSQL refuses NUL in text (a lookup or a write with one was a 500) while SQLite stores
it, so the same input meant two different outcomes. No form field, filter or API field has
a use for it: a request with NUL in its path, query string, form fields or JSON body is
answered 400 — ``{"code": "invalid_input", "message", "details": {"field"}}`` under /api/
(the API's one error shape), a plain page elsewhere — the same on both databases. Uploaded
files are not read here: their importers refuse NUL with its row, line or JSON path (the
event file with :func:`nul_paths`, as here).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

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
# Stands for the value of a key holding NUL: the key is the place named.
_NUL_KEY = object()


def shown(name: str) -> str:
    """A field name or JSON key fit to show and to put in JSON (and in PostgreSQL)."""
    return name.replace(NUL, "\\u0000")


def first_nul(text: str) -> tuple[int, int] | None:
    """Where the first NUL in ``text`` is: its line and column, both counted from 1 (lines
    end at ``\n``); None when there is none. Shared by the importers that refuse a text
    file holding NUL (the event file, rules documents, ``check_deck``), so all name the
    same place."""
    index = text.find(NUL)
    if index == -1:
        return None
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


def _query_field(data) -> str | None:
    for key, values in data.lists():
        if NUL in key or any(NUL in value for value in values):
            return shown(key)
    return None


def nul_paths(value) -> Iterator[tuple[str | int, ...]]:
    """Where a decoded JSON value holds NUL, in document order: the path (object keys and
    list indexes, as they are) of every text holding it, and of every key holding it (the
    key is the path's last part). Shared by this middleware and the uploaded files'
    importers (the event file), so both name the same places."""
    stack: list[tuple[tuple[str | int, ...], object]] = [((), value)]
    while stack:
        path, value = stack.pop()
        if value is _NUL_KEY or (isinstance(value, str) and NUL in value):
            yield path
        elif isinstance(value, dict):
            for key, item in reversed(value.items()):
                nul_key = isinstance(key, str) and NUL in key
                stack.append(((*path, key), _NUL_KEY if nul_key else item))
        elif isinstance(value, list):
            for index in reversed(range(len(value))):
                stack.append(((*path, index), value[index]))


def dotted(path: tuple[str | int, ...]) -> str:
    """``("event", "staff", 0)`` → ``event.staff.0`` (the middleware's field names)."""
    return ".".join(shown(part) if isinstance(part, str) else str(part) for part in path)


def _json_field(body: bytes) -> str | None:
    """The dotted path of the first key or text in ``body`` holding NUL (None when none
    does or the body is not JSON: the view answers that)."""
    if _JSON_NUL not in body:
        return None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    path = next(nul_paths(data), None)
    if path is None:
        return None
    return dotted(path) or "body"


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
