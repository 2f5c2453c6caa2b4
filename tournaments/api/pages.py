"""Paginated, cached answers of the read endpoints every phone polls (standings and a
round's pairings): the JSON of each page is built once per event revision and page and
served from the cache as bytes, with a strong ETag (:mod:`tournaments.pagecache`).

Query parameters: ``page`` (from 1; past the last page is a 404, as on every list of
the API) and ``page_size`` (1 to 1,000, default 200; ``all`` for every row at once,
which is what exports want).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Sequence

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.utils.urls import replace_query_param

from .. import pagecache, snapshots

MAX_PAGE_SIZE = 1000
# Smaller answers are sent as they are (what the compression middleware does too).
MIN_GZIP_BYTES = 200

PAGE_PARAMETERS = [
    OpenApiParameter("page", OpenApiTypes.INT, description="Page number, from 1."),
    OpenApiParameter(
        "page_size",
        OpenApiTypes.STR,
        description=f"Rows per page: 1 to {MAX_PAGE_SIZE} (default {snapshots.PAGE_SIZE}), "
        "or `all`.",
    ),
]


def page_params(request) -> tuple[int, int | None]:
    """(page number, page size or None for all). A page that is not a whole number ≥ 1
    is a 404 (``not_found``); a size outside the bounds falls back to the default."""
    raw_page = request.query_params.get("page", "1")
    if not (raw_page.isascii() and raw_page.isdecimal()) or int(raw_page) < 1:
        raise NotFound("Invalid page.")
    raw_size = request.query_params.get("page_size", "")
    if raw_size == "all":
        return int(raw_page), None
    size = snapshots.PAGE_SIZE
    if raw_size.isascii() and raw_size.isdecimal() and 1 <= int(raw_size) <= MAX_PAGE_SIZE:
        size = int(raw_size)
    return int(raw_page), size


def encode(data) -> bytes:
    """JSON as DRF's renderer writes it (compact, UTF-8)."""
    return json.dumps(data, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":")).encode()


def paginated(
    request,
    *,
    key_parts: tuple,
    count: Callable[[], int],
    rows: Callable[[int, int | None], Sequence],
    wrap: Callable[[dict], dict] = lambda page: page,
) -> HttpResponse:
    """The cached JSON of one page: ``{"count", "next", "previous", …}`` with the rows
    of ``rows(start, stop)`` (stop None: to the end) under ``results`` (or what ``wrap``
    makes of the page). ``key_parts`` name the content (kind, event, revision, …)."""
    number, size = page_params(request)
    base = request.build_absolute_uri(request.path)
    tag = pagecache.etag(request, "api", *key_parts, number, size, base)
    if (answer := pagecache.not_modified(request, tag, weak=False)) is not None:
        return answer

    def build() -> tuple[bytes, bytes | None]:
        body = render()
        # Compressed once here, not per request by the middleware: a 200-row page is
        # ~60 kB of JSON. No BREACH padding needed: the answer holds no secret.
        return body, gzip.compress(body, mtime=0) if len(body) >= MIN_GZIP_BYTES else None

    # The row count first (cached on its own): a page past the end is a 404 that leaves
    # nothing in the cache, so made-up page numbers cannot fill it.
    total = pagecache.get_or_build(pagecache.key("api-count", *key_parts), count)
    pages = 1 if size is None else max(1, -(-total // size))
    if number > pages:
        raise NotFound("Invalid page.")

    def render() -> bytes:
        start = 0 if size is None else (number - 1) * size
        stop = None if size is None else start + size

        def link(page: int) -> str:
            url = replace_query_param(base, "page", page)
            return replace_query_param(url, "page_size", "all" if size is None else size)

        page = {
            "count": total,
            "next": link(number + 1) if number < pages else None,
            "previous": link(number - 1) if number > 1 else None,
            "results": list(rows(start, stop)),
        }
        return encode(wrap(page))

    body, compressed = pagecache.get_or_build(
        pagecache.key("api", *key_parts, number, size, base), build
    )
    if request.accepted_renderer.format != "json":  # the browsable API
        return Response(json.loads(body))
    if compressed is not None and pagecache.accepts_gzip(request):
        response = HttpResponse(compressed, content_type="application/json")
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(body, content_type="application/json")
    response["Content-Length"] = str(len(response.content))
    return pagecache.finish(response, tag, weak=False)
