"""QR codes as inline SVG (``{% load qr %}``, ``{% qr_svg url label %}``), made with
segno (pure Python, no image library): match slips, the event page and the poster.

The SVG carries ``role="img"``, the accessible name ``label`` (also its ``<title>``) and
the encoded text in ``data-url``, so tests and people can see where it leads."""

from __future__ import annotations

import functools
import html

import segno
from django import template
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeData, SafeString, mark_safe

register = template.Library()


@functools.lru_cache(maxsize=1024)
def qr_svg_markup(url: str, label: str) -> str:
    """The SVG of ``url`` (error correction M: a slip may be creased or stained).
    Cached: a round's slips and the posters ask for the same codes again."""
    code = segno.make(url, error="m")
    svg = code.svg_inline(scale=1, border=2, omitsize=True, svgclass="qr-code", title=label)
    return svg.replace(
        "<svg ",
        f'<svg role="img" aria-label="{escape(label)}" data-url="{escape(url)}" '
        'shape-rendering="crispEdges" ',
        1,
    )


@register.simple_tag
def qr_svg(url: str, label: str) -> SafeString:
    """``label``: the code's accessible name as plain text; a label that is already
    HTML (``{% blocktranslate asvar %}`` escapes) is read back to text first, so that an
    event called "Bob's Cup & Co" is escaped once, not read out as entities."""
    text = html.unescape(str(label)) if isinstance(label, SafeData) else str(label)
    return mark_safe(qr_svg_markup(str(url), text))


@register.simple_tag(takes_context=True)
def absolute_url(context, viewname: str, *args) -> str:
    """The absolute URL of ``viewname`` on the host of this request (a code scanned from
    paper must name the host); the path alone when rendered without a request."""
    path = reverse(viewname, args=args)
    request = context.get("request")
    return request.build_absolute_uri(path) if request is not None else path
