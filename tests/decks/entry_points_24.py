"""One decklist through every entry point the issue names (issue #24): the ``check_deck``
command (its JSON report) and ``POST /api/v1/decks/check/``; both must give one report."""

from __future__ import annotations

import datetime as dt
import io
import json

from django.core.cache import cache
from django.core.management import call_command


def via_command(text: str, as_of: dt.date, tmp_path, fmt: str = "crossover") -> dict:
    path = tmp_path / "deck.txt"
    path.write_text(text, encoding="utf-8")
    out = io.StringIO()
    status = 0
    try:
        call_command(
            "check_deck", str(path), "--format", fmt, "--as-of", as_of.isoformat(), "--json",
            stdout=out,
        )  # fmt: skip
    except SystemExit as exit_:  # 1: not legal
        status = exit_.code
    report = json.loads(out.getvalue())
    assert status == (0 if report["legal"] else 1)
    return report


def via_api(client, text: str, as_of: dt.date, fmt: str = "crossover") -> dict:
    cache.clear()  # the check is throttled per address
    response = client.post(
        "/api/v1/decks/check/",
        {"format": fmt, "decklist": text, "as_of": as_of.isoformat()},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    return response.json()


def both(client, text: str, as_of: dt.date, tmp_path, fmt: str = "crossover") -> dict:
    """The report of ``text``, the same from the command and the API (the API adds the
    reader's ``message``)."""
    command = via_command(text, as_of, tmp_path, fmt)
    api = via_api(client, text, as_of, fmt)
    for item in api["violations"] + api["notices"]:
        item.pop("message", None)
    for item in command["violations"] + command["notices"]:
        item.pop("message", None)
    assert api == command
    return api


def codes(report: dict) -> list[str]:
    return [violation["code"] for violation in report["violations"]]
