"""The card importer: services.import_cards, the import_cards command and the demo pool."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from cardpool import services
from cardpool.demo import load_demo_pool
from cardpool.importing import FIELDS, ImportRejected
from cardpool.models import Card, CardSet, Game, Printing
from cardpool.names import name_key
from tests.factories import CardSetFactory, GameFactory

pytestmark = pytest.mark.django_db

CARD_COLUMNS = ("name", "card_type", "element", "cost", "gender", "ap", "dp", "unlimited", "notes")


# ---------------------------------------------------------------------------------------
# helpers


def csv_bytes(*records: dict, columns=FIELDS) -> bytes:
    """A CSV file with a header row; each record fills the columns it names."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow(record)
    return out.getvalue().encode("utf-8")


def jsonl_bytes(*records) -> bytes:
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    return ("\n".join(lines) + "\n").encode("utf-8")


def card_state(name: str) -> dict:
    card = Card.objects.get(name_key=name_key(name))
    return {column: getattr(card, column) for column in CARD_COLUMNS}


def printing_state() -> list[tuple]:
    return sorted(
        (p.card.name, p.set.code, p.number, p.rarity, p.text)
        for p in Printing.objects.select_related("card", "set")
    )


def counts() -> tuple[int, int]:
    return Card.objects.count(), Printing.objects.count()


