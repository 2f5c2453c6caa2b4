"""The event file (issue #14, docs/event-file.md): export, the schema, the consistency
checks with their JSON paths, import (placeholders, existing accounts, same file twice,
nothing written on a refusal), the commands and the export's query count."""

from __future__ import annotations

import copy
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.decks.conftest import LEGAL_DECK
from tournaments import services
from tournaments.event_file import (
    SCHEMA_PATH,
    EventFileRejected,
    export_event,
    import_event,
    load_schema,
    validate,
)
from tournaments.infractions import load_builtin_infractions
from tournaments.models import (
    AuditEntry,
    DeckCheck,
    Event,
    Infraction,
    Match,
    Penalty,
    Registration,
    ResultReport,
    Round,
)
from tournaments.services import deck_checks

from .conftest import build_world_after_round_3, rolled_back_at_the_end
from .factories import UserFactory, games_for, open_event, register_all, report_all
from .test_event_file_roundtrip_14 import comparable, empty_database

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def _busy_event_pk(django_db_setup, django_db_blocker):
    """The busy event, built once for the module inside a transaction rolled back at its
    end; each test runs in a savepoint of it (pytest-django's ``db``), as
    ``TestCase.setUpTestData`` does, so one test's import or edit never reaches another.
    The users are the fixtures' (``organizer``, ``judge``, ``player001``…): a test that
    asks for such a fixture gets the same account (UserFactory gets it by username)."""
    with rolled_back_at_the_end(django_db_blocker):
        world = build_world_after_round_3()
        yield build_busy_event(world.built, world.organizer, world.judge).pk


@pytest.fixture
def busy_event(_busy_event_pk, db):
    """event_after_round_3 (drop, warning, staff) and round 4 with what an event file must
    carry (see :func:`build_busy_event`); a fresh instance for each test."""
    return Event.objects.get(pk=_busy_event_pk)


def build_busy_event(state, organizer, judge):
    """``state`` (event_after_round_3) and round 4 with what an event file must carry: a
    late entry, a re-pairing, a game-loss penalty from the infraction list, a dispute and
    a judge's override, extra time, a deck check with its penalty."""
    load_builtin_infractions()
    event = state.event
    late = UserFactory(username="late-player", first_name="Late", last_name="Comer")
    services.add_late_entry(event, actor=organizer, player=late, deck_text=LEGAL_DECK)
    round_ = services.generate_round(event, actor=organizer)
    round_ = services.repair_round(round_, actor=organizer, reason="late entry")
    services.publish_round(round_, actor=organizer)
    services.start_round_clock(round_, actor=organizer)
    matches = list(Match.objects.filter(round=round_, player2__isnull=False).order_by("table"))
    first = matches[0]
    slow = Infraction.objects.get(game=event.format.game, code="slow_play")
    services.issue_penalty(
        first.player1,
        actor=judge,
        kind="game_loss",
        infraction=slow,
        match=first,
        note="second warning today",
    )
    first.refresh_from_db()
    services.extend_match_time(first, actor=judge, minutes=5, reason="ruling")
    second = matches[1]
    second = services.report_result(
        second,
        actor=second.player1.player,
        games=games_for("2-1"),
        expected_version=second.version,
    )
    second = services.dispute_result(
        second,
        actor=second.player2.player,
        expected_version=second.version,
        reason="no",
        record="1-2",
    )
    services.override_result(
        second,
        actor=judge,
        expected_version=second.version,
        reason="judge call",
        games=games_for("1-2"),
    )
    check = deck_checks.record_deck_check(
        matches[2].player1, actor=judge, counted_text=LEGAL_DECK + "1 スワティ\n", round_=round_
    )
    services.issue_penalty(
        matches[2].player1,
        actor=judge,
        kind="warning",
        infraction=Infraction.objects.get(game=event.format.game, code="deck_mismatch"),
        deck_check=check,
        note="one extra card, found before the game",
    )
    event.refresh_from_db()
    return event


