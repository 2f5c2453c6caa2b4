"""``manage.py pair_event_file``: a generated event, the shared benchmark event, bad files."""

import importlib
import json
import random
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tournaments.engine.swiss import PastMatch, SwissResult, pair_round, swiss_players_from_history

REPO = Path(__file__).resolve().parents[2]
SHARED_PAIRING = REPO.parent / "shared" / "bench" / "pairing"


def generated_event(players=12, rounds=3, seed=5):
    """A swiss-event/1 document built with the engine: random results, one drop."""
    rng = random.Random(seed)
    ids = list(range(1, players + 1))
    active = list(ids)
    history, rows = [], []
    for rnd in range(1, rounds + 1):
        pool = swiss_players_from_history(active, history)
        result = pair_round(pool, round_number=rnd, seed=seed)
        for table in result.tables:
            outcome = rng.choice([SwissResult.PLAYER1, SwissResult.PLAYER2, SwissResult.DRAW])
            history.append(PastMatch(rnd, table.player1, table.player2, outcome))
            rows.append(
                {
                    "round": rnd,
                    "table": table.number,
                    "p1": table.player1,
                    "p2": table.player2,
                    "result": outcome.value,
                }
            )
        if result.bye is not None:
            history.append(PastMatch(rnd, result.bye, None, SwissResult.BYE))
            rows.append({"round": rnd, "table": 0, "p1": result.bye, "p2": None, "result": "bye"})
        if rnd == 1:
            active.remove(4)
    final = {p.id: p for p in swiss_players_from_history(ids, history)}
    return {
        "schema": "swiss-event/1",
        "meta": {"n_players": players, "next_round": rounds + 1, "seed": seed},
        "players": [
            {
                "id": pid,
                "active": pid in active,
                "match_points": final[pid].match_points,
                "had_bye": final[pid].had_bye,
            }
            for pid in ids
        ],
        "matches": rows,
    }, swiss_players_from_history(active, history)


def run_command(event_path, out_path):
    call_command("pair_event_file", str(event_path), str(out_path))
    return json.loads(out_path.read_text())


def test_pair_event_file_on_a_generated_event(tmp_path, capsys):
    data, pool = generated_event()
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(data))
    out = run_command(event_path, tmp_path / "out.json")
    assert out["schema"] == "swiss-pairing/1"
    assert out["peer"] == "crossover-tournaments"
    assert out["round"] == 4
    assert out["event"] == str(event_path)
    assert 0 <= out["pair_seconds"] <= out["total_seconds"]
    assert "optimal by" in out["notes"]
    by_id = {p.id: p for p in pool}
    placed = [row["p1"] for row in out["pairings"]] + [
        row["p2"] for row in out["pairings"] if row["p2"] is not None
    ]
    assert sorted(placed) == sorted(by_id)  # every active player once, dropped player 4 out
    byes = [row["p1"] for row in out["pairings"] if row["p2"] is None]
    assert len(byes) == 1
    assert not by_id[byes[0]].had_bye
    lowest = min(p.match_points for p in pool if not p.had_bye)
    assert by_id[byes[0]].match_points == lowest
    for row in out["pairings"]:
        if row["p2"] is not None:
            assert row["p2"] not in by_id[row["p1"]].opponents
    assert "round 4, 11 players" in capsys.readouterr().out


@pytest.mark.skipif(
    not (SHARED_PAIRING / "events" / "n17_r5_s1.json").is_file(),
    reason=f"shared benchmark events not found at {SHARED_PAIRING / 'events'}",
)
def test_pair_event_file_on_the_shared_17_player_event(tmp_path, monkeypatch):
    event_path = SHARED_PAIRING / "events" / "n17_r5_s1.json"
    out_path = tmp_path / "out.json"
    out = run_command(event_path, out_path)
    monkeypatch.syspath_prepend(str(SHARED_PAIRING))
    check_pairing = importlib.import_module("check_pairing")
    eventlib = importlib.import_module("eventlib")
    score = check_pairing.check(eventlib.load_event(str(event_path)), out)
    assert score["valid"], score["problems"]
    assert score["rematches"] == 0
    assert score["bye_ok"]
    best = json.loads((SHARED_PAIRING / "best_peer.json").read_text())["n17_r5_s1"]
    assert score["score_diff_sum"] <= best


def test_pair_event_file_bad_input_names_file_and_field(tmp_path):
    data, _pool = generated_event()
    data["matches"][3]["result"] = "p3"
    event_path = tmp_path / "broken.json"
    event_path.write_text(json.dumps(data))
    with pytest.raises(CommandError) as caught:
        call_command("pair_event_file", str(event_path), str(tmp_path / "out.json"))
    assert str(event_path) in str(caught.value)
    assert "matches[3].result" in str(caught.value)
    assert not (tmp_path / "out.json").exists()


def test_pair_event_file_missing_file(tmp_path):
    with pytest.raises(CommandError) as caught:
        call_command("pair_event_file", str(tmp_path / "nope.json"), str(tmp_path / "out.json"))
    assert "nope.json" in str(caught.value)
    assert "cannot read" in str(caught.value)


def test_pair_event_file_unwritable_output(tmp_path):
    data, _pool = generated_event()
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(data))
    with pytest.raises(CommandError) as caught:
        call_command("pair_event_file", str(event_path), str(tmp_path / "no" / "out.json"))
    assert "cannot write" in str(caught.value)
