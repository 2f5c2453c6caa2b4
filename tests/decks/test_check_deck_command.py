"""python manage.py check_deck: exit 0 legal, 1 illegal, 2 unreadable input."""

import io
import json
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from tests.decks.conftest import BETA_DECK, LEGAL_DECK

pytestmark = pytest.mark.django_db


def run(*args):
    out = io.StringIO()
    call_command("check_deck", *args, stdout=out)
    return out.getvalue()


def run_illegal(*args):
    out = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("check_deck", *args, stdout=out)
    assert exited.value.code == 1
    return out.getvalue()


@pytest.fixture
def decklist(tmp_path):
    def write(text, name="deck.txt"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


def test_check_deck_legal_prints_the_report_and_returns(crossover, decklist):
    output = run(decklist(BETA_DECK), "--format", "crossover", "--as-of", "2002-03-31")
    assert output == (
        "LEGAL — crossover v1 as of 2002-03-31\n"
        "deck 50, sideboard 0\n"
    )  # fmt: skip


def test_check_deck_illegal_prints_every_problem_and_exits_1(crossover, decklist):
    path = decklist(BETA_DECK + "サイドボード\n2 森原 さとみ\n")
    output = run_illegal(path, "--format", "crossover", "--as-of", "2002-04-01")
    assert output == (
        "NOT LEGAL (2 problems) — crossover v1 as of 2002-04-01\n"
        "deck 50, sideboard 2\n"
        "  TOO_MANY_COPIES [1−2−3]: 6 copies of 森原 さとみ in deck and sideboard together; "
        "at most 4.\n"
        "  BANNED [1−2−1]: 狡猾フィーリア (βedition printing) is banned on 2002-04-01.\n"
    )


def test_check_deck_in_japanese(crossover, decklist):
    output = run_illegal(
        decklist(BETA_DECK), "--format", "crossover", "--as-of", "2002-04-01", "--language", "ja"
    )
    assert output == (
        "NOT LEGAL (1 problem) — crossover v1 as of 2002-04-01\n"
        "deck 50, sideboard 0\n"
        "  BANNED [1−2−1]: 〔狡猾フィーリア〕（βedition版）は2002-04-01時点で禁止カードです。\n"
    )


def test_check_deck_json_matches_the_api(crossover, decklist, client):
    output = run_illegal(
        decklist(BETA_DECK), "--format", "crossover", "--as-of", "2002-04-01", "--json"
    )
    report = json.loads(output)
    api = client.post(
        "/api/v1/decks/check/",
        {"format": "crossover", "decklist": BETA_DECK, "as_of": "2002-04-01"},
        content_type="application/json",
    ).json()
    assert report == api
    assert set(report) == {
        "format",
        "format_version",
        "as_of",
        "legal",
        "main_count",
        "sideboard_count",
        "by_type",
        "by_element",
        "violations",
        "notices",
    }
    assert set(report["violations"][0]) == {
        "code",
        "rule",
        "message",
        "message_en",
        "message_ja",
        "cards",
        "lines",
        "details",
    }
    assert report["legal"] is False


def test_check_deck_json_of_a_legal_deck_returns_normally(crossover, decklist):
    report = json.loads(run(decklist(LEGAL_DECK), "--format", "crossover", "--json"))
    assert report["legal"] is True
    assert report["violations"] == []


def test_check_deck_reports_unknown_cards_as_illegal(crossover, decklist):
    output = run_illegal(decklist("4 ナイカード\n"), "--format", "crossover")
    assert "  UNKNOWN_CARD: Unknown card “ナイカード” on line 1.\n" in output


def test_check_deck_reads_utf8_with_bom(crossover, tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(("\ufeff" + LEGAL_DECK).encode("utf-8"))
    assert run(str(path), "--format", "crossover").startswith("LEGAL — crossover v1 as of ")


def test_check_deck_missing_file_exits_2(crossover, tmp_path):
    with pytest.raises(CommandError) as raised:
        run(str(tmp_path / "missing.txt"), "--format", "crossover")
    assert raised.value.returncode == 2
    assert (
        str(raised.value) == f"{tmp_path / 'missing.txt'}: cannot read: No such file or directory"
    )


def test_check_deck_invalid_utf8_exits_2(crossover, tmp_path):
    path = tmp_path / "sjis.txt"
    path.write_bytes("4 スワティ\n".encode() + "4 森原さとみ\n".encode("shift_jis"))
    with pytest.raises(CommandError) as raised:
        run(str(path), "--format", "crossover")
    assert raised.value.returncode == 2
    assert str(raised.value) == f"{path}: line 2 is not UTF-8 text"


def test_check_deck_unknown_format_exits_2(crossover, decklist):
    with pytest.raises(CommandError) as raised:
        run(decklist(LEGAL_DECK), "--format", "nope")
    assert raised.value.returncode == 2
    assert str(raised.value) == (
        "unknown format 'nope'; known formats: asura-system, crossover, monster-collection"
    )


def test_check_deck_bad_as_of_exits_2(crossover, decklist):
    with pytest.raises(CommandError) as raised:
        run(decklist(LEGAL_DECK), "--format", "crossover", "--as-of", "2002-04-31")
    assert raised.value.returncode == 2
    assert str(raised.value) == "--as-of '2002-04-31' is not a date (YYYY-MM-DD)"


def test_check_deck_exit_status_of_the_real_command(tmp_path):
    # manage.py turns the CommandError into exit status 2 (no database needed to get there).
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check_deck", str(tmp_path / "none.txt"), "--format", "x"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "cannot read: No such file or directory" in result.stderr