def test_export_holds_every_section_and_fits_the_schema(busy_event):
    document = export_event(busy_event)
    assert [str(p) for p in validate(document)] == []
    assert document["schema"] == "crossover-event/1"
    assert document["event"]["uid"] == str(busy_event.uid)
    assert document["event"]["tiebreakers"] == {
        "profile": "mtr",
        "order": ["opponents_match_win_pct", "game_win_pct", "opponents_game_win_pct"],
        "tie_order_seed": "standings:tests",
    }
    assert document["format"]["slug"] == "crossover"
    assert {s["user"]: s["role"] for s in document["event"]["staff"]} == {
        "co-organizer": "co_organizer",
        "judge": "judge",
    }
    users = {u["username"]: u for u in document["users"]}
    assert users["late-player"] == {
        "username": "late-player",
        "display_name": "Late Comer",
        "first_name": "Late",
        "last_name": "Comer",
    }
    assert "password" not in json.dumps(document["users"])
    registrations = {r["player"]: r for r in document["registrations"]}
    assert registrations["player008"]["status"] == "dropped"
    assert registrations["player008"]["dropped_after_round"] == 2
    assert registrations["late-player"]["late_entry_round"] == 4
    decklist = registrations["player001"]["decklist"]
    assert decklist["text"] == LEGAL_DECK
    assert next((e["count"], e["name"], e["section"]) for e in decklist["entries"]) == (
        4,
        "森原 さとみ",
        "main",
    )
    assert [r["number"] for r in document["rounds"]] == [1, 2, 3, 4]
    round4 = document["rounds"][3]
    assert round4["pairing"]["attempt"] == 1
    assert round4["pairing"]["seed"] == "tests/1"
    assert round4["pairing"]["info"]["objective"].keys() >= {"rematches", "score_gap_sum"}
    first, second = round4["matches"][0], round4["matches"][1]
    assert first["games"][0]["end"] == "penalty"
    assert first["games"][0]["penalty"] == 1  # index in penalties: the warning is 0
    assert first["extra_minutes"] == 5
    assert [s["kind"] for s in second["submissions"]] == ["report", "dispute", "override"]
    assert second["submissions"][2]["by"] == "judge"
    assert second["record"] == "1-2-0"
    assert second["status"] == "final"
    penalties = document["penalties"]
    assert [(p["kind"], p["infraction_code"], p["judge"]) for p in penalties] == [
        ("warning", None, "judge"),
        ("game_loss", "slow_play", "judge"),
        ("warning", "deck_mismatch", "judge"),
    ]
    assert penalties[1]["match"] == {"round": 4, "table": 1}
    assert penalties[2]["deck_check"] == 0
    assert document["deck_checks"][0]["ok"] is False
    assert document["top_cut"] is None
    actions = [entry["action"] for entry in document["audit"]]
    assert actions[0] == "event.created"
    assert "registration.late_entry" in actions
    assert "match.overridden" in actions
    drop = next(e for e in document["audit"] if e["action"] == "registration.dropped")
    assert drop["object"] == {"type": "registration", "player": "player008"}
    assert drop["actor"] == "player008"


def test_private_export_adds_emails_only_when_asked(busy_event):
    get_user_model().objects.filter(username="player001").update(email="p1@example.org")
    assert all("email" not in u for u in export_event(busy_event)["users"])
    private = export_event(busy_event, include_private=True)
    assert private["private"] is True
    assert {u["username"]: u["email"] for u in private["users"]}["player001"] == "p1@example.org"
    assert [str(p) for p in validate(private)] == []


def test_schema_file_is_draft_2020_12_and_shipped_beside_the_code():
    from jsonschema import Draft202012Validator

    assert SCHEMA_PATH.name == "crossover-event-1.schema.json"
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema"] == {"const": "crossover-event/1"}


def test_round_trip_of_a_busy_event_gives_the_same_document(busy_event):
    before = export_event(busy_event)
    empty_database()
    outcome = import_event(before, actor=None)
    assert outcome.created is True
    after = export_event(outcome.event)
    assert comparable(after) == comparable(before)
    assert after["audit"][-1]["action"] == "event.imported"
    assert outcome.counts == {
        "users_created": 12,
        "users_matched": 0,
        "registrations": 9,
        "rounds": 4,
        "matches": 16,
        "submissions": len(
            [s for r in before["rounds"] for m in r["matches"] for s in m["submissions"]]
        ),
        "penalties": 3,
        "deck_checks": 1,
        "audit_entries": len(before["audit"]),
    }
    # The imported event computes the same standings as the original's file says.
    standings = services.compute_standings(outcome.event)
    assert standings.rounds == 3


def test_importing_the_same_file_twice_duplicates_nothing(busy_event):
    document = export_event(busy_event)
    counts = {
        model: model.objects.count()
        for model in (Event, Registration, Round, Match, ResultReport, Penalty, DeckCheck)
    }
    users = get_user_model().objects.count()
    outcome = import_event(document)  # same uid: the event is replaced by the file
    assert outcome.created is False
    assert outcome.event.pk == busy_event.pk
    outcome = import_event(document)
    assert outcome.created is False
    assert {model: model.objects.count() for model in counts} == counts
    assert get_user_model().objects.count() == users
    # Existing accounts are used as they are, never changed.
    assert outcome.users_created == []
    assert get_user_model().objects.get(username="player001").is_active is True
    again = export_event(outcome.event)
    assert comparable(again) == comparable(document)


