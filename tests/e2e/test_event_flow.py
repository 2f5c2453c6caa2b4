"""One event end to end in a browser, as its users do it: the organizer creates it and
opens registration, three players register with decklists, the organizer pairs and
publishes, players report and confirm (the report form previews the match record), a
player drops, the last round is played, the organizer finishes the event and downloads
the standings.

Every step goes through the real pages (forms, buttons, links, htmx); the database is only
read, to find who is paired with whom (the pairing is random) and to check the end state.
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from tests.decks import conftest as deck_fixtures
from tests.decks.conftest import LEGAL_DECK
from tests.tournaments.factories import UserFactory
from tournaments.models import AuditEntry, Event, Match, Registration

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

PLAYERS = ("alice", "bob", "carol")


def flash(page) -> str:
    return page.locator("ul.messages").inner_text()


def click(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).click()
    page.wait_for_load_state()


def dashboard(page, event_id: int) -> None:
    page.goto(f"/events/{event_id}/staff/")


def play_round(event_id: int, number: int, organizer, pages, *, drop_after=None) -> None:
    """Pair, publish, start the clock; in each match player 1 reports 2-1 on the form
    (checking the live preview) and player 2 confirms; the organizer closes the round."""
    dashboard(organizer, event_id)
    click(organizer, f"Generate round {number}")
    assert f"Round {number} generated" in flash(organizer)
    click(organizer, f"Publish round {number}")
    click(organizer, f"Start the clock of round {number}")
    matches = Match.objects.filter(round__event_id=event_id, round__number=number)
    for match in matches.select_related("player1__player", "player2__player"):
        if match.player2 is None:
            page = pages[match.player1.player.username]
            page.goto(f"/events/{event_id}/me/match/")
            assert page.locator("dt:text-is('Opponent') + dd").inner_text() == "bye"
            continue
        reporter = pages[match.player1.player.username]
        confirmer = pages[match.player2.player.username]
        name2 = match.player2.player.username
        reporter.goto(f"/events/{event_id}/me/match/")
        assert reporter.locator("dt:text-is('Opponent') + dd").inner_text() == name2
        # 2-1 for player 1, game by game: the opponent's HP reaches 0, then own HP, then
        # the opponent's (the one-tap path has its own test).
        reporter.locator("summary", has_text="Report game by game").click()
        for game, loser in ((1, 2), (2, 1), (3, 2)):
            reporter.locator(f"#id_game{game}_end").select_option("hp_zero")
            reporter.locator(f"#id_game{game}_hp{loser}").fill("0")
            reporter.locator(f"#id_game{game}_hp{3 - loser}").fill("4")
            reporter.locator(f"#id_game{game}_hp{3 - loser}").dispatch_event("change")
        preview = reporter.locator(f"#result-preview-{match.pk}")
        preview.get_by_text("This makes: You won 2–1").wait_for()
        assert preview.locator("li").all_inner_texts() == [
            f"Game 1: you won — {name2}'s HP reached 0",
            "Game 2: you lost — your HP reached 0",
            f"Game 3: you won — {name2}'s HP reached 0",
        ]
        click(reporter, "Report")
        assert f"Reported: 2–1 win. {name2} now confirms or disputes it." in flash(reporter)
        confirmer.goto(f"/events/{event_id}/me/match/")
        click(confirmer, "Confirm: you lost 1–2")
        assert flash(confirmer) == "Result confirmed."
    if drop_after:
        page = pages[drop_after]
        page.goto(f"/events/{event_id}/me/")
        page.get_by_role("link", name="Drop from the event").click()
        page.get_by_label("Reason (optional)").fill("Train home")
        click(page, "Yes, drop me from the event")
        assert "You have dropped from the event." in flash(page)
    dashboard(organizer, event_id)
    click(organizer, f"Close round {number}")
    assert f"Round {number} closed." in flash(organizer)


def test_an_event_runs_end_to_end(new_page, log_in, crossover):
    UserFactory(username="organizer")
    for name in PLAYERS:
        UserFactory(username=name)

    # The organizer creates the event and opens registration.
    organizer = new_page()
    log_in(organizer, "organizer", "pw")
    organizer.goto("/events/")
    organizer.get_by_role("link", name="Create an event").click()
    organizer.get_by_label("Name:", exact=True).fill("Browser Cup")
    organizer.get_by_label("Format:", exact=True).select_option(str(crossover.pk))
    organizer.get_by_label("Date:", exact=True).fill("2026-05-16")
    organizer.get_by_label("Capacity:", exact=True).fill("8")
    organizer.get_by_label("Swiss rounds:", exact=True).fill("2")
    click(organizer, "Create the event")
    event_id = int(re.search(r"/events/(\d+)/staff/", organizer.url).group(1))
    click(organizer, "Open registration")
    assert flash(organizer) == "Registration is open: players can now register."

    # Three players register with a legal decklist.
    pages = {}
    for name in PLAYERS:
        page = pages[name] = new_page()
        log_in(page, name, "pw")
        page.goto(f"/events/{event_id}/")
        page.get_by_role("link", name="Register").click()
        page.get_by_label("Decklist").fill(LEGAL_DECK)
        click(page, "Register")
        assert flash(page) == "You are registered."
    assert Registration.objects.filter(event_id=event_id, status="registered").count() == 3

    # Start; round 1 (one match and a bye); then carol drops from her registration page.
    dashboard(organizer, event_id)
    click(organizer, "Start the event")
    round1 = Match.objects.filter(round__event_id=event_id, round__number=1)
    play_round(event_id, 1, organizer, pages, drop_after="carol")
    assert round1.count() == 2

    # Round 2 pairs only the two players still in; then the organizer finishes.
    play_round(event_id, 2, organizer, pages)
    round2 = Match.objects.filter(round__event_id=event_id, round__number=2)
    paired = {m.player1.player.username for m in round2} | {
        m.player2.player.username for m in round2 if m.player2
    }
    assert "carol" not in paired
    dashboard(organizer, event_id)
    organizer.get_by_label("I understand: finishing the event cannot be undone.").check()
    click(organizer, "Finish the event")
    assert flash(organizer) == "The event is finished."
    assert Event.objects.get(pk=event_id).state == "finished"

    # Anyone can download the final standings.
    visitor = new_page()
    visitor.goto(f"/events/{event_id}/standings/")
    with visitor.expect_download() as download:
        visitor.get_by_role("link", name="Standings as CSV").click()
    text = download.value.path().read_bytes().decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:4] == ["Place", "Top-cut result", "Swiss rank", "Player"]
    assert sorted(row[3] for row in rows[1:]) == ["alice", "bob", "carol"]
    assert AuditEntry.objects.filter(event_id=event_id, action="registration.dropped").count() == 1
