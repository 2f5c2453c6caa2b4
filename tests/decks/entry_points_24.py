"""One decklist through every entry point the issue names (issue #24): the ``check_deck``
command (its JSON report), ``POST /api/v1/decks/check/``, the deck check page and the
registration form of an event held on the day asked about; all four must give one
report."""

from __future__ import annotations

import datetime as dt
import io
import json

from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse


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


def via_page(client, text: str, as_of: dt.date, fmt: str = "crossover") -> dict:
    cache.clear()
    response = client.post(
        reverse("decks:check"), {"format": fmt, "as_of": as_of.isoformat(), "decklist": text}
    )
    assert response.status_code == 200
    return response.context["report"].as_dict()


def via_registration(client, text: str, as_of: dt.date, fmt: str) -> dict:
    """Register for an event of ``fmt`` held on ``as_of`` with ``text``: the stored report
    of a legal list, the form's report of a refused one."""
    from decks.models import Format
    from tests.tournaments.factories import UserFactory, open_event
    from tournaments.models import Registration

    count = Registration.objects.count()
    organizer = UserFactory(username=f"entry-organizer-{count}")
    event = open_event(organizer, Format.objects.get(slug=fmt), date=as_of)
    player = UserFactory(username=f"entry-player-{count}")
    client.force_login(player)
    cache.clear()
    response = client.post(
        reverse("tournaments:register", args=[event.pk]), {"deck": "", "decklist": text}
    )
    client.logout()
    if response.status_code == 302:
        return Registration.objects.get(event=event, player=player).deck_report
    assert response.status_code == 200
    return response.context["report"].as_dict()


def summary(report: dict) -> dict:
    return {
        "legal": report["legal"],
        "main_count": report["main_count"],
        "sideboard_count": report["sideboard_count"],
        "violations": [
            (v["code"], tuple(v["lines"]), v["message_en"]) for v in report["violations"]
        ],
        "notices": [(n["code"], tuple(n["lines"]), n["message_en"]) for n in report["notices"]],
    }


def both(client, text: str, as_of: dt.date, tmp_path, fmt: str = "crossover") -> dict:
    """The report of ``text``, the same from the command and the API (the API adds the
    reader's ``message``), and the same verdict, counts, violations and notices from the
    deck check page and the registration form."""
    command = via_command(text, as_of, tmp_path, fmt)
    api = via_api(client, text, as_of, fmt)
    for item in api["violations"] + api["notices"]:
        item.pop("message", None)
    for item in command["violations"] + command["notices"]:
        item.pop("message", None)
    assert api == command
    assert summary(via_page(client, text, as_of, fmt)) == summary(api)
    assert summary(via_registration(client, text, as_of, fmt)) == summary(api)
    return api


def codes(report: dict) -> list[str]:
    return [violation["code"] for violation in report["violations"]]
