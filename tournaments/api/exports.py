"""API routes for exports (filled in by the exports work)."""


def register_routes(router, prefix: str = "events") -> None:
    """Router lines for ``config/urls.py``."""
