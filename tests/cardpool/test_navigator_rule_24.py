"""Rule 1−2−3 derived from type and rarity (issue #24, "Navigators"): the card importer and
the card admin say what the rule derived for a navigator, and the deck check follows it
through ``check_deck`` and ``POST /api/v1/decks/check/``, whatever the "any number of
copies" mark of the file says."""

import csv
import io

import pytest
from django.urls import reverse

from cardpool import services
from cardpool.importing import FIELDS
from cardpool.models import Card
from tests.decks.conftest import BAN_DAY, cards, crossover, formats, sets  # noqa: F401
from tests.decks.entry_points_24 import both, codes

pytestmark = pytest.mark.django_db

COMMON = (
    "Rule 1−2−3: a common navigator, so a deck may hold any number of copies, with or"
    " without the “any number of copies” mark."
)
RARE = (
    "Rule 1−2−3: printed as レア, not as a common, so its copies count towards the copy"
    " limit; the “any number of copies” mark does not change that."
)
UNKNOWN = (
    "Rule 1−2−3: no rarity is recorded; a deck with more copies than the copy limit is"
    " legal with a notice asking the judge to check that the cards are commons."
)
UNKNOWN_MARKED = (
    "Rule 1−2−3: no rarity is recorded, so the “any number of copies” mark stands in for it"
    " until a rarity is imported."
)


def csv_bytes(*records: dict) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(FIELDS), lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow(record)
    return out.getvalue().encode()


NAVIGATORS = (
    {"name": "レアナビ", "set": "base", "card_type": "NAVIGATOR", "number": "R1",
     "rarity": "レア", "unlimited": "true"},
    {"name": "コモンナビ", "set": "base", "card_type": "NAVIGATOR", "number": "C1",
     "rarity": "コモン"},
    {"name": "不明ナビ", "set": "base", "card_type": "NAVIGATOR", "number": "U1"},
    {"name": "印ナビ", "set": "base", "card_type": "NAVIGATOR", "number": "U2",
     "unlimited": "yes"},
)  # fmt: skip


@pytest.fixture
def imported(game, crossover):  # noqa: F811
    return services.import_cards(csv_bytes(*NAVIGATORS), game=game, filename="navi.csv")


def test_1_2_3_importer_says_what_the_rule_derived(imported):
    # Rows are numbered as in a spreadsheet: the header is row 1.
    derived = [note for note in imported.as_dict()["notes"] if note["field"] == "rarity"]
    assert derived == [
        {"row": 2, "field": "rarity", "reason": RARE},
        {"row": 3, "field": "rarity", "reason": COMMON},
        {"row": 4, "field": "rarity", "reason": UNKNOWN},
        {"row": 5, "field": "rarity", "reason": UNKNOWN_MARKED},
    ]
    # The file's mark is stored as written: the rule, not the mark, decides.
    assert Card.objects.get(name="レアナビ").unlimited is True
    assert Card.objects.get(name="コモンナビ").unlimited is False


def test_1_2_3_imported_rare_navigator_with_the_mark_is_held_to_four(client, imported, tmp_path):
    deck = "4 森原 さとみ\n4 狡猾フィーリア [base]\n37 スワティ\n5 レアナビ\n"
    report = both(client, deck, BAN_DAY, tmp_path)
    assert codes(report) == ["TOO_MANY_COPIES"]
    assert report["violations"][0]["cards"] == ["レアナビ"]
    assert report["violations"][0]["rule"] == "1−2−3"


def test_1_2_3_imported_common_navigator_without_the_mark_is_unlimited(client, imported, tmp_path):
    deck = "4 森原 さとみ\n4 狡猾フィーリア [base]\n30 スワティ\n12 コモンナビ\n"
    report = both(client, deck, BAN_DAY, tmp_path)
    assert report["legal"] is True
    assert report["notices"] == []


def test_1_2_3_admin_shows_and_says_what_the_rule_derived(admin_client, imported):
    rare = Card.objects.get(name="レアナビ")
    url = reverse("admin:cardpool_card_change", args=[rare.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    body = page.content.decode()
    assert "copies in a deck" in body.lower()
    assert "printed as レア, not as a common" in body
    form = page.context["adminform"].form
    data = {name: form.initial.get(name) for name in form.fields}
    data.update(
        {
            "game": rare.game_id, "unlimited": "on", "notes": "",
            "printings-TOTAL_FORMS": "0", "printings-INITIAL_FORMS": "0",
            "merges-TOTAL_FORMS": "0", "merges-INITIAL_FORMS": "0",
        }
    )  # fmt: skip
    data = {key: ("" if value is None else value) for key, value in data.items()}
    response = admin_client.post(url, data, follow=True)
    assert response.status_code == 200
    shown = [str(message) for message in response.context["messages"]]
    assert RARE in shown


def test_1_2_3_card_page_follows_the_derived_rule(client, imported):
    rare = Card.objects.get(name="レアナビ")
    body = client.get(reverse("cardpool:card_detail", args=[rare.pk])).content.decode()
    assert "limited by the format" in body
    assert "Marked “any number”, but rule 1−2−3 exempts only common navigators." in body
    common = Card.objects.get(name="コモンナビ")
    body = client.get(reverse("cardpool:card_detail", args=[common.pk])).content.decode()
    assert "any number (rule 1−2−3)" in body


def test_1_2_3_card_admin_explains_the_mark(admin_client, imported):
    card = Card.objects.get(name="コモンナビ")
    body = admin_client.get(reverse("admin:cardpool_card_change", args=[card.pk])).content
    assert (
        "in a format that exempts a card type, the printed rarity decides and this mark only"
        " stands in for a rarity not recorded"
    ) in body.decode()