def run_command(path, *args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with translation.override("en"):
        call_command("import_cards", str(path), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def rejected_errors(data: bytes, game: Game, filename: str) -> list[tuple[int, str]]:
    with pytest.raises(ImportRejected) as excinfo:
        services.import_cards(data, game=game, filename=filename)
    return [(error.row, error.field) for error in excinfo.value.errors]


# ---------------------------------------------------------------------------------------
# the good file, as CSV and as JSON Lines

GOOD_RECORDS = [
    {
        "name": "森原 さとみ",
        "set": "base",
        "card_type": "character",
        "number": "B-001",
        "rarity": "C",
        "cost": "火 火",
        "gender": "FEMALE",
        "ap": "４",
        "dp": "２",
        "text": "Text A",
        "element": "火",
        "notes": "Untaps by taking damage.",
    },
    {
        "name": "スワティ",
        "set": "ベーシック",
        "card_type": "Navigator",
        "number": "B-100",
        "rarity": "C",
        "text": "Navigator text.",
        "unlimited": "yes",
        "element": "空",
    },
    {
        "name": "スワティ",
        "set": "β版",
        "card_type": "NAVIGATOR",
        "number": "β-050",
        "unlimited": "TRUE",
        "element": "空",
        "notes": "Basic sky navigator.",
    },
    {
        "name": "ファイアボール",
        "set": "FIRST EXPANSION",
        "card_type": "ｓｐｅｌｌ",
        "number": "F-010",
        "rarity": "R",
        "cost": "火全",
        "text": "Deal 2 damage.",
    },
]

GOOD_JSONL_RECORDS = [
    {
        "name": "森原 さとみ",
        "set": "base",
        "card_type": "character",
        "number": "B-001",
        "rarity": "C",
        "cost": "火 火",
        "gender": "FEMALE",
        "ap": 4,
        "dp": "２",
        "text": "Text A",
        "element": "火",
        "notes": "Untaps by taking damage.",
    },
    {
        "name": "スワティ",
        "set": "ベーシック",
        "card_type": "Navigator",
        "number": "B-100",
        "rarity": "C",
        "text": "Navigator text.",
        "unlimited": True,
        "element": "空",
        "ap": None,
    },
    {
        "Name": "スワティ",
        "SET": "β版",
        "card_type": "NAVIGATOR",
        "number": "β-050",
        "unlimited": "TRUE",
        "element": "空",
        "notes": "Basic sky navigator.",
    },
    {
        "name": "ファイアボール",
        "set": "FIRST EXPANSION",
        "card_type": "ｓｐｅｌｌ",
        "number": "F-010",
        "rarity": "R",
        "cost": "火全",
        "text": "Deal 2 damage.",
    },
]

EXPECTED_CARDS = {
    "森原 さとみ": {
        "name": "森原 さとみ",
        "card_type": "CHARACTER",
        "element": "火",
        "cost": "火火",
        "gender": "Female",
        "ap": 4,
        "dp": 2,
        "unlimited": False,
        "notes": "Untaps by taking damage.",
    },
    "スワティ": {
        "name": "スワティ",
        "card_type": "NAVIGATOR",
        "element": "空",
        "cost": "",
        "gender": "",
        "ap": None,
        "dp": None,
        "unlimited": True,
        "notes": "Basic sky navigator.",
    },
    "ファイアボール": {
        "name": "ファイアボール",
        "card_type": "SPELL",
        "element": "",
        "cost": "火全",
        "gender": "",
        "ap": None,
        "dp": None,
        "unlimited": False,
        "notes": "",
    },
}

EXPECTED_PRINTINGS = [
    ("スワティ", "base", "B-100", "C", "Navigator text."),
    ("スワティ", "beta", "β-050", "", ""),
    ("ファイアボール", "first", "F-010", "R", "Deal 2 damage."),
    ("森原 さとみ", "base", "B-001", "C", "Text A"),
]


def assert_good_file_state():
    assert counts() == (3, 4)
    for name, expected in EXPECTED_CARDS.items():
        assert card_state(name) == expected
    assert printing_state() == EXPECTED_PRINTINGS


# ---------------------------------------------------------------------------------------
# success


def test_import_csv_creates_cards_and_printings(crossover_sets, game):
    summary = services.import_cards(csv_bytes(*GOOD_RECORDS), game=game, filename="cards.csv")
    assert summary.as_dict() == {
        "rows": 4,
        "cards_created": 3,
        "cards_updated": 0,
        "cards_unchanged": 0,
        "printings_created": 4,
        "printings_updated": 0,
        "printings_unchanged": 0,
        "errors": [],
        "notes": [],
    }
    assert_good_file_state()


def test_import_csv_sets_name_and_search_keys(crossover_sets, game):
    services.import_cards(csv_bytes(*GOOD_RECORDS), game=game, filename="cards.csv")
    assert sorted(Card.objects.values_list("name", "name_key", "search_key", "game")) == [
        ("スワティ", "スワティ", "スワティ", game.pk),
        ("ファイアボール", "ファイアボール", "ファイアボール", game.pk),
        ("森原 さとみ", "森原さとみ", "森原さとみ", game.pk),
    ]


def test_import_csv_command_creates_cards_and_printings(crossover_sets, tmp_path):
    path = tmp_path / "cards.csv"
    path.write_bytes(csv_bytes(*GOOD_RECORDS))
    out, err = run_command(path)
    assert out == (
        "cards.csv: 4 rows; cards: 3 new, 0 updated, 0 unchanged; "
        "printings: 4 new, 0 updated, 0 unchanged.\n"
    )
    assert err == ""
    assert_good_file_state()


def test_import_command_game_option(tmp_path):
    other = GameFactory(slug="other", name="Other game")
    CardSetFactory(game=other, code="base", name="Other base")
    path = tmp_path / "cards.csv"
    path.write_bytes(csv_bytes({"name": "火球", "set": "base", "card_type": "SPELL"}))
    out, _ = run_command(path, "--game", "other")
    assert out.startswith("cards.csv: 1 rows; cards: 1 new,")
    card = Card.objects.get()
    assert card.game == other
    assert card.printings.get().set.game == other


def test_import_jsonl_creates_same_state_as_csv(crossover_sets, game):
    summary = services.import_cards(
        jsonl_bytes(*GOOD_JSONL_RECORDS), game=game, filename="cards.jsonl"
    )
    assert (summary.rows, summary.cards_created, summary.printings_created) == (4, 3, 4)
    assert_good_file_state()


def test_import_jsonl_command_creates_same_state_as_csv(crossover_sets, tmp_path):
    path = tmp_path / "cards.jsonl"
    path.write_bytes(jsonl_bytes(*GOOD_JSONL_RECORDS))
    out, err = run_command(path)
    assert out == (
        "cards.jsonl: 4 rows; cards: 3 new, 0 updated, 0 unchanged; "
        "printings: 4 new, 0 updated, 0 unchanged.\n"
    )
    assert err == ""
    assert_good_file_state()


@pytest.mark.parametrize("filename", ["cards.ndjson", "cards.txt", "cards"])
def test_import_jsonl_recognised_by_name_or_content(crossover_sets, game, filename):
    services.import_cards(jsonl_bytes(*GOOD_JSONL_RECORDS), game=game, filename=filename)
    assert_good_file_state()


def test_import_csv_with_byte_order_mark(crossover_sets, game):
    data = b"\xef\xbb\xbf" + csv_bytes(*GOOD_RECORDS)
    services.import_cards(data, game=game, filename="cards.csv")
    assert_good_file_state()


def test_import_csv_header_case_spacing_and_order(crossover_sets, game):
    data = " Card_Type ,NAME, Set ,AP\nspell,火球,second,\ncharacter,山名 春恵,first,３\n".encode()
    summary = services.import_cards(data, game=game, filename="cards.csv")
    assert (summary.cards_created, summary.printings_created) == (2, 2)
    assert card_state("火球")["card_type"] == "SPELL"
    assert card_state("山名春恵") == {
        "name": "山名 春恵",
        "card_type": "CHARACTER",
        "element": "",
        "cost": "",
        "gender": "",
        "ap": 3,
        "dp": None,
        "unlimited": False,
        "notes": "",
    }
    assert printing_state() == [
        ("山名 春恵", "first", "", "", ""),
        ("火球", "second", "", "", ""),
    ]


def test_import_csv_crlf_line_endings(crossover_sets, game):
    data = "name,set,card_type,ap\r\n火球,base,SPELL,\r\n山名春恵,base,CHARACTER,2\r\n".encode()
    summary = services.import_cards(data, game=game, filename="cards.csv")
    assert summary.rows == 2
    assert card_state("山名春恵")["ap"] == 2


@pytest.mark.parametrize(
    ("ap", "expected"),
    [("0", 0), ("4", 4), ("４", 4), ("１２", 12), (" 7 ", 7), ("999", 999), ("００７", 7)],
)
def test_import_stat_accepts_whole_numbers(crossover_sets, game, ap, expected):
    data = csv_bytes({"name": "山名春恵", "set": "base", "card_type": "CHARACTER", "ap": ap})
    services.import_cards(data, game=game, filename="cards.csv")
    assert card_state("山名春恵")["ap"] == expected


@pytest.mark.parametrize(
    ("cost", "expected"),
    [("火火", "火火"), ("火 火", "火火"), ("全全全", "全全全"), ("水風地空全", "水風地空全")],
)
def test_import_cost_symbols_accepted(crossover_sets, game, cost, expected):
    data = csv_bytes({"name": "山名春恵", "set": "base", "card_type": "SPELL", "cost": cost})
    services.import_cards(data, game=game, filename="cards.csv")
    assert card_state("山名春恵")["cost"] == expected


@pytest.mark.parametrize(
    ("card_type", "expected"),
    [
        ("character", "CHARACTER"),
        ("Navigator", "NAVIGATOR"),
        ("SPELL", "SPELL"),
        ("eVeNt", "EVENT"),
        ("ＩＴＥＭ", "ITEM"),
    ],
)
def test_import_card_type_is_case_insensitive(crossover_sets, game, card_type, expected):
    data = csv_bytes({"name": "山名春恵", "set": "base", "card_type": card_type})
    services.import_cards(data, game=game, filename="cards.csv")
    assert card_state("山名春恵")["card_type"] == expected


@pytest.mark.parametrize(
    ("gender", "expected"),
    [("female", "Female"), ("MALE", "Male"), ("Other", "Other"), ("oTHER", "Other")],
)
def test_import_gender_is_case_insensitive(crossover_sets, game, gender, expected):
    data = csv_bytes(
        {"name": "山名春恵", "set": "base", "card_type": "CHARACTER", "gender": gender}
    )
    services.import_cards(data, game=game, filename="cards.csv")
    assert card_state("山名春恵")["gender"] == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("true", True),
        ("TRUE", True),
        ("yes", True),
        ("Y", True),
        ("1", True),
        ("ｔｒｕｅ", True),
        ("false", False),
        ("No", False),
        ("n", False),
        ("0", False),
    ],
)
def test_import_unlimited_values(crossover_sets, game, value, expected):
    data = csv_bytes(
        {"name": "スワティ", "set": "base", "card_type": "NAVIGATOR", "unlimited": value}
    )
    services.import_cards(data, game=game, filename="cards.csv")
    assert card_state("スワティ")["unlimited"] is expected