def test_placeholder_accounts_are_inactive_with_no_usable_password(busy_event):
    document = export_event(busy_event, include_private=True)
    document["users"][0]["email"] = "someone@example.org"
    empty_database()
    outcome = import_event(document)
    user_model = get_user_model()
    created = user_model.objects.get(username=document["users"][0]["username"])
    assert created.is_active is False
    assert created.has_usable_password() is False
    assert created.email == "someone@example.org"
    assert sorted(outcome.users_created) == sorted(u["username"] for u in document["users"])


def test_existing_account_is_matched_by_username(busy_event):
    document = export_event(busy_event)
    empty_database()
    kept = UserFactory(username="player003", first_name="Already", last_name="Here")
    outcome = import_event(document)
    registration = Registration.objects.get(event=outcome.event, player__username="player003")
    assert registration.player_id == kept.pk
    kept.refresh_from_db()
    assert (kept.first_name, kept.is_active) == ("Already", True)
    assert "player003" not in outcome.users_created


def _problems(document) -> list[tuple[str, str]]:
    with pytest.raises(EventFileRejected) as refused:
        import_event(document)
    return [(p.path, p.message) for p in refused.value.problems]


def test_schema_problems_name_the_json_path(busy_event):
    document = export_event(busy_event)
    bad = copy.deepcopy(document)
    bad["rounds"][2]["matches"][1]["player2"] = 42
    bad["event"]["round_minutes"] = 0
    bad["registrations"][0]["registered_at"] = "yesterday"
    del bad["penalties"][0]["judge"]
    problems = _problems(bad)
    paths = [path for path, _ in problems]
    assert "rounds[2].matches[1].player2" in paths
    assert "event.round_minutes" in paths
    assert ("registrations[0].registered_at", "'yesterday' is not a valid date-time") in problems
    assert ("penalties[0]", "'judge' is a required property") in problems
    assert validate({"schema": "crossover-event/2"})[0].path == ""


def test_consistency_problems_are_listed_together_and_nothing_is_written(busy_event):
    document = export_event(busy_event)
    bad = copy.deepcopy(document)
    rounds = bad["rounds"]
    # A pairing naming a player who is not registered (but is a user: the organizer).
    rounds[0]["matches"][0]["player2"] = "organizer"
    # One player in two matches of one round.
    rounds[1]["matches"][1]["player1"] = rounds[1]["matches"][0]["player1"]
    # A round number repeated.
    rounds[2]["number"] = 2
    # A penalty for an unknown player, and one for a match that does not exist.
    bad["penalties"][0]["player"] = "nobody"
    bad["penalties"][1]["match"] = {"round": 4, "table": 99}
    # An outcome that contradicts its record.
    rounds[3]["matches"][1]["outcome"] = "player1"
    before = {m: m.objects.count() for m in (Event, Registration, Round, Match, AuditEntry)}
    empty = dict.fromkeys(before, 0)
    problems = _problems(bad)
    assert problems[:7] == [
        ("rounds[2].number", "round 2 is repeated"),
        ("rounds[0].matches[0].player2", "'organizer' is not registered for the event"),
        ("rounds[1].matches[1].player1", "'player003' already plays at table 1 in this round"),
        ("rounds[1].matches[1].reported_by", "must be one of the match's players"),
        ("rounds[3].matches[1].outcome", "1-2-0 means player2, not player1"),
        ("penalties[0].player", "'nobody' is not registered for the event"),
        ("penalties[1].match", "round 4 has no match at table 99"),
    ]
    # The audit entries of the round renumbered away no longer name a round of the file.
    assert problems[7] == ("audit[39].object.round", "round 3 is not in the file's rounds")
    assert {message for _, message in problems[7:]} == {"round 3 is not in the file's rounds"}
    assert {m: m.objects.count() for m in before} == before
    empty_database()
    _problems(bad)
    assert {m: m.objects.count() for m in before} == empty
    assert get_user_model().objects.count() == 0


def test_unknown_format_and_infraction_code_are_refused(busy_event):
    document = export_event(busy_event)
    bad = copy.deepcopy(document)
    bad["format"]["slug"] = "no-such-format"
    assert _problems(bad) == [("format.slug", "there is no format 'no-such-format' on this site")]
    bad = copy.deepcopy(document)
    bad["penalties"][1]["infraction_code"] = "made_up"
    assert _problems(bad) == [
        (
            "penalties[1].infraction_code",
            "there is no infraction 'made_up' for CrossOver The F&C TCG on this site",
        )
    ]


def _export_queries(event) -> int:
    with CaptureQueriesContext(connection) as queries:
        export_event(event)
    return len(queries)


