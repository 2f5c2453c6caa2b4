"""The venue laptop in a real browser (issue #14): the venue poster and the event file's
pages at 390×844 in Japanese and at 1366×900 in English.

The organizer opens the venue poster on the laptop itself (the live server on 127.0.0.1):
it shows the laptop's LAN address as a QR code and in big type, with the Wi-Fi's name
once entered. On the event file page they download the file; on the import page a broken
file is refused with every problem and its JSON path, and the good file (the same event
under a new uid, as if on another site) lands on the imported event's page. No page may
scroll sideways and axe-core must find no serious or critical WCAG 2.2 A/AA violation.
Screenshots: /tmp/shots/venue/ (not committed).
"""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path

import pytest
from django.utils import translation
from django.utils.translation import gettext, ngettext
from playwright.sync_api import expect

from config import lan
from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import CASES, PageLook
from tests.tournaments.factories import UserFactory, open_event, play_round, register_all
from tournaments import services
from tournaments.event_file import export_event
from tournaments.models import Event

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/shots/venue")
PASSWORD = "a-long-pass-2026"
LAN_ADDRESS = "192.168.1.20"


@pytest.fixture
def running(crossover, monkeypatch):
    """A running event with one closed round; the laptop on a venue's Wi-Fi."""
    monkeypatch.setattr(lan, "lan_addresses", lambda: [LAN_ADDRESS])
    organizer = UserFactory(username="organizer", password=PASSWORD)
    event = open_event(organizer, crossover, name="Venue Cup", swiss_rounds=3)
    players = [UserFactory(username=name) for name in ("hanako", "kenji", "mika", "sora")]
    register_all(event, players)
    services.start_event(event, actor=organizer)
    play_round(event, organizer, lambda number, table: "2-1")
    event.refresh_from_db()
    return event


@pytest.mark.parametrize("case", list(CASES))
def test_venue_poster_and_event_file_pages(case, running, new_page, live_server, tmp_path):
    size, locale, language = CASES[case]
    event = running
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page(locale)
    page.set_viewport_size(size)
    look = PageLook(page, case, size["width"], SHOTS)
    problems = look.problems

    with translation.override(language):
        update = gettext("Update the poster")
        download = gettext("Download event file")
        import_button = gettext("Import")
        refused = ngettext(
            "The file was refused: %(counter)s problem. Nothing was imported.",
            "The file was refused: %(counter)s problems. Nothing was imported.",
            2,
        ) % {"counter": 2}

    page.goto("/accounts/login/")
    page.locator("input[name=username]").fill("organizer")
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()

    # The poster, opened on the laptop (the live server's loopback host): the LAN
    # address, not the loopback.
    assert live_server.url.split("://")[1].split(":")[0] in ("localhost", "127.0.0.1")
    page.goto("/venue/poster/")
    port = live_server.thread.port
    phones = f"http://{LAN_ADDRESS}:{port}/"
    expect(page.locator(".poster svg")).to_have_attribute("data-url", phones)
    expect(page.locator(".poster__url")).to_have_text(f"{LAN_ADDRESS}:{port}")
    page.locator("input[name=wifi]").fill("Venue-Guest")
    page.get_by_role("button", name=update).click()
    page.wait_for_load_state()
    expect(page.locator(".poster")).to_contain_text("Venue-Guest")
    look("poster")
    page.emulate_media(media="print")
    page.screenshot(path=str(SHOTS / f"{case}-poster-print.png"), full_page=True)
    expect(page.locator(".site-header")).to_be_hidden()
    page.emulate_media(media="screen")

    # The event file page: the download (the e-mail box is the organizer's).
    page.goto(f"/events/{event.pk}/staff/event-file/")
    expect(page.locator("input[name=private]")).to_be_visible()
    look("event-file")
    with page.expect_download() as info:
        page.get_by_role("button", name=download).click()
    downloaded = info.value
    assert downloaded.suggested_filename == f"event-{event.pk}.json"
    document = json.loads(Path(downloaded.path()).read_text(encoding="utf-8"))
    assert document["event"]["uid"] == str(event.uid)

    # The verify page: the public download, the command, the format (opened).
    page.goto(f"/events/{event.pk}/verify/")
    expect(page.locator(".command code")).to_have_text(
        f"python -m tournaments.engine.replay event-{event.pk}.json"
    )
    page.locator("details.format-doc > summary").click()
    look("verify")

    # The import page: a broken file is refused with every problem; nothing is written.
    moved = copy.deepcopy(export_event(event))
    moved["event"]["uid"] = str(uuid.uuid4())
    broken = copy.deepcopy(moved)
    broken["rounds"][0]["matches"][0]["player2"] = "nobody-here"
    broken_path = tmp_path / "broken.json"
    broken_path.write_text(json.dumps(broken), encoding="utf-8")
    events_before = Event.objects.count()
    page.goto("/events/import/")
    look("import")
    page.locator("input[type=file]").set_input_files(str(broken_path))
    page.get_by_role("button", name=import_button, exact=True).click()
    page.wait_for_load_state()
    expect(page.locator("#import-problems")).to_contain_text(refused)
    expect(page.locator("#import-problems")).to_contain_text("rounds[0].matches[0].player2")
    look("import-refused")
    assert Event.objects.count() == events_before

    good_path = tmp_path / "good.json"
    good_path.write_text(json.dumps(moved), encoding="utf-8")
    page.locator("input[type=file]").set_input_files(str(good_path))
    page.get_by_role("button", name=import_button, exact=True).click()
    page.wait_for_load_state()
    imported = Event.objects.get(uid=moved["event"]["uid"])
    expect(page).to_have_url(f"{live_server.url}/events/{imported.pk}/")
    look("imported")
    assert imported.registrations.count() == 4
    assert not problems, "\n".join(problems)
