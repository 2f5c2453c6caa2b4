"""The standalone replay verifier (tournaments.engine.replay): a clean exported event
verifies; tampered files are caught with the right line; unreadable files exit 2; no
Django is imported. Games are adjudicated by rulebook 4−1−1/4−1−2 (engine.games)."""

from __future__ import annotations

import copy
import io
import json
import random
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from tournaments.engine.replay import EXIT_DISAGREES, EXIT_OK, EXIT_UNREADABLE, main
from tournaments.engine.swiss import PastMatch, SwissResult, pair_round, swiss_players_from_history

REPO = Path(__file__).resolve().parents[3]

# --- a crossover-event/1 document built with the engine alone (no database) ---------------

HP_WIN = {"end": "hp_zero", "hp": [12, 0], "deck": [None, None]}
HP_LOSS = {"end": "hp_zero", "hp": [0, 12], "deck": [None, None]}
TIME_DRAW = {"end": "time", "hp": [10, 10], "deck": [None, None]}
GAMES = {
    "2-0-0": [HP_WIN, HP_WIN],
    "2-1-0": [HP_WIN, HP_LOSS, HP_WIN],
    "0-2-0": [HP_LOSS, HP_LOSS],
    "1-2-0": [HP_LOSS, HP_WIN, HP_LOSS],
    "1-1-1": [HP_WIN, HP_LOSS, TIME_DRAW],
}
OUTCOME = {"2-0-0": "player1", "2-1-0": "player1", "0-2-0": "player2", "1-2-0": "player2"}
SWISS = {"player1": SwissResult.PLAYER1, "player2": SwissResult.PLAYER2, "draw": SwissResult.DRAW}


def generated_event(players: int = 24, rounds: int = 5, seed: int = 3, drops: int = 2) -> dict:
    """An event of ``players`` and ``rounds`` closed Swiss rounds paired by the engine
    with random results (a few drops), in the event file's layout."""
    rng = random.Random(seed)
    names = [f"user{n:04d}" for n in range(1, players + 1)]
    active = list(range(1, players + 1))
    dropped_after: dict[int, int] = {}
    history: list[PastMatch] = []
    document_rounds = []
    for number in range(1, rounds + 1):
        pool = swiss_players_from_history(active, history)
        pairing = pair_round(pool, round_number=number, seed=f"gen/{seed}")
        matches = []
        for table in pairing.tables:
            record = rng.choice(list(GAMES))
            outcome = OUTCOME.get(record, "draw")
            history.append(PastMatch(number, table.player1, table.player2, SWISS[outcome]))
            matches.append(
                {
                    "table": table.number,
                    "player1": names[table.player1 - 1],
                    "player2": names[table.player2 - 1],
                    "games": copy.deepcopy(GAMES[record]),
                    "record": record,
                    "outcome": outcome,
                    "seed1": None,
                    "seed2": None,
                }
            )
        if pairing.bye is not None:
            history.append(PastMatch(number, pairing.bye, None, SwissResult.BYE))
            matches.append(
                {
                    "table": len(matches) + 1,
                    "player1": names[pairing.bye - 1],
                    "player2": None,
                    "games": [],
                    "record": "2-0-0",
                    "outcome": "player1",
                    "seed1": None,
                    "seed2": None,
                }
            )
        document_rounds.append(
            {
                "number": number,
                "stage": "swiss",
                "status": "closed",
                "pairing": {
                    "attempt": 0,
                    "seed": f"gen/{seed}",
                    "info": {"objective": asdict(pairing.objective)},
                },
                "matches": matches,
            }
        )
        for player in rng.sample(active, min(drops, len(active) - 2)) if number < rounds else []:
            active.remove(player)
            dropped_after[player] = number
        drops = 0 if number >= 2 else drops  # drops after rounds 1 and 2 only
    return {
        "schema": "crossover-event/1",
        "event": {
            "name": f"Generated {players}x{rounds}",
            "swiss_timeout_policy": "draw",
            "top_cut_timeout_policy": "more_hp_wins",
            "late_entry_policy": "losses",
            "top_cut_size": 0,
            "tiebreakers": {
                "profile": "mtr",
                "order": ["opponents_match_win_pct", "game_win_pct", "opponents_game_win_pct"],
                "tie_order_seed": f"standings:gen/{seed}",
            },
        },
        "format": {"game": {"slug": "crossover", "name": "CrossOver", "end_rules": {}}},
        "registrations": [
            {
                "player": name,
                "status": "dropped" if n in dropped_after else "registered",
                "dropped_after_round": dropped_after.get(n),
                "late_entry_round": None,
            }
            for n, name in enumerate(names, 1)
        ],
        "rounds": document_rounds,
    }