def test_export_query_count_does_not_grow_with_players_or_rounds(
    busy_event, organizer, make_players
):
    small = open_event(organizer, busy_event.format, name="Small")
    register_all(small, make_players(2, prefix="small"))
    services.start_event(small, actor=organizer)
    round_ = services.generate_round(small, actor=organizer)
    services.publish_round(round_, actor=organizer)
    report_all(round_)
    services.close_round(round_, actor=organizer)
    assert _export_queries(small) == _export_queries(busy_event)
    assert _export_queries(busy_event) <= 16


def test_commands_export_and_import(busy_event, tmp_path, capsys):
    out = tmp_path / "event.json"
    call_command("export_event", str(busy_event.pk), str(out))
    assert "\n " not in out.read_text(encoding="utf-8")  # compact unless --indent
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["event"]["uid"] == str(busy_event.uid)
    assert "email" not in document["users"][0]
    call_command(
        "export_event", str(busy_event.uid), str(tmp_path / "p.json"), "--private", "--indent=1"
    )
    assert '\n "schema": "crossover-event/1"' in (tmp_path / "p.json").read_text()
    assert "email" in json.loads((tmp_path / "p.json").read_text())["users"][0]
    empty_database()
    call_command("import_event", str(out))
    printed = capsys.readouterr().out
    assert "Created event" in printed
    assert Event.objects.get().uid == busy_event.uid


def test_import_command_lists_every_problem_and_writes_nothing(busy_event, tmp_path):
    document = export_event(busy_event)
    document["rounds"][0]["matches"][0]["player2"] = "nobody"
    document["rounds"][1]["number"] = 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    empty_database()
    with pytest.raises(CommandError) as refused:
        call_command("import_event", str(path))
    message = str(refused.value)
    assert "rounds[1].number: round 1 is repeated" in message
    assert "rounds[0].matches[0].player2: 'nobody' is not in users" in message
    assert Event.objects.count() == 0


def test_import_command_refuses_a_file_that_is_not_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(CommandError, match="not valid JSON"):
        call_command("import_event", str(path))
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import_event", str(tmp_path / "missing.json"))


def test_export_command_refuses_an_unknown_event(db, tmp_path):
    with pytest.raises(CommandError, match="no event 999"):
        call_command("export_event", "999", str(tmp_path / "x.json"))


def test_replacing_an_event_is_refused_to_an_outsider_and_allowed_to_its_organizer(
    busy_event, outsider, organizer
):
    document = export_event(busy_event)
    audit_count = AuditEntry.objects.filter(event=busy_event).count()
    with pytest.raises(services.NotAllowed) as refused:
        import_event(document, actor=outsider)
    assert refused.value.code == "not_manager"
    assert AuditEntry.objects.filter(event=busy_event).count() == audit_count
    outcome = import_event(document, actor=organizer)
    imported = AuditEntry.objects.filter(event=outcome.event).order_by("-id").first()
    assert (imported.action, imported.actor) == ("event.imported", organizer)
    assert imported.after["created"] is False


def test_importing_a_new_event_is_refused_to_an_inactive_account(busy_event):
    document = export_event(busy_event)
    empty_database()
    inactive = UserFactory(username="inactive", is_active=False)
    with pytest.raises(services.NotAllowed) as refused:
        import_event(document, actor=inactive)
    assert refused.value.code == "login_required"
    assert Event.objects.count() == 0
    assert get_user_model().objects.count() == 1


def test_problems_are_in_the_readers_language(busy_event):
    from django.utils import translation

    document = export_event(busy_event)
    document["penalties"][0]["player"] = "nobody"
    with translation.override("ja"):
        problems = validate(document)
    assert [(p.path, p.message) for p in problems] == [
        ("penalties[0].player", "'nobody' はこの大会に参加登録していません")
    ]


def test_two_audit_entries_for_one_result_version_are_refused(busy_event):
    document = export_event(busy_event)
    audit = document["audit"]
    first = next(i for i, e in enumerate(audit) if e["version"] is not None)
    audit.append(copy.deepcopy(audit[first]))
    assert _problems(document) == [
        (
            f"audit[{len(audit) - 1}].version",
            f"audit[{first}] already records version {audit[first]['version']} of this object",
        )
    ]


def test_values_beyond_the_database_columns_are_refused_by_the_schema(busy_event):
    document = export_event(busy_event)
    document["users"][0]["first_name"] = "x" * 151
    document["rounds"][0]["matches"][0]["table"] = 40000
    paths = [path for path, _ in _problems(document)]
    assert paths == ["rounds[0].matches[0].table", "users[0].first_name"]
