"""Hostile card files (issue #15): JSON nested 100,000 deep, integers of 4,300+ digits,
NUL characters, and a name with a character that changes the text direction (refused as
the card admin refuses it) are row errors (row, field, reason) — exit 1 from
``import_cards``, nothing written, the admin's job names the row — never a traceback or
"row 0 — internal error"."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from cardpool import services
from cardpool.importing import FIELDS, ImportRejected
from cardpool.models import Card, ImportJob, Printing

pytestmark = pytest.mark.django_db

GOOD = {"name": "森原 さとみ", "set": "base", "card_type": "CHARACTER", "ap": "4"}
GOOD_LINE = json.dumps(GOOD, ensure_ascii=False)
DEEP_ARRAY = '{"name": "x", "set": "base", "card_type": "SPELL", "notes": ' + (
    "[" * 100_000 + "]" * 100_000 + "}"
)
DEEP_OBJECT = '{"a": ' * 100_000 + "1" + "}" * 100_000
HUGE = "1" + "0" * 5_000  # past Python's 4,300-digit limit for int()
HUGE_LINE = f'{{"name": "ファイアボール", "set": "first", "card_type": "SPELL", "ap": {HUGE}}}'
NESTED_REASON = "nested too deeply; a card row is one flat JSON object {…}."
HUGE_REASON = "'10000000000000000000…' is larger than 999."
NUL_REASON = "contains a NUL character (U+0000), which cannot be stored."
BIDI_REASON = "contains a character that changes the text direction (U+202E); remove it."


def jsonl(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def csv_bytes(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


CASES = [
    pytest.param(
        "cards.jsonl", jsonl(GOOD_LINE, DEEP_ARRAY), [(2, "", NESTED_REASON)], id="deep-array"
    ),
    pytest.param(
        "cards.jsonl", jsonl(DEEP_OBJECT, GOOD_LINE), [(1, "", NESTED_REASON)], id="deep-object"
    ),
    pytest.param("cards.jsonl", jsonl(GOOD_LINE, HUGE_LINE), [(2, "ap", HUGE_REASON)], id="int"),
    pytest.param(
        "cards.csv",
        csv_bytes(
            "name,set,card_type,dp",
            "森原 さとみ,base,CHARACTER,2",
            f"スワティ,base,NAVIGATOR,{HUGE}",
        ),
        [(3, "dp", HUGE_REASON)],
        id="csv-int",
    ),
    pytest.param(
        "cards.jsonl",
        jsonl(GOOD_LINE, json.dumps({**GOOD, "name": "ス\x00ワティ", "text": "a\x00"})),
        [(2, "name", NUL_REASON), (2, "text", NUL_REASON)],
        id="jsonl-nul",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes(
            "name,set,card_type,notes",
            "森原 さとみ,base,CHARACTER,ok",
            "スワティ,base,NAVIGATOR,x\x00",
        ),
        [(3, "notes", NUL_REASON)],
        id="csv-nul",
    ),
    pytest.param(
        "cards.jsonl",
        jsonl(GOOD_LINE, json.dumps({**GOOD, "name": "スワティ\u202e", "text": "a\u202eb"})),
        [(2, "name", BIDI_REASON)],
        id="jsonl-bidi-name",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes("name,set,card_type", "\u2067森原 さとみ\u2069,base,CHARACTER"),
        [(2, "name", BIDI_REASON.replace("U+202E", "U+2067"))],
        id="csv-bidi-name",
    ),
    pytest.param(
        "cards.jsonl",
        jsonl(json.dumps({**GOOD, "no\x00tes": "x"})),
        [(1, "no\\u0000tes", "unknown column; the columns are " + ", ".join(FIELDS) + ".")],
        id="nul-in-column",
    ),
]


def nothing_written() -> bool:
    return Card.objects.count() == 0 and Printing.objects.count() == 0


@pytest.mark.parametrize(("filename", "data", "expected"), CASES)
def test_import_hostile_15_rows_are_refused_with_row_field_reason(
    crossover_sets, game, filename, data, expected
):
    with translation.override("en"), pytest.raises(ImportRejected) as excinfo:
        services.import_cards(data, game=game, filename=filename)
    assert [(e.row, e.field, e.reason) for e in excinfo.value.errors] == expected
    assert nothing_written()


@pytest.mark.parametrize(("filename", "data", "expected"), CASES)
def test_import_hostile_15_command_exits_1_and_writes_nothing(
    crossover_sets, tmp_path, filename, data, expected
):
    path = tmp_path / filename
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with translation.override("en"), pytest.raises(CommandError) as excinfo:
        call_command("import_cards", str(path), stdout=out, stderr=err)
    assert excinfo.value.returncode == 1
    assert str(excinfo.value) == f"{filename}: {len(expected)} problem(s); nothing was imported."
    assert err.getvalue().splitlines() == [
        f"{filename}: row {row}, field {field}: {reason}"
        if field
        else f"{filename}: row {row}: {reason}"
        for row, field, reason in expected
    ]
    assert out.getvalue() == ""
    assert nothing_written()


@pytest.mark.parametrize(("filename", "data", "expected"), CASES)
def test_import_hostile_15_admin_job_names_the_row_not_an_internal_error(
    crossover_sets, game, filename, data, expected
):
    job = ImportJob.objects.create(game=game, filename=filename, content=data)
    with translation.override("en"):
        services.run_import_job(job.pk)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED
    assert job.report == {
        "errors": [
            {"row": row, "field": field, "reason": reason} for row, field, reason in expected
        ]
    }
    assert nothing_written()
