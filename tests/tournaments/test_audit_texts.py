"""The audit log as people read it (tournaments.audit_texts): a sentence per entry in the
reader's language, the changed fields only, labels and values for people, and an entry
for every action the services can write."""

import ast
from pathlib import Path

import pytest
from django.test import override_settings
from django.utils import translation

from tournaments import audit_texts
from tournaments.audit_texts import ACTIONS, entry_texts
from tournaments.models import AuditEntry, Event

SERVICES = Path(audit_texts.__file__).parent / "services"


def entry(action, object_type="event", before=None, after=None, **names):
    item = AuditEntry(
        action=action, object_type=object_type, object_id=7, before=before, after=after
    )
    for name, value in names.items():
        setattr(item, name, value)
    return item


EVENT = Event(name="Spring Open")


def texts(item, language="en"):
    with translation.override(language):
        return entry_texts(item, EVENT)


def written_actions() -> set[str]:
    """Every "prefix.name" string constant in the services (the actions they record),
    and the ``action=`` of every ``audit.record(...)`` call elsewhere in the app (the
    event-file import's ``event.imported``)."""
    found = set()
    for path in SERVICES.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                head, dot, tail = node.value.partition(".")
                if dot and head.isidentifier() and tail.isidentifier() and head.islower():
                    found.add(node.value)
    for path in SERVICES.parent.rglob("*.py"):
        if SERVICES in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "record"
            ):
                for keyword in node.keywords:
                    if keyword.arg == "action" and isinstance(keyword.value, ast.Constant):
                        found.add(keyword.value.value)
    return found


def test_every_action_the_services_write_has_a_label_and_a_sentence():
    written = written_actions()
    assert "round.published" in written
    assert "penalty.issued" in written
    assert written - set(ACTIONS) == set()
    # and no label for an action nothing writes any more
    assert set(ACTIONS) - written == set()
    for action in written:
        for language in ("en", "ja"):
            with translation.override(language):
                assert audit_texts.action_label(action) != action
                sentence = texts(
                    entry(
                        action,
                        person_name="alice",
                        round_number=2,
                        match_table=4,
                        penalty_kind="warning",
                    ),
                    language,
                )["sentence"]
                assert action not in sentence
                assert "%(" not in sentence


@pytest.mark.parametrize(
    ("item", "english", "japanese"),
    [
        (
            entry("round.published", "round", round_number=2),
            "Round 2 published",
            "第2ラウンドを公開",
        ),
        (
            entry("match.overridden", "match", round_number=2, match_table=4),
            "Result of table 4 in round 2 changed by the staff",
            "第2ラウンド 4番テーブルの結果をスタッフが変更",
        ),
        (
            entry("registration.decklist_submitted", "registration", person_name="alice"),
            "Decklist of alice submitted",
            "aliceのデッキリストを提出",
        ),
        (
            entry("penalty.issued", "penalty", person_name="bob", penalty_kind="game_loss"),
            "Game loss for bob",
            "bobへのゲームロス",
        ),
        (
            entry("staff.added", "eventstaff", person_name="judy"),
            "judy added to the staff",
            "judyをスタッフに追加",
        ),
        (
            entry("event.top_cut_generated", after={"round": 6}),
            "Top cut generated (round 6)",
            "決勝トーナメントを作成（第6ラウンド）",
        ),
    ],
)
def test_sentences_in_english_and_japanese(item, english, japanese):
    assert texts(item)["sentence"] == english
    assert texts(item, "ja")["sentence"] == japanese


def test_the_diff_shows_only_changed_fields_with_labels_and_human_values():
    item = entry(
        "event.updated",
        before={"capacity": 16, "allow_reentry": False, "name": "Spring Open", "state": "draft"},
        after={"capacity": 24, "allow_reentry": True, "name": "Spring Open", "state": "running"},
    )
    assert texts(item)["changes"] == [
        ("Capacity", "16", "24"),
        ("Dropped players may re-enter", "No", "Yes"),
        ("State", "Draft", "Swiss rounds"),
    ]
    assert texts(item, "ja")["changes"] == [
        ("定員", "16", "24"),
        ("ドロップしたプレイヤーの再参加を認める", "いいえ", "はい"),
        ("状態", "下書き", "スイスラウンド"),
    ]


