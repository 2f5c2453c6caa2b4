"""How each game's games end, as data of the game (``cardpool.Game``), and result entry
checked against the event's game (issue #13, "Other games"): a Monster Collection event
never asks for HP (seed 001 has none), a Cross Universe event takes life points above 30
(seed 003: no upper limit), a CrossOver event still refuses HP 31 (rulebook 1−4)."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from cardpool.builtin import BUILTIN_FILE, end_rules_fields, load_builtin_games
from cardpool.models import Game
from decks.models import Format
from tests.decks.conftest import LEGAL_DECK, cards, crossover, formats, sets  # noqa: F401
from tests.factories import CardFactory, GameFactory
from tests.tournaments.conftest import make_players, organizer  # noqa: F401
from tests.tournaments.factories import games_for, open_event, register_all
from tournaments import services
from tournaments.engine.games import DeckOut, GameEnd, GameEndRules, TimeTiebreak
from tournaments.forms import ReportResultForm
from tournaments.models import Match

pytestmark = pytest.mark.django_db

SPECS = {spec["slug"]: spec for spec in json.loads(BUILTIN_FILE.read_text())["games"]}
MC_DECK = "\n".join([*(f"3 モンコレ{i:02d}" for i in range(1, 17)), "2 モンコレ17"])
CU_DECK = "4 クロユニ01\n4 クロユニ02\n"


def with_shipped_rules(slug: str, name: str) -> Game:
    """The game with the end rules builtin_games.json gives it."""
    game = GameFactory(slug=slug, name=name)
    Game.objects.filter(pk=game.pk).update(**end_rules_fields(SPECS[slug]))
    game.refresh_from_db()
    return game


def live_match(organizer, fmt, players, deck):  # noqa: F811
    event = open_event(organizer, fmt, swiss_rounds=2)
    register_all(event, players, deck_text=deck)
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    match = Match.objects.select_related("player1__player", "player2__player").get(
        round=round_, table=1
    )
    return event, round_, match


@pytest.fixture
def monster_collection(formats, organizer, make_players):  # noqa: F811
    game = with_shipped_rules("monster-collection", "Monster Collection TCG")
    for number in range(1, 18):
        CardFactory(game=game, name=f"モンコレ{number:02d}")
    return live_match(organizer, formats["monster-collection"], make_players(4), MC_DECK)


@pytest.fixture
def cross_universe(formats, organizer, make_players):  # noqa: F811
    game = with_shipped_rules("cross-universe", "Cross Universe")
    for number in (1, 2):
        CardFactory(game=game, name=f"クロユニ{number:02d}")
    fmt = Format.objects.create(game=game, slug="cross-universe-test", name="Cross Universe")
    return live_match(organizer, fmt, make_players(4, prefix="cu"), CU_DECK)


@pytest.fixture
def crossover_match(crossover, organizer, make_players):  # noqa: F811
    with_shipped_rules("crossover", "CrossOver The F&C TCG")
    return live_match(organizer, crossover, make_players(4, prefix="co"), LEGAL_DECK)


def refused_code(match, games) -> tuple[str, str]:
    with pytest.raises(services.InvalidResult) as raised:
        services.report_result(
            match, actor=match.player1.player, games=games, expected_version=match.version
        )
    return raised.value.engine_code, raised.value.message


# --- the data: built-in games ----------------------------------------------------------------


def test_load_builtin_games_creates_games_with_their_end_rules():
    games = load_builtin_games().games
    co, mc = games["crossover"], games["monster-collection"]
    cu, asura = games["cross-universe"], games["asura-system"]
    assert (co.hp_tracked, co.max_hp, co.deck_out) == (True, 30, "empty")
    assert co.time_tiebreak == "more_hp"
    assert co.end_rules_sources["max_hp"].startswith("Basic Rules v2.02 1−4")
    assert (mc.hp_tracked, mc.max_hp, mc.hp_zero_loses, mc.deck_out) == (False, None, False, "none")
    assert (cu.hp_tracked, cu.max_hp, cu.deck_out, cu.time_tiebreak) == (True, None, "draw", "none")
    assert (asura.hp_tracked, asura.deck_out) == (False, "empty")
    for game in games.values():
        game.full_clean()


def test_load_builtin_games_keeps_an_organizers_edit():
    load_builtin_games()
    Game.objects.filter(slug="cross-universe").update(max_hp=8000)
    load_builtin_games()
    assert Game.objects.get(slug="cross-universe").max_hp == 8000


@pytest.mark.parametrize("slug", ["crossover", "monster-collection", "cross-universe"])
def test_game_end_rules_data_builds_the_engine_rules(slug):
    game = load_builtin_games().games[slug]
    rules = GameEndRules(**game.end_rules_data())
    shipped = SPECS[slug]["end_rules"]
    assert rules.game == SPECS[slug]["name"]
    assert (rules.hp_tracked, rules.max_hp) == (shipped["hp_tracked"], shipped["max_hp"])
    assert rules.deck_out is DeckOut(shipped["deck_out"])
    assert rules.time_tiebreak is TimeTiebreak(shipped["time_tiebreak"])
    assert dict(rules.sources) == shipped["sources"]


def test_asura_system_rules_cite_2_5_and_call_2_3_an_assumption():
    asura = load_builtin_games().games["asura-system"]
    assert "2−5 (4)" in asura.end_rules_sources["hp"]
    assert asura.end_rules_sources["deck_out"].startswith("assumption:")


def test_a_new_game_starts_with_crossovers_rules():
    game = Game.objects.create(slug="new-game", name="New game")
    assert GameEndRules(**game.end_rules_data()).endings == set(GameEnd)
    assert game.max_hp == 30


# --- validation of the data ------------------------------------------------------------------


def test_clean_refuses_hp_rules_without_hp():
    game = Game(slug="no-hp", name="No HP", hp_tracked=False)  # other fields: CrossOver's
    with pytest.raises(ValidationError) as raised:
        game.full_clean()
    assert raised.value.message_dict == {
        "max_hp": ["Needs “players have HP”."],
        "hp_zero_loses": ["Needs “players have HP”."],
        "time_tiebreak": ["Needs “players have HP”."],
    }


def test_clean_refuses_a_maximum_of_zero():
    with pytest.raises(ValidationError) as raised:
        Game(slug="zero", name="Zero", max_hp=0).full_clean()
    assert list(raised.value.message_dict) == ["max_hp"]


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        (
            {"life": "x"},
            "“life” is not a rule of a game's end; use one of hp, max_hp, hp_zero, deck_out, "
            "time_tiebreak.",
        ),
        ({"max_hp": 30}, "The source of “max_hp” must be a text."),
        (["1−4"], "Give an object such as {“max_hp”: “Basic Rules v2.02 1−4”}."),
    ],
)
def test_clean_refuses_bad_sources(sources, message):
    with pytest.raises(ValidationError) as raised:
        Game(slug="src", name="Sources", end_rules_sources=sources).full_clean()
    assert raised.value.message_dict == {"end_rules_sources": [message]}


def test_a_game_without_hp_and_its_rules_is_valid():
    Game(
        slug="plain",
        name="Plain",
        hp_tracked=False,
        max_hp=None,
        hp_zero_loses=False,
        deck_out="none",
        time_tiebreak="none",
        end_rules_sources={"hp": "assumption: none"},
    ).full_clean()


# --- result entry: services ------------------------------------------------------------------


def test_monster_collection_result_refuses_hp_it_does_not_have(monster_collection):
    _event, _round, match = monster_collection
    code, message = refused_code(match, [{"end": "time", "hp": [45, 3]}])
    assert code == "hp_not_tracked"
    assert message.startswith("game 1: player 1: HP 45, but players have no HP in this game")
    assert "Monster Collection TCG: assumption: seed 001" in message


def test_monster_collection_result_refuses_a_crossover_ending(monster_collection):
    _event, _round, match = monster_collection
    code, message = refused_code(match, games_for("2-0"))  # HP-zero endings
    assert code == "end_not_in_game"
    assert message.startswith("game 1: a game does not end by 'hp_zero' in this game")


def test_monster_collection_result_without_hp_is_stored(monster_collection):
    _event, _round, match = monster_collection
    games = [
        {"end": "concession", "conceded": [False, True]},
        {"end": "time"},
        {"end": "concession", "conceded": [False, True]},
    ]
    reported = services.report_result(
        match, actor=match.player1.player, games=games, expected_version=1
    )
    assert (reported.record_text, reported.outcome, reported.version) == ("2-0-1", "player1", 2)


def test_monster_collection_preview_goes_through_the_same_rules(monster_collection):
    event, round_, _match = monster_collection
    outcomes, record = services.preview_result(
        event, round_, [{"end": "concession", "conceded": [True, False]}]
    )
    assert [str(outcome) for outcome in outcomes] == ["player2"]
    assert str(record) == "0-1-0"
    with pytest.raises(services.InvalidResult) as raised:
        services.preview_result(event, round_, [{"end": "deck_empty", "deck": [0, 4]}])
    assert raised.value.engine_code == "end_not_in_game"


def test_cross_universe_result_accepts_life_points_crossover_refuses(cross_universe):
    _event, _round, match = cross_universe
    games = [{"end": "hp_zero", "hp": [45, 0]}, {"end": "hp_zero", "hp": [8000, 0]}]
    reported = services.report_result(
        match, actor=match.player1.player, games=games, expected_version=1
    )
    assert reported.record_text == "2-0-0"
    assert [game["hp"] for game in reported.games] == [[45, 0], [8000, 0]]


def test_crossover_result_still_refuses_hp_31_citing_rule_1_4(crossover_match):
    _event, _round, match = crossover_match
    code, message = refused_code(match, [{"end": "hp_zero", "hp": [31, 0]}])
    assert code == "hp_above_maximum"
    assert message == (
        "game 1: player 1: HP 31 is above the maximum 30 (CrossOver The F&C TCG: Basic Rules "
        "v2.02 1−4 (an HP counter counts 1 to 30); wiki summary 002 (starting and maximum HP "
        "30))"
    )
    assert Match.objects.get(pk=match.pk).version == 1


def test_game_end_rules_costs_one_query(crossover_match, django_assert_num_queries):
    event, _round, _match = crossover_match
    event = type(event).objects.get(pk=event.pk)
    with django_assert_num_queries(1):
        rules = services.results.game_end_rules(event)
    assert rules.max_hp == 30
    loaded = type(event).objects.select_related("format__game").get(pk=event.pk)
    with django_assert_num_queries(0):
        services.results.game_end_rules(loaded)


# --- result entry: API -----------------------------------------------------------------------


def test_api_report_with_hp_in_a_monster_collection_event_is_refused(monster_collection):
    event, _round, match = monster_collection
    client = APIClient()
    client.force_login(match.player1.player)
    response = client.post(
        f"/api/v1/events/{event.pk}/matches/{match.pk}/report/",
        {"games": [{"end": "time", "hp": [45, 3]}], "expected_version": 1},
        format="json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_result"
    assert body["details"]["engine_code"] == "hp_not_tracked"
    assert "seed 001" in body["message"]


def test_api_report_with_life_points_in_a_cross_universe_event(cross_universe):
    event, _round, match = cross_universe
    client = APIClient()
    client.force_login(match.player1.player)
    response = client.post(
        f"/api/v1/events/{event.pk}/matches/{match.pk}/report/",
        {"games": [{"end": "hp_zero", "hp": [0, 45]}] * 2, "expected_version": 1},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["record"] == "0-2-0"


# --- result entry: the form ------------------------------------------------------------------


def form_for(event, data=None):
    rules = services.results.game_end_rules(event)
    return ReportResultForm(data, player1="Ann", player2="Bob", end_rules=rules)


def test_monster_collection_form_asks_no_hp_and_offers_its_endings(monster_collection):
    event, _round, _match = monster_collection
    form = form_for(event)
    assert not [name for name in form.fields if "_hp" in name]
    assert [value for value, _label in form.fields["game1_end"].choices] == [
        "",
        "time",
        "concession",
    ]
    assert form.game_rows()[0]["hp"] == ()


def test_crossover_form_caps_hp_at_30(crossover_match):
    event, _round, _match = crossover_match
    data = {"expected_version": 1, "game1_end": "hp_zero", "game1_hp1": 31, "game1_hp2": 0}
    form = form_for(event, data)
    assert not form.is_valid()
    assert form.errors["game1_hp1"] == ["Ensure this value is less than or equal to 30."]
    assert [value for value, _label in form.fields["game1_end"].choices] == [
        "",
        "hp_zero",
        "deck_empty",
        "simultaneous",
        "time",
        "concession",
    ]


def test_cross_universe_form_takes_hp_above_30(cross_universe):
    event, _round, _match = cross_universe
    data = {"expected_version": 1, "game1_end": "hp_zero", "game1_hp1": 45, "game1_hp2": 0}
    form = form_for(event, data)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["games"] == [{"end": "hp_zero", "hp": [45, 0]}]


# --- the admin -------------------------------------------------------------------------------


def test_admin_edits_a_games_end_rules(admin_client):
    game = load_builtin_games().games["cross-universe"]
    url = reverse("admin:cardpool_game_change", args=[game.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    assert b'name="max_hp"' in page.content
    data = {
        "name": game.name,
        "slug": game.slug,
        "hp_tracked": "on",
        "max_hp": "8000",
        "hp_zero_loses": "on",
        "deck_out": "draw",
        "time_tiebreak": "none",
        "end_rules_sources": json.dumps({"max_hp": "organizer's event rules"}),
    }
    saved = admin_client.post(url, data)
    assert saved.status_code == 302
    game.refresh_from_db()
    assert (game.max_hp, game.end_rules_sources) == (8000, {"max_hp": "organizer's event rules"})


def test_admin_refuses_contradictory_end_rules_by_field(admin_client):
    game = load_builtin_games().games["monster-collection"]
    url = reverse("admin:cardpool_game_change", args=[game.pk])
    data = {
        "name": game.name,
        "slug": game.slug,
        "max_hp": "30",
        "deck_out": "none",
        "time_tiebreak": "more_hp",
        "end_rules_sources": "{}",
    }
    page = admin_client.post(url, data)
    assert page.status_code == 200
    errors = page.context["adminform"].form.errors
    assert errors == {
        "max_hp": ["Needs “players have HP”."],
        "time_tiebreak": ["Needs “players have HP”."],
    }
    game.refresh_from_db()
    assert game.max_hp is None


def test_admin_game_page_is_refused_to_outsiders(client, django_user_model):
    game = load_builtin_games().games["crossover"]
    outsider = django_user_model.objects.create_user("nobody", password="pw")
    client.force_login(outsider)
    response = client.get(reverse("admin:cardpool_game_change", args=[game.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_match_page_report_form_follows_the_events_game(
    client, monster_collection, crossover_match
):
    """The pages build the report form with the event's game's rules: a Monster Collection
    player is never asked for HP, a CrossOver player's HP is capped at 30 (rule 1−4)."""
    for (event, _round, match), has_hp in ((monster_collection, False), (crossover_match, True)):
        client.force_login(match.player1.player)
        url = reverse("tournaments:match", args=[event.pk, match.pk])
        body = client.get(url).content.decode()
        assert 'name="game1_end"' in body
        assert ('name="game1_hp1"' in body) is has_hp
        assert ('data-needs="hp"' in body) is has_hp
        if has_hp:
            assert 'name="game1_hp1" min="0" max="30"' in body