@pytest.mark.parametrize(
    ("label", "code"),
    [
        ("base", "base"),
        ("BASE", "base"),
        ("ｂａｓｅ", "base"),
        ("基本セット", "base"),
        ("ベーシック", "base"),
        ("beta", "beta"),
        ("βedition", "beta"),
        ("β版", "beta"),
        ("first expansion", "first"),
        ("FIRST EXPANSION", "first"),
        ("FIRSTEXPANSION", "first"),
        ("second", "second"),
    ],
)
def test_import_set_matched_by_code_name_or_alias(crossover_sets, game, label, code):
    data = csv_bytes({"name": "山名春恵", "set": label, "card_type": "CHARACTER"})
    services.import_cards(data, game=game, filename="cards.csv")
    assert Printing.objects.get().set == crossover_sets[code]


def test_import_number_is_width_folded(crossover_sets, game):
    data = csv_bytes(
        {"name": "山名春恵", "set": "base", "card_type": "SPELL", "number": "Ｂ－００１"}
    )
    services.import_cards(data, game=game, filename="cards.csv")
    assert Printing.objects.get().number == "B-001"


def test_import_matches_existing_card_by_name_key(crossover_sets, game):
    services.import_cards(
        csv_bytes({"name": "山名 春恵", "set": "base", "card_type": "CHARACTER", "ap": "3"}),
        game=game,
        filename="cards.csv",
    )
    summary = services.import_cards(
        csv_bytes({"name": "山名\u3000春恵", "set": "first", "card_type": "CHARACTER", "dp": "2"}),
        game=game,
        filename="cards.csv",
    )
    assert (summary.cards_created, summary.cards_updated, summary.printings_created) == (0, 1, 1)
    assert counts() == (1, 2)
    state = card_state("山名春恵")
    assert (state["name"], state["ap"], state["dp"]) == ("山名 春恵", 3, 2)


def test_import_two_spellings_in_one_file_are_one_card(crossover_sets, game):
    data = csv_bytes(
        {"name": "山名春恵", "set": "base", "card_type": "CHARACTER", "ap": "3"},
        {"name": "山名 春恵", "set": "first", "card_type": "character", "ap": "３"},
    )
    summary = services.import_cards(data, game=game, filename="cards.csv")
    assert (summary.cards_created, summary.printings_created) == (1, 2)
    assert Card.objects.get().name == "山名春恵"


def test_import_different_reading_spellings_are_two_cards(crossover_sets, game):
    data = csv_bytes(
        {"name": "鳴瀬真奈美", "set": "base", "card_type": "CHARACTER"},
        {"name": "ナルセマナミ", "set": "base", "card_type": "CHARACTER"},
    )
    services.import_cards(data, game=game, filename="cards.csv")
    assert sorted(Card.objects.values_list("name", flat=True)) == ["ナルセマナミ", "鳴瀬真奈美"]


def test_import_same_set_different_numbers_are_two_printings(crossover_sets, game):
    data = csv_bytes(
        {"name": "スワティ", "set": "base", "card_type": "NAVIGATOR", "number": "B-1"},
        {"name": "スワティ", "set": "base", "card_type": "NAVIGATOR", "number": "B-2"},
    )
    summary = services.import_cards(data, game=game, filename="cards.csv")
    assert (summary.cards_created, summary.printings_created) == (1, 2)


def test_import_multiline_quoted_text(crossover_sets, game):
    data = csv_bytes({"name": "火球", "set": "base", "card_type": "SPELL", "text": "one\ntwo"})
    assert data.count(b"\n") == 3
    services.import_cards(data, game=game, filename="cards.csv")
    assert Printing.objects.get().text == "one\ntwo"


