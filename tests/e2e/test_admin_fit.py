"""The judges' and organizers' admin pages in a real browser: they fit a laptop (1366 px)
and a phone (390 px) without scrolling sideways, in English and Japanese.

Pages: a format with its ban list and rule citations (the ban list once made the page
2,156 px wide), a card with its printings, a ruling with its history, a rules document
and a section. An organizer also edits one rule citation in the browser, typing the
section with an ASCII hyphen; it is stored as the rulebook writes it (1−2−5).

Screenshots go to /tmp/shots/admin/ (not committed) for a human to look at.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from decks.models import Format
from rules import services as rules_services
from rules.models import RulesDocument, Ruling, RulingStatus, Section
from tests.decks import conftest as deck_fixtures

sets = deck_fixtures.sets
cards = deck_fixtures.cards
formats = deck_fixtures.formats
crossover = deck_fixtures.crossover

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = Path("/tmp/shots/admin")
SIZES = {"laptop": 1366, "phone": 390}
LOCALES = {"en": "en-US", "ja": "ja-JP"}
PASSWORD = "admin-pass-2026"


@pytest.fixture
def pages(crossover, cards):
    admin_user = User.objects.create_superuser("organizer", "o@example.invalid", PASSWORD)
    game = crossover.game
    document = RulesDocument.objects.create(
        game=game, title="大会運営の手引き", version="1", style="crossover", checksum="0" * 64
    )
    section = Section.objects.create(
        document=document, number="4−3−8", title="効果の処理", body="本文。", order=1
    )
    ruling = rules_services.save_ruling(
        Ruling(
            game=game,
            question="〔狡猾フィーリア〕の効果は、相手のターンにも使えますか？",
            answer="はい。相手のターン中でも、条件を満たしていれば使えます。",
            status=RulingStatus.OFFICIAL,
            date=dt.date(2026, 11, 1),
        ),
        by=admin_user,
        cards=[cards["feeria"]],
        sections=[section],
    )
    ruling.answer = "いいえ。相手のターン中には使えません。自分のターンにのみ使えます。"
    ruling.status = RulingStatus.COMMUNITY
    rules_services.save_ruling(ruling, by=admin_user)
    return {
        "format": reverse("admin:decks_format_change", args=[crossover.pk]),
        "card": reverse("admin:cardpool_card_change", args=[cards["feeria"].pk]),
        "ruling": reverse("admin:rules_ruling_change", args=[ruling.pk]),
        "document": reverse("admin:rules_rulesdocument_change", args=[document.pk]),
        "section": reverse("admin:rules_section_change", args=[section.pk]),
        "formats": reverse("admin:decks_format_changelist"),
    }


def admin_log_in(page) -> None:
    page.goto(reverse("admin:login"))
    page.fill("#id_username", "organizer")
    page.fill("#id_password", PASSWORD)
    page.locator("#login-form [type=submit]").click()
    page.wait_for_load_state()


@pytest.mark.parametrize("language", list(LOCALES))
@pytest.mark.parametrize("size", list(SIZES))
def test_admin_pages_fit_without_sideways_scroll(new_page, pages, size, language):
    width = SIZES[size]
    page = new_page(LOCALES[language])
    page.set_viewport_size({"width": width, "height": 900})
    admin_log_in(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems = []
    for name, url in pages.items():
        page.goto(url)
        page.wait_for_load_state()
        assert page.locator("html").get_attribute("lang") == language, url
        page.screenshot(path=str(SHOTS / f"{size}-{language}-{name}.png"), full_page=True)
        scroll_width = page.evaluate("document.documentElement.scrollWidth")
        if scroll_width > width:
            problems.append(f"{name} ({url}): {scroll_width}px wide at {width}px")
    assert not problems, "\n".join(problems)


def test_an_organizer_edits_a_rule_citation_as_a_row(new_page, pages, crossover):
    page = new_page("ja-JP")
    page.set_viewport_size({"width": 1366, "height": 900})
    admin_log_in(page)
    page.goto(pages["format"])
    row = page.locator("#id_rule_sections__TOO_MANY_COPIES")
    assert row.input_value() == "1−2−3"
    row.fill("1-2-5")
    page.locator("#id_rule_sections__BANNED").fill("1-2-x")
    page.locator("input[name=_continue]").click()
    page.wait_for_load_state()
    # Refused by the row's name; nothing saved.
    assert "禁止カード: 「1-2-x」は 4−3−8 のような項番号ではありません。" in page.content()
    assert Format.objects.get(pk=crossover.pk).rule_sections["TOO_MANY_COPIES"] == "1−2−3"
    page.locator("#id_rule_sections__BANNED").fill("1−2−1")
    page.locator("input[name=_continue]").click()
    page.wait_for_load_state()
    saved = Format.objects.get(pk=crossover.pk).rule_sections
    assert saved["TOO_MANY_COPIES"] == "1−2−5"
    assert saved["BANNED"] == "1−2−1"
    assert page.locator("#id_rule_sections__TOO_MANY_COPIES").input_value() == "1−2−5"
