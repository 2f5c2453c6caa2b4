"""Read endpoints: exact JSON for events, registrations and a match; standings with the
tiebreak figures; visibility of drafts and unpublished rounds."""

from tests.tournaments.factories import new_event
from tournaments import services

from .helpers import API, error_of


def event_json(event, registered_count):
    return {
        "id": event.pk,
        "name": "Spring Open",
        "date": "2026-05-16",
        "game": event.format.game.slug,
        "format": event.format.slug,
        "organizer": "organizer",
        "state": "running",
        "capacity": 16,
        "registered_count": registered_count,
        "registration_deadline": None,
        "decklist_deadline": None,
        "swiss_rounds": 5,
        "round_minutes": 50,
        "top_cut_size": 4,
        "tiebreak_profile": "mtr",
        "swiss_timeout_policy": "draw",
        "top_cut_timeout_policy": "more_hp_wins",
        "decklists_public_from": None,
        "allow_reentry": False,
        "late_entry_policy": "losses",
    }


def test_event_list_and_detail(event_after_round_3, client_for):
    f = event_after_round_3
    client = client_for()  # anonymous: a running event is public
    listing = client.get(f"{API}/")
    assert listing.status_code == 200
    assert listing.json() == {
        "count": 1,
        "next": None,
        "previous": None,
        "results": [event_json(f.event, 7)],
    }
    assert client.get(f"{API}/{f.event.pk}/").json() == event_json(f.event, 7)


def test_registrations_exact(event_after_round_3, client_for):
    f = event_after_round_3
    body = client_for(f.players[0]).get(f"{API}/{f.event.pk}/registrations/").json()
    assert body["count"] == 8
    rows = body["results"]
    # Registered players first (in sign-up order), the dropped player last.
    assert [row["id"] for row in rows] == [r.pk for r in f.registrations]
    assert rows[0] == {
        "id": f.registrations[0].pk,
        "player": "player001",
        "name": "player001",
        "status": "registered",
        "has_decklist": True,
        "dropped_after_round": None,
        "late_entry_round": None,
    }
    assert rows[-1] == {
        "id": f.registrations[7].pk,
        "player": "player008",
        "name": "player008",
        "status": "dropped",
        "has_decklist": True,
        "dropped_after_round": 2,
        "late_entry_round": None,
    }
    assert "deck_text" not in rows[0]
    detail = client_for().get(f"{API}/{f.event.pk}/registrations/{f.registrations[0].pk}/")
    assert detail.json() == rows[0]


def test_rounds_and_pairings(event_after_round_3, client_for):
    f = event_after_round_3
    client = client_for(f.players[0])
    rounds = client.get(f"{API}/{f.event.pk}/rounds/").json()["results"]
    assert [
        (r["number"], r["status"], r["match_count"], r["open_match_count"]) for r in rounds
    ] == [
        (1, "closed", 4, 0),
        (2, "closed", 4, 0),
        (3, "closed", 4, 0),
    ]
    pairings = client.get(f"{API}/{f.event.pk}/rounds/1/pairings/").json()
    assert pairings["count"] == 4
    first = pairings["results"][0]
    match = f.rounds[0].matches.get(table=1)
    assert first == {
        "id": match.pk,
        "round": 1,
        "table": 1,
        "player1": {"registration": match.player1_id, "name": match.player1.player.username},
        "player2": {"registration": match.player2_id, "name": match.player2.player.username},
        "status": "confirmed",
        "outcome": "player1",
        "record": "2-1-0",
        "games": match.games,
        "reported_by": match.player1_id,
        "version": 3,
    }
    assert len(first["games"]) == 3


def test_unpublished_round_is_staff_only(event_after_round_3, client_for):
    f = event_after_round_3
    round_ = services.generate_round(f.event, actor=f.organizer)
    url = f"{API}/{f.event.pk}/rounds/{round_.number}/"
    assert error_of(client_for(f.players[0]).get(url)) == (404, "not_found")
    assert error_of(client_for(f.players[0]).get(url + "pairings/")) == (404, "not_found")
    assert client_for(f.judge).get(url).json()["status"] == "draft"
    assert client_for(f.judge).get(url + "pairings/").json()["count"] == 4


def test_standings_with_tiebreakers(event_after_round_3, client_for):
    f = event_after_round_3
    body = client_for().get(f"{API}/{f.event.pk}/standings/").json()
    expected = services.compute_standings(f.event)
    assert body["profile"] == "mtr"
    assert body["rounds"] == 3
    assert body["tiebreak_names"] == [
        "opponents_match_win_pct",
        "game_win_pct",
        "opponents_game_win_pct",
    ]
    assert len(body["rows"]) == 8
    for row, line in zip(body["rows"], expected.rows, strict=True):
        assert row == {
            "rank": line.rank,
            "registration": line.registration.pk,
            "name": line.registration.player.username,
            "match_points": line.match_points,
            "wins": line.wins,
            "losses": line.losses,
            "draws": line.draws,
            "byes": line.byes,
            "dropped": line.dropped,
            "missed_rounds": 0,
            "tiebreakers": line.tiebreakers,
            # a Swiss-only event: placing is the rank, no top-cut result
            "placing": line.rank,
            "top_cut_result": None,
        }
    dropped = next(row for row in body["rows"] if row["registration"] == f.registrations[7].pk)
    assert dropped["dropped"] is True


def test_match_detail_and_hidden_round_match(event_after_round_3, client_for):
    f = event_after_round_3
    match = f.rounds[2].matches.order_by("table").first()
    body = client_for().get(f"{API}/{f.event.pk}/matches/{match.pk}/").json()
    assert (body["id"], body["round"], body["status"]) == (match.pk, 3, "confirmed")


def test_draft_event_is_hidden(organizer, crossover, outsider, judge, client_for):
    draft = new_event(organizer, crossover, name="Secret League")
    for user in (None, outsider):
        client = client_for(user)
        assert client.get(f"{API}/").json()["count"] == 0
        for path in ("", "registrations/", "rounds/", "standings/"):
            assert error_of(client.get(f"{API}/{draft.pk}/{path}")) == (404, "not_found")
    names = [e["name"] for e in client_for(organizer).get(f"{API}/").json()["results"]]
    assert names == ["Secret League"]
    assert client_for(organizer).get(f"{API}/{draft.pk}/").json()["state"] == "draft"