def test_import_jsonl_text_with_line_separator_character(crossover_sets, game):
    # JSON allows U+2028 and U+0085 unescaped inside strings; they do not end a line.
    data = jsonl_bytes(
        {"name": "火球", "set": "base", "card_type": "SPELL", "text": "a\u2028b\x85c"}
    )
    services.import_cards(data, game=game, filename="cards.jsonl")
    assert Printing.objects.get().text == "a\u2028b\x85c"


def test_import_jsonl_crlf_line_endings(crossover_sets, game):
    data = (
        '{"name": "火球", "set": "base", "card_type": "SPELL"}\r\n'
        '{"name": "山名春恵", "set": "base", "card_type": "CHARACTER", "ap": 2}\r\n'
    ).encode()
    summary = services.import_cards(data, game=game, filename="cards.jsonl")
    assert summary.rows == 2
    assert card_state("山名春恵")["ap"] == 2


def test_import_blank_lines_are_skipped(crossover_sets, game):
    data = "name,set,card_type\n\n火球,base,SPELL\n , , \n".encode()
    summary = services.import_cards(data, game=game, filename="cards.csv")
    assert summary.rows == 1
    assert counts() == (1, 1)


def test_import_header_only_creates_nothing(crossover_sets, game):
    summary = services.import_cards(b"name,set,card_type\n", game=game, filename="cards.csv")
    assert (summary.rows, summary.cards_created, summary.printings_created) == (0, 0, 0)
    assert counts() == (0, 0)


def test_import_required_name_only_allows_cards_without_set(crossover_sets, game):
    data = csv_bytes({"name": "森原 さとみ", "ap": "4"}, columns=("name", "set", "ap"))
    summary = services.import_cards(data, game=game, filename="cards.csv", required=("name",))
    assert (summary.cards_created, summary.printings_created) == (1, 0)
    assert card_state("森原さとみ")["ap"] == 4


