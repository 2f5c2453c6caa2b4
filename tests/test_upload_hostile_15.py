"""Uploaded files with NUL (U+0000) or a character that changes the text direction (issue
#15), end to end through the ways they arrive that are not the event file's (those are in
tests/tournaments/test_event_file_hostile_15.py):

* the card admin's upload (a multipart request the NUL middleware lets through: the file
  is not a form field) ends in a failed import job naming the row and field, nothing
  written, the same on SQLite and PostgreSQL;
* the card admin's form refuses a card name with a direction-changing character, as the
  import refuses it;
* ``check_deck`` refuses a decklist file holding NUL with its line (exit 2), as the pages
  and the API refuse NUL in a decklist.

The rules importer's NUL refusal is in tests/test_hostile_input_15.py, the card
importer's row by row in tests/cardpool/test_import_hostile_15.py.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import translation

from cardpool.admin import CardAdminForm
from cardpool.models import Card, ImportJob, Printing
from tests.cardpool import test_admin_import as admin_import_tests
from tests.decks.conftest import BETA_DECK, cards, crossover, formats, sets  # noqa: F401

importer = admin_import_tests.importer  # the admin upload's user

pytestmark = pytest.mark.django_db

UPLOAD_URL = reverse("admin:cardpool_importjob_upload")
NUL_REASON = "contains a NUL character (U+0000), which cannot be stored."


def bidi_reason(code: str) -> str:
    return f"contains a character that changes the text direction ({code}); remove it."


def upload(client, game, raw: bytes, name: str):
    return client.post(
        UPLOAD_URL, {"game": game.pk, "file": SimpleUploadedFile(name, raw, "text/csv")}
    )


@pytest.mark.parametrize(
    ("name", "raw", "errors"),
    [
        pytest.param(
            "cards.csv",
            (
                "name,set,card_type,text\n森原 さとみ,base,CHARACTER,ok\n"
                "ス\x00ワティ,base,NAVIGATOR,\n"
            ).encode(),
            [{"row": 3, "field": "name", "reason": NUL_REASON}],
            id="csv-nul-name",
        ),
        pytest.param(
            "cards.jsonl",
            '{"name": "スワティ", "set": "base", "card_type": "NAVIGATOR", "te\\u0000xt": "x"}\n'
            '{"name": "森原 さとみ", "set": "base\\u0000", "card_type": "CHARACTER"}\n'.encode(),
            [
                {
                    "row": 1,
                    "field": "te\\u0000xt",
                    "reason": "unknown column; the columns are name, set, card_type, number, "
                    "rarity, cost, gender, ap, dp, text, unlimited, element, notes, "
                    "deck_size_min, deck_size_max, release_date.",
                },
                {"row": 2, "field": "set", "reason": NUL_REASON},
            ],
            id="jsonl-nul-key-and-value",
        ),
        pytest.param(
            "cards.csv",
            "name,set,card_type\n森原 さとみ\u202e,base,CHARACTER\n".encode(),
            [{"row": 2, "field": "name", "reason": bidi_reason("U+202E")}],
            id="csv-bidi-name",
        ),
    ],
)
def test_admin_upload_refuses_the_rows_and_writes_nothing(
    importer, crossover_sets, game, django_capture_on_commit_callbacks, name, raw, errors
):
    with translation.override("en"), django_capture_on_commit_callbacks(execute=True):
        response = upload(importer, game, raw, name)
    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert job.status == ImportJob.Status.FAILED
    assert job.report == {"errors": errors}
    assert Card.objects.count() == Printing.objects.count() == 0
    # The report is shown as it was stored (the NUL in a key as \u0000).
    page = importer.get(reverse("admin:cardpool_importjob_progress", args=[job.pk]))
    assert page.status_code == 200
    assert "\x00" not in page.content.decode()


def test_admin_upload_file_name_with_nul_or_bidi_is_stored_without_them(
    importer, crossover_sets, game, django_capture_on_commit_callbacks
):
    """Django drops unprintable characters from an upload's name (NUL, U+202E)."""
    raw = "name,set,card_type\n森原 さとみ,base,CHARACTER\n".encode()
    with django_capture_on_commit_callbacks(execute=True):
        upload(importer, game, raw, "ca\x00rds\u202evsc.csv")
    job = ImportJob.objects.get()
    assert job.filename == "cardsvsc.csv"
    assert job.status == ImportJob.Status.DONE
    assert list(Card.objects.values_list("name", flat=True)) == ["森原 さとみ"]


def test_card_admin_form_refuses_a_name_that_changes_direction(game):
    data = {"game": game.pk, "name": "\u2066スワティ", "card_type": "NAVIGATOR"}
    form = CardAdminForm(data=data)
    with translation.override("en"):
        assert not form.is_valid()
        assert form.errors["name"] == [bidi_reason("U+2066")]
    assert form.has_error("name", code="bidi_control")
    with translation.override("ja"):
        form = CardAdminForm(data=data)
        assert form.errors["name"] == [
            "文字の向きを変える文字（U+2066）が含まれています。取り除いてください。"
        ]
    form = CardAdminForm(data={**data, "name": "スワティ\u200e"})  # a mark, not an override
    assert "name" not in form.errors


def test_check_deck_refuses_a_decklist_file_with_nul_by_its_line(tmp_path, crossover):  # noqa: F811
    path = tmp_path / "deck.txt"
    lines = BETA_DECK.splitlines()
    lines[2] = lines[2] + "\x00"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command("check_deck", str(path), "--format", "crossover")
    assert refused.value.returncode == 2
    assert str(refused.value) == f"{path}: line 3 contains a NUL character (U+0000)"
