"""Exports of standings, pairings and decklists: exact files, formula neutralisation,
who may export what, background jobs with progress, and fixed query counts."""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import zipfile
from decimal import Decimal
from types import SimpleNamespace
from xml.etree import ElementTree

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.template.loader import render_to_string
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.tournaments.factories import (
    UserFactory,
    new_event,
    open_event,
    play_round,
    register_all,
    report_all,
)
from tournaments import exports, services
from tournaments.exports import Column, Table, neutralise, to_csv, to_json, to_xlsx
from tournaments.models import ExportJob, StaffRole

pytestmark = pytest.mark.django_db

# Player names that a spreadsheet would run as formulas, and a Japanese one.
HOSTILE_NAMES = ['=HYPERLINK("http://evil.example","x")', "+1", "-x", "@SUM", "山田 太郎"]
NS = {"x": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def export_url(event, kind, fmt, round_number=None):
    url = reverse("tournaments:export", kwargs={"pk": event.pk, "kind": kind, "fmt": fmt})
    return f"{url}?round={round_number}" if round_number else url


def client_for(user=None):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def build_tiny_event(organizer, fmt, *, name="Tiny", names=HOSTILE_NAMES, prefix="p"):
    """Five players (first names as given), round 1 played and closed: tables 1 and 2
    won 2-0 by player 1, table 3 a bye."""
    event = open_event(organizer, fmt, name=name)
    players = []
    for index, first_name in enumerate(names):
        player = UserFactory(username=f"{prefix}{index}")
        player.first_name = first_name
        player.save(update_fields=["first_name"])
        players.append(player)
    registrations = register_all(event, players)
    services.start_event(event, actor=organizer)
    if names is HOSTILE_NAMES:
        # The engine's pairing depends on the row ids, which differ between databases
        # (PostgreSQL does not reuse ids after a rollback): fix the tables.
        round_ = services.generate_round(event, actor=organizer)
        first, second, third, fourth, fifth = registrations
        tables = {1: (second, first), 2: (fifth, third), 3: (fourth, None)}
        services.edit_pairing(round_, actor=organizer, tables=tables, reason="fixed for tests")
        services.publish_round(round_, actor=organizer)
        services.start_round_clock(round_, actor=organizer)
        report_all(round_)
        round_ = services.close_round(round_, actor=organizer)
    else:
        round_ = play_round(event, organizer)
    event.refresh_from_db()
    return SimpleNamespace(event=event, players=players, registrations=registrations, round=round_)


@pytest.fixture
def tiny(organizer, crossover):
    return build_tiny_event(organizer, crossover)


def read_xlsx(content: bytes) -> SimpleNamespace:
    """The first sheet's cells as Python values (str for text, float for numbers, bool),
    whether each header cell is bold, and the frozen rows."""
    book = zipfile.ZipFile(io.BytesIO(content))
    sheet = ElementTree.fromstring(book.read("xl/worksheets/sheet1.xml"))
    styles = ElementTree.fromstring(book.read("xl/styles.xml"))
    fonts = styles.findall("x:fonts/x:font", NS)
    xfs = styles.findall("x:cellXfs/x:xf", NS)
    shared = []
    if "xl/sharedStrings.xml" in book.namelist():
        strings = ElementTree.fromstring(book.read("xl/sharedStrings.xml"))
        shared = ["".join(t.text or "" for t in si.iter(f"{{{NS['x']}}}t")) for si in strings]

    def unescape(text: str) -> str:
        return re.sub(r"_x([0-9A-F]{4})_", lambda m: chr(int(m.group(1), 16)), text)

    rows, bold = [], []
    for row in sheet.findall("x:sheetData/x:row", NS):
        values = {}
        for cell in row.findall("x:c", NS):
            column = ord(re.match(r"[A-Z]", cell.get("r")).group()) - ord("A")
            kind = cell.get("t")
            if kind == "inlineStr":
                value = unescape("".join(t.text or "" for t in cell.iter(f"{{{NS['x']}}}t")))
            elif kind == "s":
                value = unescape(shared[int(cell.find("x:v", NS).text)])
            elif kind == "b":
                value = cell.find("x:v", NS).text == "1"
            else:
                assert kind is None, kind  # never a formula ("str") or an error
                assert cell.find("x:f", NS) is None
                value = float(cell.find("x:v", NS).text)
            values[column] = value
            if row.get("r") == "1":
                font = fonts[int(xfs[int(cell.get("s", 0))].get("fontId"))]
                bold.append(font.find("x:b", NS) is not None)
        rows.append([values.get(i) for i in range(max(values) + 1)] if values else [])
    pane = sheet.find("x:sheetViews/x:sheetView/x:pane", NS)
    return SimpleNamespace(
        rows=rows,
        header_bold=bold,
        frozen_rows=int(pane.get("ySplit")) if pane is not None else 0,
        frozen=pane is not None and pane.get("state") == "frozen",
    )


# --- exact files ---------------------------------------------------------------------

STANDINGS_CSV = (
    "\ufeffPlace,Top-cut result,Swiss rank,Player,Points,Record,OMW%,GW%,OGW%,Dropped\r\n"
    "1,,1,山田 太郎,3,1-0-0,33.00,100.00,33.00,false\r\n"
    "1,,1,'+1,3,1-0-0,33.00,100.00,33.00,false\r\n"
    "3,,3,'@SUM,3,1-0-0,0.00,100.00,0.00,false\r\n"
    '4,,4,"\'=HYPERLINK(""http://evil.example"",""x"")",0,0-1-0,100.00,33.00,100.00,false\r\n'
    "4,,4,'-x,0,0-1-0,100.00,33.00,100.00,false\r\n"
)

PAIRINGS_CSV = (
    "\ufeffTable,Player 1,Player 2,Result,Status\r\n"
    '1,\'+1,"\'=HYPERLINK(""http://evil.example"",""x"")",2-0-0,confirmed\r\n'
    "2,山田 太郎,'-x,2-0-0,confirmed\r\n"
    "3,'@SUM,BYE,2-0-0,final\r\n"
)


def standings_record(rank, player, points, record, omw, gw, ogw):
    return (
        "  {\n"
        f'    "placing": {rank},\n'
        '    "top_cut_result": null,\n'
        f'    "rank": {rank},\n'
        f'    "player": {json.dumps(player, ensure_ascii=False)},\n'
        f'    "points": {points},\n'
        f'    "record": "{record}",\n'
        f'    "opponents_match_win_pct": {omw},\n'
        f'    "game_win_pct": {gw},\n'
        f'    "opponents_game_win_pct": {ogw},\n'
        '    "dropped": false\n'
        "  }"
    )


STANDINGS_JSON = (
    "[\n"
    + ",\n".join(
        [
            standings_record(1, "山田 太郎", 3, "1-0-0", 33.0, 100.0, 33.0),
            standings_record(1, "+1", 3, "1-0-0", 33.0, 100.0, 33.0),
            standings_record(3, "@SUM", 3, "1-0-0", 0.0, 100.0, 0.0),
            standings_record(4, HOSTILE_NAMES[0], 0, "0-1-0", 100.0, 33.0, 100.0),
            standings_record(4, "-x", 0, "0-1-0", 100.0, 33.0, 100.0),
        ]
    )
    + "\n]\n"
)


def test_standings_csv_exact_bytes(tiny, outsider):
    response = client_for(outsider).get(export_url(tiny.event, "standings", "csv"))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="event-{tiny.event.pk}-standings.csv"'
    )
    assert response.content == STANDINGS_CSV.encode("utf-8")
    assert response.content.startswith(b"\xef\xbb\xbf")  # the BOM Excel needs