def test_import_progress_is_reported(crossover_sets, game):
    calls = []
    services.import_cards(
        csv_bytes(*GOOD_RECORDS),
        game=game,
        filename="cards.csv",
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls == [(0, 4), (4, 4)]


# ---------------------------------------------------------------------------------------
# re-import


def test_reimport_same_file_is_idempotent(crossover_sets, game):
    data = csv_bytes(*GOOD_RECORDS)
    services.import_cards(data, game=game, filename="cards.csv")
    ids = sorted(Card.objects.values_list("pk", flat=True))
    summary = services.import_cards(data, game=game, filename="cards.csv")
    assert summary.as_dict() == {
        "rows": 4,
        "cards_created": 0,
        "cards_updated": 0,
        "cards_unchanged": 3,
        "printings_created": 0,
        "printings_updated": 0,
        "printings_unchanged": 4,
        "errors": [],
        "notes": [],
    }
    assert sorted(Card.objects.values_list("pk", flat=True)) == ids
    assert_good_file_state()


def test_reimport_same_file_command_is_idempotent(crossover_sets, tmp_path):
    path = tmp_path / "cards.csv"
    path.write_bytes(csv_bytes(*GOOD_RECORDS))
    run_command(path)
    out, err = run_command(path)
    assert out == (
        "cards.csv: 4 rows; cards: 0 new, 0 updated, 3 unchanged; "
        "printings: 0 new, 0 updated, 4 unchanged.\n"
    )
    assert err == ""
    assert_good_file_state()


def test_reimport_csv_after_jsonl_is_idempotent(crossover_sets, game):
    services.import_cards(jsonl_bytes(*GOOD_JSONL_RECORDS), game=game, filename="cards.jsonl")
    summary = services.import_cards(csv_bytes(*GOOD_RECORDS), game=game, filename="cards.csv")
    assert (summary.cards_unchanged, summary.printings_unchanged) == (3, 4)
    assert summary.cards_created + summary.cards_updated == 0
    assert summary.printings_created + summary.printings_updated == 0
    assert_good_file_state()


def test_reimport_changed_card_value_updates_only_that_value(crossover_sets, game):
    services.import_cards(csv_bytes(*GOOD_RECORDS), game=game, filename="cards.csv")
    changed = [dict(record) for record in GOOD_RECORDS]
    changed[0]["ap"] = "5"
    summary = services.import_cards(csv_bytes(*changed), game=game, filename="cards.csv")
    assert (summary.cards_created, summary.cards_updated, summary.cards_unchanged) == (0, 1, 2)
    assert (summary.printings_created, summary.printings_updated) == (0, 0)
    assert summary.printings_unchanged == 4
    assert card_state("森原 さとみ") == {**EXPECTED_CARDS["森原 さとみ"], "ap": 5}
    assert card_state("スワティ") == EXPECTED_CARDS["スワティ"]
    assert card_state("ファイアボール") == EXPECTED_CARDS["ファイアボール"]
    assert printing_state() == EXPECTED_PRINTINGS


def test_reimport_changed_printing_text_updates_only_that_printing(crossover_sets, game):
    services.import_cards(csv_bytes(*GOOD_RECORDS), game=game, filename="cards.csv")
    changed = [dict(record) for record in GOOD_RECORDS]
    changed[1]["text"] = "New navigator text."
    summary = services.import_cards(csv_bytes(*changed), game=game, filename="cards.csv")
    assert (summary.cards_created, summary.cards_updated, summary.cards_unchanged) == (0, 0, 3)
    assert (summary.printings_created, summary.printings_updated) == (0, 1)
    assert summary.printings_unchanged == 3
    for name, expected in EXPECTED_CARDS.items():
        assert card_state(name) == expected
    assert printing_state() == [
        ("スワティ", "base", "B-100", "C", "New navigator text."),
        *EXPECTED_PRINTINGS[1:],
    ]


def test_reimport_changed_value_command_reports_update(crossover_sets, tmp_path):
    path = tmp_path / "cards.csv"
    path.write_bytes(csv_bytes(*GOOD_RECORDS))
    run_command(path)
    changed = [dict(record) for record in GOOD_RECORDS]
    changed[3]["cost"] = "火火全"
    path.write_bytes(csv_bytes(*changed))
    out, _ = run_command(path)
    assert out == (
        "cards.csv: 4 rows; cards: 0 new, 1 updated, 2 unchanged; "
        "printings: 0 new, 0 updated, 4 unchanged.\n"
    )
    assert card_state("ファイアボール") == {**EXPECTED_CARDS["ファイアボール"], "cost": "火火全"}


def test_reimport_empty_cells_do_not_erase(crossover_sets, game):
    services.import_cards(csv_bytes(*GOOD_RECORDS), game=game, filename="cards.csv")
    blank = [
        {"name": r["name"], "set": r["set"], "card_type": r["card_type"], "number": r["number"]}
        for r in GOOD_RECORDS
    ]
    summary = services.import_cards(csv_bytes(*blank), game=game, filename="cards.csv")
    assert (summary.cards_updated, summary.cards_unchanged) == (0, 3)
    assert (summary.printings_updated, summary.printings_unchanged) == (0, 4)
    assert_good_file_state()


def test_reimport_missing_columns_do_not_erase(crossover_sets, game):
    services.import_cards(csv_bytes(*GOOD_RECORDS), game=game, filename="cards.csv")
    data = csv_bytes(
        {"name": "森原さとみ", "set": "基本セット", "card_type": "CHARACTER", "number": "B-001"},
        columns=("name", "set", "card_type", "number"),
    )
    summary = services.import_cards(data, game=game, filename="cards.csv")
    assert (summary.cards_unchanged, summary.printings_unchanged) == (1, 1)
    assert_good_file_state()


def test_reimport_jsonl_null_and_absent_keys_do_not_erase(crossover_sets, game):
    services.import_cards(csv_bytes(*GOOD_RECORDS), game=game, filename="cards.csv")
    data = jsonl_bytes(
        {
            "name": "森原 さとみ",
            "set": "base",
            "card_type": "CHARACTER",
            "number": "B-001",
            "ap": None,
            "text": None,
            "notes": "",
        }
    )
    summary = services.import_cards(data, game=game, filename="cards.jsonl")
    assert (summary.cards_unchanged, summary.printings_unchanged) == (1, 1)
    assert_good_file_state()


def test_reimport_card_without_set_keeps_printings(crossover_sets, game):
    services.import_cards(csv_bytes(*GOOD_RECORDS), game=game, filename="cards.csv")
    data = csv_bytes({"name": "スワティ", "dp": "1"}, columns=("name", "dp"))
    summary = services.import_cards(data, game=game, filename="cards.csv", required=("name",))
    assert (summary.cards_updated, summary.printings_created) == (1, 0)
    assert card_state("スワティ") == {**EXPECTED_CARDS["スワティ"], "dp": 1}
    assert printing_state() == EXPECTED_PRINTINGS


# ---------------------------------------------------------------------------------------
# rejected files: every error, and nothing written

SEED = csv_bytes(
    {
        "name": "森原 さとみ",
        "set": "base",
        "card_type": "CHARACTER",
        "number": "B-001",
        "ap": "1",
        "text": "Old text",
    }
)
# A good row that would change the seeded card and add a printing and a card.
GOOD = {
    "name": "森原 さとみ",
    "set": "base",
    "card_type": "CHARACTER",
    "number": "B-001",
    "ap": "4",
    "dp": "2",
    "text": "Text A",
}
GOOD2 = {"name": "スワティ", "set": "beta", "card_type": "NAVIGATOR", "unlimited": "yes"}
GOOD_JSON = json.dumps({**GOOD, "ap": 4}, ensure_ascii=False)


def bad(**values) -> dict:
    return {"name": "ファイアボール", "set": "first", "card_type": "SPELL", **values}


ERROR_CASES = [
    pytest.param(
        "cards.csv", csv_bytes(GOOD, bad(card_type="MONSTER")), [(3, "card_type")], id="card_type"
    ),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(ap="abc")), [(3, "ap")], id="ap-abc"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(dp="-1")), [(3, "dp")], id="dp-negative"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(ap="3.5")), [(3, "ap")], id="ap-fraction"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(ap="－１")), [(3, "ap")], id="ap-fw-minus"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(dp="1000")), [(3, "dp")], id="dp-too-big"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(ap="٣")), [(3, "ap")], id="ap-arabic-digit"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(name="")), [(3, "name")], id="empty-name"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(name="\u3000")), [(3, "name")], id="blank-name"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(set="")), [(3, "set")], id="empty-set"),
    pytest.param(
        "cards.csv", csv_bytes(GOOD, bad(card_type="")), [(3, "card_type")], id="empty-type"
    ),
    pytest.param(
        "cards.csv",
        csv_bytes(GOOD, bad(name="", set="", card_type="", text="orphan")),
        [(3, "card_type"), (3, "name"), (3, "set")],
        id="empty-all-required",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes(
            {"name": "火球", "set": "base", "number": "1"}, columns=("name", "set", "number")
        ),
        [(1, "card_type")],
        id="missing-column",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes({"name": "火球"}, columns=("name", "text")),
        [(1, "card_type"), (1, "set")],
        id="missing-columns",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes({**GOOD, "colour": "red"}, columns=(*FIELDS, "colour")),
        [(1, "colour")],
        id="unknown-column",
    ),
    pytest.param(
        "cards.csv",
        "name,set,card_type,name\n火球,base,SPELL,火球\n".encode(),
        [(1, "name")],
        id="duplicate-column",
    ),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(set="fifth")), [(3, "set")], id="unknown-set"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(cost="火X")), [(3, "cost")], id="cost-latin"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(cost="赤")), [(3, "cost")], id="cost-kanji"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(cost="全" * 21)), [(3, "cost")], id="cost-long"),
    pytest.param(
        "cards.csv", csv_bytes(GOOD, bad(unlimited="maybe")), [(3, "unlimited")], id="unlimited"
    ),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(gender="robot")), [(3, "gender")], id="gender"),
    pytest.param("cards.csv", csv_bytes(GOOD, bad(element="炎")), [(3, "element")], id="element"),
    pytest.param(
        "cards.csv", csv_bytes(GOOD, bad(name="あ" * 201)), [(3, "name")], id="name-too-long"
    ),
    pytest.param(
        "cards.csv", csv_bytes(GOOD, bad(number="1" * 21)), [(3, "number")], id="number-too-long"
    ),
    pytest.param(
        "cards.csv",
        "name,set,card_type\n火球,base,SPELL\n山名春恵,base,CHARACTER,extra\n".encode(),
        [(3, "")],
        id="too-many-cells",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes(GOOD) + "ファイアボール,first,SPELL".encode() + b"\xff\n",
        [(3, "")],
        id="invalid-utf8",
    ),
    pytest.param(
        "cards.csv",
        b"\xef\xbb\xbf" + csv_bytes(GOOD) + b"\xff,first,SPELL\n",
        [(3, "")],
        id="invalid-utf8-after-bom",
    ),
    pytest.param("cards.csv", b"", [(1, "")], id="empty-file"),
    pytest.param(
        "cards.csv",
        csv_bytes(GOOD, GOOD2, GOOD),
        [(4, "")],
        id="same-printing-twice",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes(
            GOOD, {**GOOD, "name": "森原\u3000さとみ", "set": "ベーシック", "number": "Ｂ-００１"}
        ),
        [(3, "")],
        id="same-printing-other-spelling",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes(GOOD, {**GOOD, "set": "first", "ap": "5"}),
        [(3, "ap")],
        id="contradiction",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes(
            GOOD,
            GOOD2,
            {**GOOD2, "set": "base", "unlimited": "no"},
            {**GOOD, "name": "森原さとみ", "set": "second", "card_type": "EVENT", "ap": "４"},
        ),
        [(4, "unlimited"), (5, "card_type")],
        id="contradictions",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes(GOOD, bad(ap="x"), GOOD2, bad(set="fifth", cost="青", number="2")),
        [(3, "ap"), (5, "cost"), (5, "set")],
        id="several-rows",
    ),
    pytest.param(
        "cards.csv",
        "name,set,card_type\n\n火球,base,SPELL\n\n山名春恵,base,MONSTER\n".encode(),
        [(5, "card_type")],
        id="after-blank-lines",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes({**GOOD, "text": "one\ntwo\nthree"}, bad(ap="x")),
        [(5, "ap")],
        id="after-multiline-cell",
    ),
    pytest.param(
        "cards.csv",
        csv_bytes(GOOD, bad(ap="x", text="one\ntwo")),
        [(3, "ap")],
        id="multiline-cell-row",
    ),
    pytest.param(
        "cards.jsonl",
        jsonl_bytes(GOOD_JSON, '{"name": "火球", "set": "base",'),
        [(2, "")],
        id="jsonl-invalid-json",
    ),
    pytest.param("cards.jsonl", jsonl_bytes(GOOD_JSON, "[1, 2]"), [(2, "")], id="jsonl-not-object"),
    pytest.param(
        "cards.jsonl",
        jsonl_bytes(GOOD_JSON, {**bad(), "colour": "red"}),
        [(2, "colour")],
        id="jsonl-unknown-key",
    ),
    pytest.param(
        "cards.jsonl", jsonl_bytes(GOOD_JSON, bad(ap=3.5)), [(2, "ap")], id="jsonl-ap-float"
    ),
    pytest.param(
        "cards.jsonl", jsonl_bytes(GOOD_JSON, bad(ap=-1)), [(2, "ap")], id="jsonl-ap-negative"
    ),
    pytest.param(
        "cards.jsonl", jsonl_bytes(GOOD_JSON, bad(dp="abc")), [(2, "dp")], id="jsonl-dp-text"
    ),
    pytest.param(
        "cards.jsonl",
        jsonl_bytes(GOOD_JSON, {"set": "base", "card_type": "SPELL"}),
        [(2, "name")],
        id="jsonl-missing-name",
    ),
    pytest.param(
        "cards.jsonl",
        jsonl_bytes(GOOD_JSON, bad(text=["a"])),
        [(2, "text")],
        id="jsonl-list-value",
    ),
    pytest.param(
        "cards.jsonl",
        jsonl_bytes(GOOD_JSON, "", bad(card_type="MONSTER")),
        [(3, "card_type")],
        id="jsonl-after-blank-line",
    ),
    pytest.param(
        "cards.jsonl",
        jsonl_bytes({**GOOD, "text": "a\u2028b"}, "{bad"),
        [(2, "")],
        id="jsonl-after-line-separator-char",
    ),
    pytest.param(
        "cards.jsonl",
        jsonl_bytes(GOOD_JSON, GOOD2, GOOD_JSON),
        [(3, "")],
        id="jsonl-same-printing-twice",
    ),
    pytest.param(
        "cards.jsonl",
        jsonl_bytes(GOOD_JSON, {**GOOD, "set": "first", "dp": 3}),
        [(2, "dp")],
        id="jsonl-contradiction",
    ),
    pytest.param(
        "cards.jsonl",
        jsonl_bytes(GOOD_JSON) + b'{"name": "\xff"}\n',
        [(2, "")],
        id="jsonl-invalid-utf8",
    ),
]