def write_generated(path: str, players: int = 512, rounds: int = 9) -> None:
    """The 512-player, 9-round timing file (see the report of issue #14)."""
    Path(path).write_text(json.dumps(generated_event(players, rounds, drops=8)))


def run(tmp_path, document, name="event.json") -> tuple[int, str]:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    out = io.StringIO()
    code = main([str(path)], out=out)
    return code, out.getvalue()


# --- a generated event ----------------------------------------------------------------------


def test_replay_generated_event_verifies(tmp_path):
    code, text = run(tmp_path, generated_event())
    assert code == EXIT_OK, text
    lines = text.splitlines()
    assert lines[0].startswith("Generated 24x5: 24 players, 5 rounds, tiebreakers mtr")
    assert [line.split(":")[0] for line in lines[1:6]] == [f"round {n} swiss" for n in range(1, 6)]
    assert all(line.endswith("s)") and " — OK " in line for line in lines[1:6])
    assert "difference 0" in lines[3]
    assert lines[-1].startswith("VERDICT: everything agrees (5 rounds, ")


def test_replay_flipped_game_result_is_caught(tmp_path):
    document = generated_event()
    number, match = next(
        (rnd["number"], m)
        for rnd in document["rounds"]
        for m in rnd["matches"]
        if m["record"] == "2-0-0"
    )
    match["games"][1] = copy.deepcopy(HP_LOSS)  # the second game now goes to player 2
    code, text = run(tmp_path, document)
    assert code == EXIT_DISAGREES
    assert (
        f"  round {number}: table {match['table']} ({match['player1']} v {match['player2']}): the "
        "games give 1-1-0, the file says 2-0-0"
    ) in text.splitlines()
    assert f"round {number} swiss:" in text
    assert text.splitlines()[-1].startswith("VERDICT: 1 disagreement ")


def test_replay_record_its_games_do_not_give_is_caught(tmp_path):
    document = generated_event()
    match = next(m for m in document["rounds"][2]["matches"] if m["record"] == "2-1-0")
    match["record"] = "2-0-0"  # the stored record, not the games, was changed
    code, text = run(tmp_path, document)
    assert code == EXIT_DISAGREES
    assert (
        f"  round 3: table {match['table']} ({match['player1']} v {match['player2']}): the "
        "games give 2-1-0, the file says 2-0-0"
    ) in text.splitlines()


def test_replay_record_against_its_outcome_is_caught(tmp_path):
    document = generated_event()
    match = next(m for m in document["rounds"][0]["matches"] if m["record"] == "2-0-0")
    match["outcome"] = "player2"
    code, text = run(tmp_path, document)
    assert code == EXIT_DISAGREES
    assert (
        f"  round 1: table {match['table']}: record 2-0-0 is a player1 result, the file says "
        "player2"
    ) in text


def _met_before(document, number):
    met = set()
    for rnd in document["rounds"][: number - 1]:
        for m in rnd["matches"]:
            if m["player2"] is not None:
                met.add(frozenset((m["player1"], m["player2"])))
    return met


def test_replay_swapped_pairing_with_an_avoidable_rematch_is_caught(tmp_path):
    document = generated_event()
    number = 4
    met = _met_before(document, number)
    tables = [m for m in document["rounds"][number - 1]["matches"] if m["player2"] is not None]
    for first in tables:
        second = next(
            (
                t
                for t in tables
                if t is not first and frozenset((first["player1"], t["player1"])) in met
            ),
            None,
        )
        if second is not None:
            break
    # Swap: first's player 2 ↔ second's player 1, so first's player 1 meets an old opponent.
    first["player2"], second["player1"] = second["player1"], first["player2"]
    code, text = run(tmp_path, document)
    assert code == EXIT_DISAGREES
    assert (
        f"  round {number}: table {first['table']}: avoidable rematch {first['player1']} v "
        f"{first['player2']} (the optimum has 0 rematches)"
    ) in text.splitlines()