def test_games_statuses_and_records_read_as_words():
    games = [
        {"end": "hp_zero", "hp": [12, 0]},
        {"end": "time", "hp": [10, 10]},
        {"end": "penalty", "hp": [0, 0], "penalized": [2]},
    ]
    item = entry(
        "match.reported",
        "match",
        before={"status": "pending", "games": [], "record": "", "version": 1},
        after={"status": "reported", "games": games, "record": "2-0-1", "version": 2},
        round_number=1,
        match_table=3,
    )
    changes = texts(item)["changes"]
    assert changes == [
        (
            "Games",
            "—",
            "Game 1: A player's HP reached 0 (HP 12–0); Game 2: Time ran out (HP 10–10); "
            "Game 3: Game loss (penalty)",
        ),
        ("Status", "Waiting for a result", "Reported, waiting for the opponent"),
        ("Games won–lost–drawn", "—", "2–0–1"),
    ]
    ja = {label: after for label, _before, after in texts(item, "ja")["changes"]}
    assert "hp_zero" not in " ".join(ja.values())
    assert ja["ゲーム"].startswith("第1ゲーム: プレイヤーのHPが0になった (HP 12–0)")


@override_settings(TIME_ZONE="Asia/Tokyo")
def test_times_are_shown_in_the_sites_time_zone():
    item = entry(
        "round.published",
        "round",
        before={"status": "draft"},
        after={"status": "published", "published_at": "2026-05-01T03:04:05.123Z"},
        round_number=1,
    )
    assert texts(item)["changes"] == [
        ("Status", "Not published", "Published"),
        ("Published", None, "2026-05-01 12:04"),
    ]


def test_a_creation_shows_the_values_set_and_skips_empty_ones():
    item = entry(
        "penalty.issued",
        "penalty",
        after={
            "registration": 3,
            "kind": "warning",
            "infraction": "Slow play",
            "note": "",
            "match": None,
        },
        person_name="bob",
        person_id=3,
        penalty_kind="warning",
    )
    assert texts(item)["changes"] == [
        ("Player", None, "bob"),
        ("Penalty", None, "Warning"),
        ("Infraction", None, "Slow play"),
    ]


def test_pairings_show_the_changed_tables_and_many_as_a_count():
    item = entry(
        "round.pairing_edited",
        "round",
        before={"tables": {"1": [11, 12], "2": [13, 14]}},
        after={"tables": {"1": [12, 11], "2": [13, 14]}, "rematches_allowed": []},
        round_number=1,
    )
    # ids inside the data are named by the page's one lookup; without it, #id
    assert texts(item)["changes"] == [("Table 1", "#11 – #12", "#12 – #11")]
    many = entry(
        "round.generated",
        "round",
        after={
            "number": 1,
            "tables": {str(t): [t, t + 100] for t in range(1, 21)},
            "proof": "optimal",
            "seed_attempt": 0,
        },
        round_number=1,
    )
    assert texts(many)["changes"] == [("Pairings", None, "20 tables")]
    assert texts(many, "ja")["changes"] == [("対戦表", None, "20テーブル")]


def test_an_unknown_action_and_unknown_values_still_read():
    item = entry(
        "match.coffee_break",
        "match",
        before={"mystery_key": "x", "status": "no_such_status"},
        after={"mystery_key": {"a": [1, 2]}, "status": "pending"},
    )
    shown = texts(item)
    assert shown["sentence"] == "Results: coffee break"
    assert shown["changes"] == [
        ("Status", "no_such_status", "Waiting for a result"),
        ("Mystery key", "x", "a: 1, 2"),
    ]
    assert texts(entry("plugin.did_something"))["sentence"] == "Plugin: did something"
    assert audit_texts.action_label("plugin.did_something") == "Plugin: did something"
    assert texts(item, "ja")["sentence"] == "結果: coffee break"