@pytest.fixture
def seeded(crossover_sets, game):
    """The pool before each rejected import: one card with one printing."""
    services.import_cards(SEED, game=game, filename="seed.csv")
    before = (counts(), card_state("森原 さとみ"), printing_state())
    assert before[0] == (1, 1)
    return before


def assert_nothing_written(before):
    assert counts() == before[0]
    assert card_state("森原 さとみ") == before[1]
    assert card_state("森原 さとみ")["ap"] == 1
    assert printing_state() == before[2]
    assert printing_state() == [("森原 さとみ", "base", "B-001", "", "Old text")]


@pytest.mark.parametrize(("filename", "data", "expected"), ERROR_CASES)
def test_import_rejected_reports_row_and_field(seeded, game, filename, data, expected):
    assert rejected_errors(data, game, filename) == expected
    assert_nothing_written(seeded)


@pytest.mark.parametrize(("filename", "data", "expected"), ERROR_CASES)
def test_import_command_rejected_lists_every_bad_row(seeded, tmp_path, filename, data, expected):
    path = tmp_path / filename
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with translation.override("en"), pytest.raises(CommandError) as excinfo:
        call_command("import_cards", str(path), stdout=out, stderr=err)
    assert excinfo.value.returncode == 1
    assert str(excinfo.value) == (f"{filename}: {len(expected)} problem(s); nothing was imported.")
    assert out.getvalue() == ""
    lines = err.getvalue().splitlines()
    assert len(lines) == len(expected)
    for line, (row, field) in zip(lines, expected, strict=True):
        prefix = f"{filename}: row {row}, field {field}: " if field else f"{filename}: row {row}: "
        assert line.startswith(prefix), line
    assert_nothing_written(seeded)