def test_replay_bye_given_twice_is_caught(tmp_path):
    document = generated_event(players=23, rounds=4, drops=0)
    byes = {
        rnd["number"]: next(m for m in rnd["matches"] if m["player2"] is None)
        for rnd in document["rounds"]
    }
    earlier, later = byes[1]["player1"], byes[3]
    # Round 3's bye goes to round 1's receiver, who swaps seats with round 3's receiver.
    seat = next(
        (m, key)
        for m in document["rounds"][2]["matches"]
        for key in ("player1", "player2")
        if m[key] == earlier
    )
    seat[0][seat[1]], later["player1"] = later["player1"], earlier
    code, text = run(tmp_path, document)
    assert code == EXIT_DISAGREES
    assert (
        f"  round 3: bye given twice: {earlier} already had a bye in round 1 while others had none"
    ) in text.splitlines()


def test_replay_player_twice_in_a_round_is_caught(tmp_path):
    document = generated_event()
    matches = document["rounds"][1]["matches"]
    matches[1]["player2"] = matches[0]["player1"]
    code, text = run(tmp_path, document)
    assert code == EXIT_DISAGREES
    assert f"plays twice (tables {matches[0]['table']} and {matches[1]['table']})" in text


# --- unreadable files ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ({"schema": "swiss-event/1"}, "schema: expected 'crossover-event/1', got 'swiss-event/1'"),
        ("[]", "(top level): expected a JSON object"),
    ],
)
def test_replay_unreadable_file_exits_2(tmp_path, content, message):
    code, text = run(tmp_path, content if isinstance(content, str) else json.dumps(content))
    assert code == EXIT_UNREADABLE
    assert message in text


def test_replay_unknown_player_exits_2_naming_the_field(tmp_path):
    document = generated_event()
    document["rounds"][0]["matches"][2]["player2"] = "nobody"
    code, text = run(tmp_path, document)
    assert code == EXIT_UNREADABLE
    assert "rounds[0].matches[2].player2: 'nobody' is not registered for the event" in text


def test_replay_missing_file_exits_2(tmp_path):
    out = io.StringIO()
    assert main([str(tmp_path / "missing.json")], out=out) == EXIT_UNREADABLE
    assert "cannot read" in out.getvalue()


# --- no Django -----------------------------------------------------------------------------


def test_replay_imports_no_django(tmp_path):
    path = tmp_path / "event.json"
    path.write_text(json.dumps(generated_event(players=9, rounds=3)))
    code = (
        "import runpy, sys\n"
        "sys.argv = ['replay', sys.argv[1]]\n"
        "try:\n"
        "    runpy.run_module('tournaments.engine.replay', run_name='__main__')\n"
        "except SystemExit as exit:\n"
        "    print('exit', exit.code, 'django' in sys.modules, "
        "any(m.startswith('django') for m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=REPO
    )
    assert done.stdout.splitlines()[-1] == "exit 0 False False", done.stdout + done.stderr
    timed = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import tournaments.engine.replay"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert "tournaments.engine.replay" in timed.stderr
    assert "django" not in timed.stderr