def test_standings_json_exact_bytes_keeps_values_unchanged(tiny):
    response = client_for().get(export_url(tiny.event, "standings", "json"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == (
        f'attachment; filename="event-{tiny.event.pk}-standings.json"'
    )
    # Non-ASCII as is, and names exactly as entered: JSON is data, not a spreadsheet.
    assert response.content == STANDINGS_JSON.encode("utf-8")


def test_pairings_csv_and_json_exact(tiny, outsider):
    client = client_for(outsider)
    response = client.get(export_url(tiny.event, "pairings", "csv", 1))
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="event-{tiny.event.pk}-round-1-pairings.csv"'
    )
    assert response.content == PAIRINGS_CSV.encode("utf-8")
    response = client.get(export_url(tiny.event, "pairings", "json", 1))
    assert (
        response.content
        == (
            "[\n"
            '  {\n    "table": 1,\n    "player1": "+1",\n'
            '    "player2": "=HYPERLINK(\\"http://evil.example\\",\\"x\\")",\n'
            '    "result": "2-0-0",\n    "status": "confirmed"\n  },\n'
            '  {\n    "table": 2,\n    "player1": "山田 太郎",\n    "player2": "-x",\n'
            '    "result": "2-0-0",\n    "status": "confirmed"\n  },\n'
            '  {\n    "table": 3,\n    "player1": "@SUM",\n    "player2": "BYE",\n'
            '    "result": "2-0-0",\n    "status": "final"\n  }\n'
            "]\n"
        ).encode()
    )


DECKLIST_HEADER = (
    "Player,Card name (Japanese),Card name (English),Set,Card number,Count,Section,Known card"
)


def test_decklists_csv_rows_per_card_and_json_nested(tiny, organizer):
    client = client_for(organizer)
    response = client.get(export_url(tiny.event, "decklists", "csv"))
    assert response.status_code == 200
    lines = response.content.decode("utf-8-sig").split("\r\n")
    assert lines[0] == DECKLIST_HEADER
    # The card's name, the printing named (base 010) or else the newest one.
    assert lines[1:4] == [
        '"\'=HYPERLINK(""http://evil.example"",""x"")",森原 さとみ,,base,001,4,main,true',
        '"\'=HYPERLINK(""http://evil.example"",""x"")",狡猾フィーリア,,base,010,4,main,true',
        '"\'=HYPERLINK(""http://evil.example"",""x"")",スワティ,,base,100,42,main,true',
    ]
    assert lines[13:16] == [
        "山田 太郎,森原 さとみ,,base,001,4,main,true",
        "山田 太郎,狡猾フィーリア,,base,010,4,main,true",
        "山田 太郎,スワティ,,base,100,42,main,true",
    ]
    assert lines[16:] == [""]
    data = json.loads(client.get(export_url(tiny.event, "decklists", "json")).content)
    assert [entry["player"] for entry in data] == HOSTILE_NAMES
    assert data[4] == {
        "player": "山田 太郎",
        "legal": True,
        "main_count": 50,
        "sideboard_count": 0,
        "cards": [
            {
                "card": "森原 さとみ",
                "card_en": "",
                "set": "base",
                "number": "001",
                "count": 4,
                "section": "main",
                "known": True,
            },
            {
                "card": "狡猾フィーリア",
                "card_en": "",
                "set": "base",
                "number": "010",
                "count": 4,
                "section": "main",
                "known": True,
            },
            {
                "card": "スワティ",
                "card_en": "",
                "set": "base",
                "number": "100",
                "count": 42,
                "section": "main",
                "known": True,
            },
        ],
    }


# Typed names in brackets and spacing variants, one card on two lines, a β printing.
TYPED_DECK = (
    "4 『森原さとみ』\n2 〔狡猾フィーリア〕 (β)\n1 狡猾フィーリア (β)\n43 スワティ\n"
    "サイドボード\n1 狡猾フィーリア [base]\n"
)


def test_decklist_export_names_the_card_not_the_typed_text(organizer, crossover, outsider):
    event = open_event(organizer, crossover, name="Side", date=dt.date(2002, 3, 1))
    register_all(event, [outsider], deck_text=TYPED_DECK)
    client = client_for(outsider)
    text = client.get(export_url(event, "decklists", "csv")).content.decode("utf-8-sig")
    assert text.split("\r\n")[1:] == [
        "outsider,森原 さとみ,,base,001,4,main,true",
        "outsider,狡猾フィーリア,,beta,B-10,3,main,true",
        "outsider,スワティ,,base,100,43,main,true",
        "outsider,狡猾フィーリア,,base,010,1,side,true",
        "",
    ]
    (entry,) = json.loads(client.get(export_url(event, "decklists", "json")).content)
    assert (entry["legal"], entry["main_count"], entry["sideboard_count"]) == (True, 50, 1)
    assert entry["cards"][1] == {
        "card": "狡猾フィーリア",
        "card_en": "",
        "set": "beta",
        "number": "B-10",
        "count": 3,
        "section": "main",
        "known": True,
    }


def test_decklist_export_in_japanese_has_japanese_values(organizer, crossover, outsider):
    event = open_event(organizer, crossover, name="Side", date=dt.date(2002, 3, 1))
    register_all(event, [outsider], deck_text=TYPED_DECK)
    client = client_for(outsider)
    client.cookies["django_language"] = "ja"
    text = client.get(export_url(event, "decklists", "csv")).content.decode("utf-8-sig")
    assert text.split("\r\n") == [
        "プレイヤー,カード名（日本語）,カード名（英語）,セット,カード番号,枚数,区分,既知のカード",
        "outsider,森原 さとみ,,base,001,4,メイン,はい",
        "outsider,狡猾フィーリア,,beta,B-10,3,メイン,はい",
        "outsider,スワティ,,base,100,43,メイン,はい",
        "outsider,狡猾フィーリア,,base,010,1,サイド,はい",
        "",
    ]
    sheet = read_xlsx(client.get(export_url(event, "decklists", "xlsx")).content)
    assert sheet.rows[4] == ["outsider", "狡猾フィーリア", "", "base", "010", 1.0, "サイド", "はい"]
    # JSON is data for programs: codes and booleans in every language.
    (entry,) = json.loads(client.get(export_url(event, "decklists", "json")).content)
    assert (entry["cards"][3]["section"], entry["cards"][3]["known"]) == ("side", True)


def test_unknown_card_keeps_its_typed_text_and_is_not_known(organizer, crossover, outsider):
    event = open_event(organizer, crossover, name="Unknown")
    deck = "4 森原 さとみ\n4 狡猾フィーリア [base]\n42 スワティ\n"
    register_all(event, [outsider], deck_text=deck)
    outsider_registration = event.registrations.get()
    outsider_registration.deck_text = deck + "2 『ないカード』\n"
    outsider_registration.save(update_fields=["deck_text"])
    text = client_for(outsider).get(export_url(event, "decklists", "csv"))
    rows = text.content.decode("utf-8-sig").split("\r\n")
    assert rows[4] == "outsider,『ないカード』,,,,2,main,false"


def test_pairings_and_standings_values_in_japanese(tiny, outsider):
    client = client_for(outsider)
    client.cookies["django_language"] = "ja"
    pairings = client.get(export_url(tiny.event, "pairings", "csv", 1)).content
    lines = pairings.decode("utf-8-sig").split("\r\n")
    assert [line.rsplit(",", 1)[1] for line in lines[1:4]] == ["確定", "確定", "最終"]
    standings = client.get(export_url(tiny.event, "standings", "csv")).content
    lines = standings.decode("utf-8-sig").split("\r\n")
    assert lines[1] == "1,,1,山田 太郎,3,1-0-0,33.00,100.00,33.00,いいえ"
    sheet = read_xlsx(client.get(export_url(tiny.event, "standings", "xlsx")).content)
    assert sheet.rows[1][-1] == "いいえ"


def test_standings_xlsx_read_back(tiny):
    response = client_for().get(export_url(tiny.event, "standings", "xlsx"))
    assert response.status_code == 200
    assert response["Content-Type"] == XLSX_TYPE
    assert response["Content-Disposition"] == (
        f'attachment; filename="event-{tiny.event.pk}-standings.xlsx"'
    )
    sheet = read_xlsx(response.content)
    assert sheet.rows[0] == [
        "Place",
        "Top-cut result",
        "Swiss rank",
        "Player",
        "Points",
        "Record",
        "OMW%",
        "GW%",
        "OGW%",
        "Dropped",
    ]
    assert sheet.header_bold == [True] * 10
    assert (sheet.frozen, sheet.frozen_rows) == (True, 1)
    # Outside a top cut the result cell is empty (no cell written).
    assert sheet.rows[1:] == [
        [1.0, None, 1.0, "山田 太郎", 3.0, "1-0-0", 33.0, 100.0, 33.0, False],
        [1.0, None, 1.0, "'+1", 3.0, "1-0-0", 33.0, 100.0, 33.0, False],
        [3.0, None, 3.0, "'@SUM", 3.0, "1-0-0", 0.0, 100.0, 0.0, False],
        [4.0, None, 4.0, "'" + HOSTILE_NAMES[0], 0.0, "0-1-0", 100.0, 33.0, 100.0, False],
        [4.0, None, 4.0, "'-x", 0.0, "0-1-0", 100.0, 33.0, 100.0, False],
    ]


def test_pairings_xlsx_bye_and_names_are_text(tiny):
    response = client_for().get(export_url(tiny.event, "pairings", "xlsx", 1))
    sheet = read_xlsx(response.content)
    assert sheet.rows == [
        ["Table", "Player 1", "Player 2", "Result", "Status"],
        [1.0, "'+1", "'" + HOSTILE_NAMES[0], "2-0-0", "confirmed"],
        [2.0, "山田 太郎", "'-x", "2-0-0", "confirmed"],
        [3.0, "'@SUM", "BYE", "2-0-0", "final"],
    ]


# --- writers: every formula-leading character --------------------------------------

FORMULA_CELLS = ["=1+1", "+1", "-x", "@SUM(A1)", "\tTAB", "\rCR"]


def writer_table():
    columns = [Column("text", "=Header"), Column("number", "n", decimals=2), Column("flag", "f")]
    rows = [[text, -5, True] for text in FORMULA_CELLS]
    rows.append(["plain", Decimal("-1.50"), False])
    rows.append([None, None, None])
    return Table("standings", columns, rows)


def test_neutralise_prefixes_each_formula_character_only():
    assert [neutralise(text) for text in FORMULA_CELLS] == [
        "'=1+1",
        "'+1",
        "'-x",
        "'@SUM(A1)",
        "'\tTAB",
        "'\rCR",
    ]
    assert neutralise("plain") == "plain"
    assert neutralise("1-0-0") == "1-0-0"
    assert neutralise("") == ""


def test_csv_neutralises_text_but_not_numbers():
    assert to_csv(writer_table()) == (
        "\ufeff'=Header,n,f\r\n"
        "'=1+1,-5,true\r\n"
        "'+1,-5,true\r\n"
        "'-x,-5,true\r\n"
        "'@SUM(A1),-5,true\r\n"
        "'\tTAB,-5,true\r\n"
        '"\'\rCR",-5,true\r\n'
        "plain,-1.50,false\r\n"
        ",,\r\n"
    ).encode("utf-8")


def test_xlsx_neutralises_text_and_keeps_numbers_numbers():
    sheet = read_xlsx(to_xlsx(writer_table()))
    assert sheet.rows == [
        ["'=Header", "n", "f"],
        ["'=1+1", -5.0, True],
        ["'+1", -5.0, True],
        ["'-x", -5.0, True],
        ["'@SUM(A1)", -5.0, True],
        ["'\tTAB", -5.0, True],
        ["'\rCR", -5.0, True],
        ["plain", -1.5, False],
    ]  # a row of empty cells has nothing to write


def test_json_keeps_formula_text_unchanged():
    data = json.loads(to_json(writer_table()))
    assert [row["text"] for row in data] == [*FORMULA_CELLS, "plain", None]
    assert data[0] == {"text": "=1+1", "number": -5, "flag": True}
    assert data[6] == {"text": "plain", "number": -1.5, "flag": False}


# --- who may export what -------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "round_number"), [("standings", None), ("pairings", 1), ("decklists", None)]
)
def test_draft_event_exports_are_404_for_anonymous_and_outsiders(
    organizer, crossover, outsider, kind, round_number
):
    event = new_event(organizer, crossover, name="Secret")
    for user in (None, outsider):
        for fmt in ("csv", "json", "xlsx"):
            response = client_for(user).get(export_url(event, kind, fmt, round_number))
            assert response.status_code == 404, (user, fmt)
    assert ExportJob.objects.count() == 0