def test_import_rejected_error_messages(seeded, game):
    data = csv_bytes(
        GOOD, bad(ap="abc"), bad(number="2", set="fifth"), {**GOOD, "set": "first", "ap": "5"}
    )
    with translation.override("en"), pytest.raises(ImportRejected) as excinfo:
        services.import_cards(data, game=game, filename="cards.csv")
    assert [str(error) for error in excinfo.value.errors] == [
        "row 3, field ap: 'abc' is not a whole number of 0 or more.",
        "row 4, field set: unknown set 'fifth'; add it in the admin first or use a known set code.",
        "row 5, field ap: 5 contradicts 4 given for this card in row 2.",
    ]
    assert excinfo.value.errors[0].as_dict() == {
        "row": 3,
        "field": "ap",
        "reason": "'abc' is not a whole number of 0 or more.",
    }
    assert_nothing_written(seeded)


def test_import_rejected_duplicate_printing_message(seeded, game):
    data = csv_bytes(GOOD, GOOD2, GOOD)
    with translation.override("en"), pytest.raises(ImportRejected) as excinfo:
        services.import_cards(data, game=game, filename="cards.csv")
    assert [str(error) for error in excinfo.value.errors] == [
        "row 4: the same card, set and number as row 2."
    ]
    assert_nothing_written(seeded)


def test_import_rejected_invalid_utf8_message(seeded, game):
    data = b"name,set,card_type\n\xef\xbb\n"
    with translation.override("en"), pytest.raises(ImportRejected) as excinfo:
        services.import_cards(data, game=game, filename="cards.csv")
    assert [str(error) for error in excinfo.value.errors] == [
        "row 2: the file is not UTF-8 text (byte 19)."
    ]
    assert_nothing_written(seeded)


def test_import_rejected_set_of_other_game(seeded, game):
    other = GameFactory(slug="other", name="Other")
    CardSetFactory(game=other, code="promo", name="Promo")
    data = csv_bytes(GOOD, bad(set="promo"))
    assert rejected_errors(data, game, "cards.csv") == [(3, "set")]
    assert_nothing_written(seeded)


def test_import_rejected_first_import_writes_nothing(crossover_sets, game):
    data = csv_bytes(*GOOD_RECORDS, bad(ap="abc"))
    assert rejected_errors(data, game, "cards.csv") == [(6, "ap")]
    assert counts() == (0, 0)


def test_import_rejected_progress_still_reported(seeded, game):
    calls = []
    with pytest.raises(ImportRejected):
        services.import_cards(
            csv_bytes(GOOD, bad(ap="x")),
            game=game,
            filename="cards.csv",
            progress=lambda done, total: calls.append((done, total)),
        )
    assert calls == [(0, 2), (2, 2)]
    assert_nothing_written(seeded)


def test_import_command_missing_file(crossover_sets, tmp_path):
    path = tmp_path / "missing.csv"
    with pytest.raises(CommandError) as excinfo:
        run_command(path)
    assert excinfo.value.returncode == 1
    assert str(excinfo.value).startswith(f"{path}: cannot read the file: ")
    assert counts() == (0, 0)


