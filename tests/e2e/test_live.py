"""Live rounds in a real browser: a player's phone left open on the event's pairings shows
round 1 when the organizer publishes it, without a reload (live.js polls the live JSON
and swaps the page's live part); the round clock counts down on the phone and on the
projector; the slips with QR codes and the poster render.

The poll interval is shortened to one second (``LIVE_POLL_SECONDS``). Screenshots go to
/tmp/shots/live-*.png for a human to look at (not committed).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.decks import conftest as deck_fixtures
from tests.e2e.axe import serious_violations
from tests.tournaments.factories import UserFactory, open_event, register_all
from tournaments import services
from tournaments.models import Match
from tournaments.services.clock import extend_match_time

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1366, "height": 900}
SHOTS = Path("/tmp/shots")


def shot(page, name: str, *, full_page: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"live-{name}.png"), full_page=full_page)


def fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


@pytest.fixture
def event(crossover, settings):
    settings.LIVE_POLL_SECONDS = 1
    organizer = UserFactory(username="organizer")
    event = open_event(organizer, crossover, name="Live Open", round_minutes=50)
    players = [UserFactory(username=f"live-player{n}") for n in range(1, 7)]
    register_all(event, players)
    services.start_event(event, actor=organizer)
    return {"event": event, "organizer": organizer, "players": players}


def test_pairings_appear_on_an_open_phone_when_the_round_is_published(
    event, new_page, log_in, live_server
):
    live = event["event"]
    organizer = event["organizer"]
    player = event["players"][0]
    page = new_page()
    page.set_viewport_size(PHONE)
    log_in(page, player.username, "pw")
    page.goto(f"/events/{live.pk}/pairings/")
    part = page.locator("#pairings-live")
    expect(part).to_contain_text("No pairings are up yet.")
    problems = []

    # The organizer publishes round 1 (the services, as the staff pages call them).
    round_ = services.generate_round(live, actor=organizer)
    services.publish_round(round_, actor=organizer)
    expect(part).to_contain_text("Round 1 pairings", timeout=15_000)
    expect(part).to_contain_text("You: table")
    expect(page.locator("#live-status")).to_contain_text("Round 1 pairings are up.")
    if not fits(page):
        problems.append("pairings scroll sideways at 390 px")
    problems += [f"pairings: {v}" for v in serious_violations(page)]
    shot(page, "pairings-390", full_page=True)

    # The clock starts; a judge gives table 1 five more minutes: the clock page shows both.
    services.start_round_clock(round_, actor=organizer)
    match = Match.objects.filter(round=round_, player2__isnull=False).order_by("table").first()
    extend_match_time(match, actor=organizer, minutes=5, reason="Deck check")
    mine = match.player1.player
    phone = new_page()
    phone.set_viewport_size(PHONE)
    log_in(phone, mine.username, "pw")
    phone.goto(f"/events/{live.pk}/rounds/1/clock/")
    expect(phone.locator(".clock__left time")).to_have_text("50 min")
    expect(phone.locator(".match-clock")).to_contain_text("your table +5 min")
    expect(phone.locator(".match-clock time")).to_have_text("55 min left")
    if not fits(phone):
        problems.append("clock scrolls sideways at 390 px")
    problems += [f"clock: {v}" for v in serious_violations(phone)]
    shot(phone, "clock-390")
    # Back on the pairings page, the extension shows without a reload.
    expect(part).to_contain_text("+5 min", timeout=15_000)

    # The projector: two events side by side at 1366 px.
    other = open_event(organizer, live.format, name="Side Event")
    projector = new_page()
    projector.set_viewport_size(PROJECTOR)
    projector.goto(f"/events/{live.pk}/clock/?with={other.pk}")
    expect(projector.locator(f"#clock-{live.pk} .clock__left time")).to_have_text("50 min")
    expect(projector.locator(f"#clock-{other.pk}")).to_contain_text("No round yet.")
    problems += [f"projector: {v}" for v in serious_violations(projector)]
    shot(projector, "projector-1366")

    # Slips with QR codes, and the poster.
    staff = new_page()
    staff.set_viewport_size(PROJECTOR)
    log_in(staff, organizer.username, "pw")
    staff.goto(f"/events/{live.pk}/staff/rounds/1/slips/")
    expect(staff.locator(".slip-qr svg").first).to_be_visible()
    shot(staff, "slips", full_page=True)
    staff.set_viewport_size(PHONE)
    staff.goto(f"/events/{live.pk}/poster/")
    expect(staff.locator(".poster svg")).to_have_attribute(
        "data-url", f"{live_server.url}/events/{live.pk}/pairings/"
    )
    problems += [f"poster: {v}" for v in serious_violations(staff)]
    shot(staff, "poster-390", full_page=True)
    assert not problems, problems


def test_the_home_page_follows_the_rounds_not_every_result(event, new_page, log_in, live_server):
    """The player's home (data-live-watch="rounds") is reloaded when the round changes
    (published, clock started), not when another table's result moves the event's
    revision: at a venue every result would otherwise reload every open home page."""
    live = event["event"]
    organizer = event["organizer"]
    player = event["players"][0]
    page = new_page()
    page.set_viewport_size(PHONE)
    log_in(page, player.username, "pw")
    page.goto("/")
    article = page.locator(f"#my-event-{live.pk}")
    expect(article).to_contain_text("No round is published for you yet.")
    round_ = services.generate_round(live, actor=organizer)
    services.publish_round(round_, actor=organizer)
    expect(article).to_contain_text("Round 1 ·", timeout=15_000)
    # Mark the article as it is now; another table's result must leave it in place.
    page.evaluate(f"document.getElementById('my-event-{live.pk}').dataset.seen = 'yes'")
    other = (
        Match.objects.filter(round=round_, player2__isnull=False)
        .exclude(participants__registration__player=player)
        .first()
    )
    services.report_result(
        other, actor=other.player1.player, record="2-0", expected_version=other.version
    )
    page.wait_for_timeout(3_500)  # three polls of one second
    assert article.get_attribute("data-seen") == "yes"
    # The clock starting is a change of the round: the article is reloaded.
    services.start_round_clock(round_, actor=organizer)
    expect(article).not_to_have_attribute("data-seen", "yes", timeout=15_000)