def test_draft_event_standings_for_its_staff(organizer, crossover):
    event = new_event(organizer, crossover, name="Secret")
    response = client_for(organizer).get(export_url(event, "standings", "csv"))
    assert response.status_code == 200
    header = "\ufeffPlace,Top-cut result,Swiss rank,Player,Points,Record,OMW%,GW%,OGW%,Dropped\r\n"
    assert response.content == header.encode()


def test_unpublished_round_pairings_only_for_staff(tiny, organizer, judge, outsider):
    services.add_staff(tiny.event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    services.generate_round(tiny.event, actor=organizer)  # round 2, not published
    for user in (None, outsider, tiny.players[0]):
        response = client_for(user).get(export_url(tiny.event, "pairings", "csv", 2))
        assert response.status_code == 404, user
    response = client_for(judge).get(export_url(tiny.event, "pairings", "csv", 2))
    assert response.status_code == 200
    assert response.content.decode("utf-8-sig").count("\r\n") == 4  # header + 3 tables
    assert client_for(outsider).get(export_url(tiny.event, "pairings", "csv", 9)).status_code == 404


def test_pairings_without_a_round_number_is_a_clear_400(tiny, outsider):
    for query in ("", "?round=", "?round=x", "?round=0"):
        url = export_url(tiny.event, "pairings", "csv") + query
        response = client_for(outsider).get(url)
        assert response.status_code == 400, query
        assert 'data-field="round"' in response.content.decode()
        assert "Say which round: add ?round=N (a round number) to the address." in (
            response.content.decode()
        )


def test_unknown_kind_or_format_is_404(tiny):
    client = client_for()
    base = f"/events/{tiny.event.pk}/export/"
    assert client.get(base + "players.csv").status_code == 404
    assert client.get(base + "standings.pdf").status_code == 404


def decklist_players(client, event) -> list[str]:
    response = client.get(export_url(event, "decklists", "json"))
    assert response.status_code == 200
    return [entry["player"] for entry in json.loads(response.content)]


def test_decklists_before_public_only_own_or_staff(tiny, organizer, judge, outsider):
    services.add_staff(tiny.event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    assert decklist_players(client_for(), tiny.event) == []
    assert decklist_players(client_for(outsider), tiny.event) == []
    assert decklist_players(client_for(tiny.players[1]), tiny.event) == ["+1"]
    assert decklist_players(client_for(judge), tiny.event) == HOSTILE_NAMES
    assert decklist_players(client_for(organizer), tiny.event) == HOSTILE_NAMES
    csv_text = client_for(outsider).get(export_url(tiny.event, "decklists", "csv")).content
    assert csv_text == f"\ufeff{DECKLIST_HEADER}\r\n".encode()


def test_decklists_once_public_for_everyone(tiny, organizer):
    services.update_event(
        tiny.event,
        actor=organizer,
        decklists_public_from=timezone.now() - dt.timedelta(minutes=1),
    )
    assert decklist_players(client_for(), tiny.event) == HOSTILE_NAMES


# --- large exports: a background job with progress ------------------------------------


@pytest.fixture
def small_limit(settings):
    settings.EXPORT_SYNC_LIMIT = 2
    return settings


def test_large_export_runs_as_job_and_downloads(
    tiny, outsider, small_limit, django_capture_on_commit_callbacks
):
    client = client_for(outsider)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.get(export_url(tiny.event, "standings", "csv"))
    assert len(callbacks) == 1
    job = ExportJob.objects.get()
    job_url = reverse("tournaments:export_job", args=[tiny.event.pk, job.pk])
    assert response.status_code == 302
    assert response["Location"] == job_url
    assert (job.status, job.done, job.total, job.percent) == ("done", 5, 5, 100)
    assert (job.kind, job.file_format, job.round_number) == ("standings", "csv", None)
    assert job.created_by == outsider
    assert job.filename == f"event-{tiny.event.pk}-standings.csv"
    assert job.finished_at is not None

    page = client.get(job_url).content.decode()
    assert f"Download event-{tiny.event.pk}-standings.csv" in page
    assert 'value="100"' in page
    assert "5 of 5 done" in page
    assert "hx-trigger" not in page  # a finished job is not polled

    download = reverse("tournaments:export_job_download", args=[tiny.event.pk, job.pk])
    assert download in page
    response = client.get(download)
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="event-{tiny.event.pk}-standings.csv"'
    )
    assert response.content == STANDINGS_CSV.encode("utf-8")


def test_large_pairings_and_decklists_jobs(
    tiny, organizer, small_limit, django_capture_on_commit_callbacks
):
    client = client_for(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        client.get(export_url(tiny.event, "pairings", "xlsx", 1))
        client.get(export_url(tiny.event, "decklists", "json"))
    pairings, decklists = ExportJob.objects.order_by("id")
    assert (pairings.status, pairings.round_number, pairings.total) == ("done", 1, 3)
    assert pairings.filename == f"event-{tiny.event.pk}-round-1-pairings.xlsx"
    sheet = read_xlsx(exports.job_file(pairings).content)
    assert sheet.rows[3] == [3.0, "'@SUM", "BYE", "2-0-0", "final"]
    assert (decklists.status, decklists.total, decklists.done) == ("done", 15, 15)
    data = json.loads(exports.job_file(decklists).content)
    assert [entry["player"] for entry in data] == HOSTILE_NAMES


def test_pending_job_page_polls_with_htmx(
    tiny, outsider, small_limit, django_capture_on_commit_callbacks
):
    client = client_for(outsider)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        client.get(export_url(tiny.event, "standings", "xlsx"))
        # Asked again while it waits: the same job, not a second one.
        client.get(export_url(tiny.event, "standings", "xlsx"))
    job = ExportJob.objects.get()
    assert (job.status, job.done, job.total) == ("pending", 0, 5)
    job_url = reverse("tournaments:export_job", args=[tiny.event.pk, job.pk])
    page = client.get(job_url).content.decode()
    assert f"Preparing event-{tiny.event.pk}-standings.xlsx" in page
    assert f'hx-get="{job_url}"' in page
    assert 'hx-trigger="every 1s"' in page
    assert "0 of 5 done" in page
    assert "Download" not in page
    download = reverse("tournaments:export_job_download", args=[tiny.event.pk, job.pk])
    assert client.get(download)["Location"] == job_url  # not ready: back to the progress

    callbacks[0]()  # the worker runs
    fragment = client.get(job_url, headers={"HX-Request": "true"}).content.decode()
    assert fragment.lstrip().startswith('<div id="job-status"')
    assert "<html" not in fragment
    assert "hx-trigger" not in fragment
    assert f"Download event-{tiny.event.pk}-standings.xlsx" in fragment
    assert read_xlsx(client.get(download).content).rows[1][3] == "山田 太郎"


def test_job_of_another_user_is_404(
    tiny, outsider, organizer, small_limit, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(outsider).get(export_url(tiny.event, "standings", "csv"))
    job = ExportJob.objects.get()
    urls = [
        reverse("tournaments:export_job", args=[tiny.event.pk, job.pk]),
        reverse("tournaments:export_job_download", args=[tiny.event.pk, job.pk]),
    ]
    for user in (organizer, tiny.players[0]):
        for url in urls:
            assert client_for(user).get(url).status_code == 404, (user, url)
    for url in urls:
        assert client_for().get(url).status_code == 302  # sign in first
    admin = get_user_model().objects.create_superuser("root", password="pw")
    assert client_for(admin).get(urls[1]).content == STANDINGS_CSV.encode()
    # The job under another event's address does not exist either.
    other = open_event(organizer, tiny.event.format, name="Other")
    url = reverse("tournaments:export_job", args=[other.pk, job.pk])
    assert client_for(outsider).get(url).status_code == 404


def test_large_export_needs_sign_in(tiny, small_limit):
    url = export_url(tiny.event, "standings", "csv")
    response = client_for().get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert "next=" in response["Location"]
    assert ExportJob.objects.count() == 0


def test_job_rebuilds_with_the_policy_in_the_worker(
    organizer, judge, crossover, small_limit, django_capture_on_commit_callbacks
):
    # A judge of a draft event asks; before the worker runs, the judge is removed.
    event = open_event(organizer, crossover, name="Draft later")
    staff = services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    register_all(event, [UserFactory(username=f"d{n}") for n in range(3)])
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        client_for(judge).get(export_url(event, "decklists", "csv"))
    job = ExportJob.objects.get()
    services.remove_staff(staff, actor=organizer)
    callbacks[0]()
    job.refresh_from_db()
    # Decklists are not public: the ex-judge now sees none of them.
    assert job.status == "done"
    assert bytes(job.content) == f"\ufeff{DECKLIST_HEADER}\r\n".encode()


def test_job_fails_when_the_event_is_no_longer_visible(
    organizer, judge, crossover, django_capture_on_commit_callbacks
):
    draft = new_event(organizer, crossover, name="Draft")
    staff = services.add_staff(draft, actor=organizer, user=judge, role=StaffRole.JUDGE)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        job = exports.start_export_job(judge, draft, kind="standings", file_format="csv")
    services.remove_staff(staff, actor=organizer)
    callbacks[0]()
    job.refresh_from_db()
    assert job.status == "failed"
    assert job.error.startswith("not visible")
    assert job.content is None
    # The requester cannot see the job any more either (the event is hidden from them).
    url = reverse("tournaments:export_job", args=[draft.pk, job.pk])
    assert client_for(judge).get(url).status_code == 404


def test_rerunning_a_finished_job_does_nothing(
    tiny, outsider, small_limit, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(outsider).get(export_url(tiny.event, "standings", "json"))
    job = ExportJob.objects.get()
    finished_at = job.finished_at
    assert exports.run_export_job(job.pk) is None
    job.refresh_from_db()
    assert (job.status, job.finished_at) == ("done", finished_at)


def test_failed_job_page_offers_a_retry(tiny, outsider):
    job = ExportJob.objects.create(
        event=tiny.event,
        kind="pairings",
        file_format="csv",
        round_number=1,
        created_by=outsider,
        filename="x.csv",
    )
    job.finish(ExportJob.Status.FAILED, error="internal error: boom")
    page = client_for(outsider).get(reverse("tournaments:export_job", args=[tiny.event.pk, job.pk]))
    text = page.content.decode()
    assert "The export failed; nothing was saved." in text
    assert f'href="{export_url(tiny.event, "pairings", "csv", 1)}"' in text
    assert "boom" not in text  # the internal reason is for the admin only


def test_job_headers_use_the_requesters_language(
    tiny, outsider, small_limit, django_capture_on_commit_callbacks
):
    client = client_for(outsider)
    with django_capture_on_commit_callbacks(execute=True):
        client.get(export_url(tiny.event, "standings", "csv"), headers={"Accept-Language": "ja"})
    job = ExportJob.objects.get()
    assert job.language == "ja"
    header = bytes(job.content).decode("utf-8-sig").split("\r\n")[0]
    assert ",プレイヤー,勝ち点,戦績," in header


def test_decklist_job_values_use_the_requesters_language(
    tiny, organizer, small_limit, django_capture_on_commit_callbacks
):
    client = client_for(organizer)
    with django_capture_on_commit_callbacks(execute=True):
        client.get(export_url(tiny.event, "decklists", "csv"), headers={"Accept-Language": "ja"})
    job = ExportJob.objects.get()
    assert (job.language, job.status) == ("ja", "done")
    lines = bytes(job.content).decode("utf-8-sig").split("\r\n")
    assert lines[0].startswith("プレイヤー,カード名（日本語）,カード名（英語）,")
    assert lines[-2] == "山田 太郎,スワティ,,base,100,42,メイン,はい"


# --- queries ---------------------------------------------------------------------------


def count_queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


@pytest.mark.parametrize(
    ("kind", "round_number"), [("standings", None), ("pairings", 1), ("decklists", None)]
)
def test_export_queries_do_not_grow(organizer, crossover, make_players, kind, round_number):
    small = build_tiny_event(organizer, crossover, name="Small", names=["a", "b", "c"]).event
    large = build_tiny_event(
        organizer, crossover, name="Large", names=[f"n{i}" for i in range(12)], prefix="q"
    ).event
    for user in (None, organizer):
        client = client_for(user)
        for fmt in ("csv", "json", "xlsx"):
            small_count = count_queries(client, export_url(small, kind, fmt, round_number))
            large_count = count_queries(client, export_url(large, kind, fmt, round_number))
            assert small_count == large_count, (kind, fmt, user)
            assert small_count <= 9, (kind, fmt, small_count)


# --- links ---------------------------------------------------------------------------


def test_dashboard_links_standings_latest_pairings_and_decklists(tiny, organizer):
    page = client_for(organizer).get(reverse("tournaments:dashboard", args=[tiny.event.pk]))
    text = page.content.decode()
    assert "Downloads" in text
    for label, kind, query in (
        ("Standings", "standings", ""),
        ("Round 1 pairings", "pairings", "?round=1"),
        ("Decklists", "decklists", ""),
    ):
        for fmt in ("csv", "json", "xlsx"):
            href = export_url(tiny.event, kind, fmt) + query
            assert f'href="{href}" aria-label="{label} as {fmt.upper()}"' in text, (label, fmt)


def test_standings_and_decklists_pages_link_their_exports(tiny, outsider):
    client = client_for(outsider)
    standings = client.get(reverse("tournaments:standings", args=[tiny.event.pk]))
    text = standings.content.decode()
    assert f'href="{export_url(tiny.event, "standings", "csv")}"' in text
    assert 'aria-label="Standings as XLSX"' in text
    assert "decklists.csv" not in text
    decklists = client.get(reverse("tournaments:decklists", args=[tiny.event.pk]))
    text = decklists.content.decode()
    assert f'href="{export_url(tiny.event, "decklists", "json")}"' in text
    assert 'aria-label="Decklists as CSV"' in text
    assert "standings.csv" not in text


def test_pairings_links_partial(tiny):
    html = render_to_string(
        "tournaments/exports/_links.html",
        {"event": tiny.event, "what": "pairings", "round": tiny.round},
    )
    href = export_url(tiny.event, "pairings", "xlsx", 1)
    assert f'href="{href}" aria-label="Round 1 pairings as XLSX"' in html
    assert "standings" not in html
    assert "decklists" not in html


# --- admin ---------------------------------------------------------------------------


def test_admin_lists_jobs_and_shows_progress(
    tiny, outsider, small_limit, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(outsider).get(export_url(tiny.event, "standings", "csv"))
    job = ExportJob.objects.get()
    admin = client_for(get_user_model().objects.create_superuser("root", password="pw"))
    changelist = admin.get(reverse("admin:tournaments_exportjob_changelist"))
    assert changelist.status_code == 200
    assert f"event-{tiny.event.pk}-standings.csv" in changelist.content.decode()
    progress = admin.get(reverse("admin:tournaments_exportjob_progress", args=[job.pk]))
    text = progress.content.decode()
    assert progress.status_code == 200
    assert "5 of 5 done" in text
    assert reverse("tournaments:export_job_download", args=[tiny.event.pk, job.pk]) in text
    assert admin.get(reverse("admin:tournaments_exportjob_add")).status_code == 403
    change = admin.get(reverse("admin:tournaments_exportjob_change", args=[job.pk]))
    assert change.status_code == 200
