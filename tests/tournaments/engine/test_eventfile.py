"""Reading swiss-event/1 files and writing swiss-pairing/1 documents."""

import json

import pytest

from tournaments.engine.eventfile import (
    PAIRING_SCHEMA,
    PEER_NAME,
    EventFileError,
    pairing_document,
    read_and_pair,
    read_swiss_event,
    tables_as_pairs,
)


def event_dict(**overrides):
    data = {
        "schema": "swiss-event/1",
        "meta": {"next_round": 3, "seed": 4, "scoring": {"win": 3, "draw": 1, "loss": 0, "bye": 3}},
        "players": [
            {"id": 1, "active": True, "match_points": 6, "had_bye": False},
            {"id": 2, "active": True, "match_points": 3, "had_bye": False},
            {"id": 3, "active": True, "match_points": 4, "had_bye": True},
            {"id": 4, "active": False, "match_points": 0, "had_bye": False},
            {"id": 5, "active": True, "match_points": 1},
        ],
        "matches": [
            {"round": 1, "table": 1, "p1": 1, "p2": 2, "result": "p1"},
            {"round": 1, "table": 2, "p1": 3, "p2": 5, "result": "draw"},
            {"round": 1, "table": 3, "p1": 4, "p2": None, "result": "bye"},
            {"round": 2, "table": 1, "p1": 1, "p2": 4, "result": "p1"},
            {"round": 2, "table": 2, "p1": 5, "p2": 2, "result": "p2"},
            {"round": 2, "table": 3, "p1": 3, "p2": None, "result": "bye"},
        ],
    }
    data.update(overrides)
    return data


def write(tmp_path, data, name="event.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_read_swiss_event_recomputes_points_opponents_and_byes(tmp_path):
    data = event_dict()
    data["players"][3]["match_points"] = 3  # player 4's bye
    event = read_swiss_event(write(tmp_path, data))
    assert event.next_round == 3
    assert event.seed == 4
    players = {p.id: p for p in event.players}
    assert set(players) == {1, 2, 3, 5}  # player 4 is inactive (dropped)
    assert players[1].match_points == 6
    assert players[1].opponents == {2, 4}  # the dropped opponent stays in the history
    assert players[3].had_bye
    assert players[3].match_points == 4
    assert players[5].match_points == 1


def test_read_and_pair_pairs_the_next_round(tmp_path):
    data = event_dict()
    data["players"][3]["match_points"] = 3
    event, pairing, seconds = read_and_pair(write(tmp_path, data))
    assert pairing.round_number == 3
    assert seconds >= 0
    assert len(tables_as_pairs(pairing)) == 2
    document = pairing_document(event, pairing, pair_seconds=0.5, total_seconds=0.75)
    assert document["schema"] == PAIRING_SCHEMA
    assert document["peer"] == PEER_NAME
    assert document["round"] == 3
    assert pairing.bye is None  # four active players
    assert all(row["p2"] is not None for row in document["pairings"])
    assert (document["pair_seconds"], document["total_seconds"]) == (0.5, 0.75)
    ids = [row["p1"] for row in document["pairings"]] + [
        row["p2"] for row in document["pairings"] if row["p2"] is not None
    ]
    assert sorted(ids) == [1, 2, 3, 5]


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.update(schema="swiss-event/9"), "schema"),
        (lambda d: d.pop("meta"), "meta"),
        (lambda d: d["meta"].pop("next_round"), "meta.next_round"),
        (lambda d: d["meta"].update(next_round="3"), "meta.next_round"),
        (lambda d: d["meta"].update(next_round=0), "meta.next_round"),
        (lambda d: d["meta"].update(seed=[1]), "meta.seed"),
        (lambda d: d["meta"]["scoring"].update(win="3"), "meta.scoring.win"),
        (lambda d: d.update(players={}), "players"),
        (lambda d: d.pop("matches"), "matches"),
        (lambda d: d["players"][2].pop("id"), "players[2].id"),
        (lambda d: d["players"][2].update(id=1), "players[2].id"),
        (lambda d: d["players"][1].update(id=[2]), "players[1].id"),
        (lambda d: d["players"][1].update(active="yes"), "players[1].active"),
        (lambda d: d["players"][0].update(match_points=7), "players[0].match_points"),
        (lambda d: d["matches"][1].pop("result"), "matches[1]"),
        (lambda d: d["matches"][1].update(result="win"), "matches[1].result"),
        (lambda d: d["matches"][1].update(p1=99), "matches[1].p1"),
        (lambda d: d["matches"][1].update(p2=99), "matches[1].p2"),
        (lambda d: d["matches"][1].update(p2=3), "matches[1]"),
        (lambda d: d["matches"][2].update(result="p1"), "matches[2]"),
    ],
)
def test_read_swiss_event_names_the_bad_field(tmp_path, mutate, field):
    data = event_dict()
    data["players"][3]["match_points"] = 3
    mutate(data)
    path = write(tmp_path, data)
    with pytest.raises(EventFileError) as caught:
        read_swiss_event(path)
    assert caught.value.field == field
    assert caught.value.code == "bad_event_file"
    assert str(path) in caught.value.message


def test_read_swiss_event_rejects_unreadable_files(tmp_path):
    with pytest.raises(EventFileError) as caught:
        read_swiss_event(tmp_path / "missing.json")
    assert "cannot read" in caught.value.message
    with pytest.raises(EventFileError) as caught:
        read_swiss_event(write(tmp_path, "{not json"))
    assert "not valid JSON" in caught.value.message
    with pytest.raises(EventFileError) as caught:
        read_swiss_event(write(tmp_path, "[1, 2]"))
    assert caught.value.field == "(top level)"