def test_import_command_unknown_game(crossover_sets, tmp_path):
    path = tmp_path / "cards.csv"
    path.write_bytes(csv_bytes(*GOOD_RECORDS))
    with pytest.raises(CommandError) as excinfo:
        run_command(path, "--game", "nope")
    assert excinfo.value.returncode == 1
    assert str(excinfo.value) == "unknown game 'nope'; known games: crossover"
    assert counts() == (0, 0)


# ---------------------------------------------------------------------------------------
# the demo pool


def test_load_demo_pool_creates_cards_and_sets():
    summary = load_demo_pool()
    assert summary.as_dict() == {
        "rows": 86,
        "cards_created": 82,
        "cards_updated": 0,
        "cards_unchanged": 0,
        "printings_created": 31,
        "printings_updated": 0,
        "printings_unchanged": 0,
        "errors": [],
        "notes": [],
    }
    crossover = Game.objects.get(slug="crossover")
    assert sorted(Game.objects.values_list("slug", flat=True)) == [
        "asura-system",
        "cross-universe",
        "crossover",
        "monster-collection",
    ]
    assert Card.objects.filter(game=crossover).count() == 82
    assert Card.objects.count() == 82
    assert CardSet.objects.filter(game=crossover).count() == 8
    assert Printing.objects.count() == 31


def test_load_demo_pool_swati():
    load_demo_pool()
    swati = Card.objects.get(name_key="スワティ")
    assert swati.name == "スワティ"
    assert swati.unlimited is True
    assert swati.card_type == "NAVIGATOR"
    assert swati.element == "空"
    assert sorted(swati.printings.values_list("set__code", flat=True)) == ["base", "fairytale"]
    # The Fairy Tale deck has no known release order, so the 基本セット printing is newest.
    assert swati.newest_printing().set.code == "base"


def test_load_demo_pool_morihara_satomi():
    load_demo_pool()
    card = Card.objects.get(name_key=name_key("森原 さとみ"))
    assert card.name == "森原 さとみ"
    assert card.cost == "火火"
    assert card.cost_total == 2
    assert card.ap == 4
    assert card.dp == 2
    assert card.card_type == "CHARACTER"
    assert card.element == "火"
    assert card.gender == "Female"
    assert card.printings.count() == 0
    assert card.current_text == ""


def test_load_demo_pool_sets():
    load_demo_pool()
    sets = list(
        CardSet.objects.filter(game__slug="crossover")
        .order_by("code")
        .values_list("code", "release_order", "is_beta")
    )
    assert sets == [
        ("base", 2, False),
        ("beta", 1, True),
        ("fairytale", None, False),
        ("first", 4, False),
        ("promo", None, False),
        ("second", 5, False),
        ("setup", 3, False),
        ("third", 6, False),
    ]


def test_load_demo_pool_twice_creates_nothing_new():
    load_demo_pool()
    cards = sorted(Card.objects.values_list("pk", "name_key"))
    printings = sorted(Printing.objects.values_list("pk", "card_id", "set_id", "number", "text"))
    summary = load_demo_pool()
    assert summary.as_dict() == {
        "rows": 86,
        "cards_created": 0,
        "cards_updated": 0,
        "cards_unchanged": 82,
        "printings_created": 0,
        "printings_updated": 0,
        "printings_unchanged": 31,
        "errors": [],
        "notes": [],
    }
    assert Game.objects.count() == 4
    assert CardSet.objects.count() == 8
    assert sorted(Card.objects.values_list("pk", "name_key")) == cards
    assert (
        sorted(Printing.objects.values_list("pk", "card_id", "set_id", "number", "text"))
        == printings
    )


def test_import_measures_name_length_after_folding(crossover_sets, game):
    # ㍿ folds to 株式会社 under NFKC: 60 of them fit the 200-character name column as
    # printed, but not as the stored name key.
    data = ("name,set,card_type\n" + "㍿" * 60 + ",base,EVENT\n").encode()
    with pytest.raises(ImportRejected) as rejected:
        services.import_cards(data, game=game, filename="long.csv")
    assert [(e.row, e.field) for e in rejected.value.errors] == [(2, "name")]
    assert Card.objects.count() == 0


def test_import_stores_full_width_card_numbers_folded(crossover_sets, game):
    data = "name,set,card_type,number\nスワティ,base,NAVIGATOR,Ｂ－０１\n".encode()
    services.import_cards(data, game=game, filename="n.csv")
    assert Printing.objects.get().number == "B-01"


def test_import_reads_the_printed_deck_size_range(game):
    CardSetFactory(game=game, code="asura1")
    data = "name,set,card_type,deck_size_min,deck_size_max\n修羅,asura1,CHARACTER,45,50\n"
    services.import_cards(data.encode(), game=game, filename="asura.csv")
    card = Card.objects.get()
    assert (card.deck_size_min, card.deck_size_max) == (45, 50)


def test_import_rejects_an_inverted_deck_size_range(game):
    CardSetFactory(game=game, code="asura1")
    data = "name,set,card_type,deck_size_min,deck_size_max\n修羅,asura1,CHARACTER,50,45\n"
    with pytest.raises(ImportRejected) as rejected:
        services.import_cards(data.encode(), game=game, filename="asura.csv")
    assert [(e.row, e.field) for e in rejected.value.errors] == [(2, "deck_size_max")]
    assert Card.objects.count() == 0