def test_replay_runs_as_a_module(tmp_path):
    path = tmp_path / "event.json"
    path.write_text(json.dumps(generated_event(players=10, rounds=3)))
    done = subprocess.run(
        [sys.executable, "-m", "tournaments.engine.replay", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("VERDICT: everything agrees (3 rounds")


# --- files the site exports -----------------------------------------------------------------


@pytest.mark.django_db
def test_replay_exported_demo_events_verify(tmp_path):
    from django.core.management import call_command

    from tournaments.event_file import export_event
    from tournaments.models import Event

    call_command("load_demo", "--no-admin")
    for event in Event.objects.order_by("pk"):
        code, text = run(tmp_path, export_event(event), name=f"event{event.pk}.json")
        assert code == EXIT_OK, text
        assert text.splitlines()[-1].startswith("VERDICT: everything agrees")
    finished = export_event(Event.objects.get(name="Demo: finished"))
    code, text = run(tmp_path, finished)
    assert "round 4 top cut: 2 matches (2 from games); 4 seeds agree with the Swiss standings" in (
        text
    )
    # A top-cut seed that the standings do not give is caught.
    first_cut = next(r for r in finished["rounds"] if r["stage"] == "top_cut")
    match = first_cut["matches"][0]
    match["player1"], match["player2"] = match["player2"], match["player1"]
    code, text = run(tmp_path, finished)
    assert code == EXIT_DISAGREES
    assert f"  round {first_cut['number']}: table 1: seed 1 is {match['player1']}" in text


@pytest.mark.django_db
def test_replay_exported_event_with_drop_bye_penalty_and_draft_round(tmp_path, event_after_round_3):
    from tournaments import services
    from tournaments.event_file import export_event

    world = event_after_round_3
    round4 = services.generate_round(world.event, actor=world.organizer)
    services.publish_round(round4, actor=world.organizer)
    match = round4.matches.exclude(player2__isnull=True).order_by("table").first()
    services.issue_penalty(
        match.player1,
        actor=world.judge,
        kind="game_loss",
        infraction="Tardiness",
        match=match,
    )
    document = export_event(world.event)
    code, text = run(tmp_path, document)
    assert code == EXIT_OK, text
    lines = text.splitlines()
    assert lines[3].startswith("round 3 swiss: 4 matches (1 bye, 3 from games)")
    assert lines[4].startswith("round 4 swiss: 4 matches (1 bye, 1 from games, 2 pending)")


@pytest.mark.django_db
def test_replay_standings_are_the_sites(event_after_round_3):
    """The verifier's standings after each closed round are the site's (same order, same
    points and tiebreakers), with a dropped player and a bye in play."""
    from tournaments.engine.replay import replay, standings_after
    from tournaments.event_file import export_event
    from tournaments.services.standings import compute_standings

    world = event_after_round_3
    _reports, event = replay(export_event(world.event))
    for number in (1, 2, 3):
        site = compute_standings(world.event, through_round=number)
        ours = standings_after(event, number)
        assert [event.usernames[row.player - 1] for row in ours] == [
            line.registration.player.username for line in site.rows
        ]
        assert [(row.match_points, row.tiebreakers) for row in ours] == [
            (line.match_points, tuple(line.tiebreakers.values())) for line in site.rows
        ]


@pytest.mark.django_db
def test_replay_public_event_file_from_the_event_page_verifies(
    tmp_path, client, event_after_round_3
):
    """The file anyone downloads from the event page (no staff data, no draft round)."""
    from django.urls import reverse

    from tournaments import services

    world = event_after_round_3
    services.generate_round(world.event, actor=world.organizer)  # a draft: left out
    event_page = client.get(reverse("tournaments:event_detail", args=[world.event.pk]))
    url = reverse("tournaments:event_file_download", args=[world.event.pk])
    assert f'href="{url}"' in event_page.content.decode()
    response = client.get(url)
    assert response.status_code == 200
    document = json.loads(
        b"".join(response.streaming_content) if response.streaming else response.content
    )
    code, text = run(tmp_path, document)
    assert code == EXIT_OK, text
    assert text.splitlines()[-1].startswith("VERDICT: everything agrees (3 rounds")


PENALTY_GAME = {"end": "penalty", "penalized": [True, False], "penalty": 0}


def test_replay_record_over_game_loss_penalty_games(tmp_path):
    """A record typed over a game-loss penalty game must include it (engine
    check_fixed_games): 0-2 does, 2-0 does not. (The last round: no later pairing was
    made from these records.)"""
    document = generated_event()
    first, second = document["rounds"][-1]["matches"][:2]
    first.update(games=[dict(PENALTY_GAME)], record="0-2-0", outcome="player2")
    code, text = run(tmp_path, document)
    assert code == EXIT_OK, text
    assert "1 record over penalty games" in text.splitlines()[5]
    second.update(games=[dict(PENALTY_GAME)], record="2-0-0", outcome="player1")
    code, text = run(tmp_path, document)
    assert code == EXIT_DISAGREES
    assert (
        f"  round 5: table {second['table']} ({second['player1']} v {second['player2']}): the "
        "games give 0-1-0, the file says 2-0-0"
    ) in text.splitlines()
