"""Project middleware."""

from __future__ import annotations

from django.middleware.gzip import GZipMiddleware


class CompressionMiddleware(GZipMiddleware):
    """gzip for pages and API answers (listed in settings.MIDDLEWARE).

    Django's GZipMiddleware as it is for now: it compresses responses of 200 bytes or more
    when the client accepts gzip, adds random bytes against BREACH, and turns a strong ETag
    into a weak one. A project class so the behaviour can change in one place.
    """
