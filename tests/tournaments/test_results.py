"""tournaments.services.results: report, confirm, dispute, override; the compare-and-swap
on the match version; the engine's adjudication of the games."""

import pytest

from tournaments import services
from tournaments.models import AuditEntry, Match, MatchStatus, ResultReport, RoundStage

from .factories import games_for, hp_win, open_event, play_round, play_top_cut_round, register_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(organizer, judge, crossover, make_players):
    """Round 1 of a four-player event, published; ``match`` is table 1."""
    event = open_event(organizer, crossover, swiss_rounds=2)
    services.add_staff(event, actor=organizer, user=judge, role="judge")
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    services.publish_round(round_, actor=organizer)
    match = Match.objects.select_related("player1__player", "player2__player").get(
        round=round_, table=1
    )
    return event, round_, match


def result_actions():
    return list(
        AuditEntry.objects.filter(object_type="match")
        .order_by("id")
        .values_list("action", "object_version")
    )


def test_report_then_confirm(published):
    _event, _round, match = published
    p1, p2 = match.player1.player, match.player2.player
    reported = services.report_result(match, actor=p1, games=games_for("2-1"), expected_version=1)
    reported = Match.objects.get(pk=match.pk)
    assert (reported.status, reported.record_text, reported.outcome) == (
        MatchStatus.REPORTED,
        "2-1-0",
        "player1",
    )
    assert reported.reported_by == match.player1
    assert reported.version == 2
    assert [g["end"] for g in reported.games] == ["hp_zero"] * 3
    confirmed = services.confirm_result(reported, actor=p2, expected_version=2)
    assert (confirmed.status, confirmed.version) == (MatchStatus.CONFIRMED, 3)
    assert list(
        ResultReport.objects.order_by("match_version").values_list(
            "kind", "match_version", "reporter"
        )
    ) == [("report", 2, p1.pk), ("confirm", 3, p2.pk)]
    assert result_actions() == [("match.reported", 2), ("match.confirmed", 3)]
    entry = AuditEntry.objects.get(action="match.reported")
    assert entry.before["status"] == "pending"
    assert entry.after["record"] == "2-1-0"


def test_player_2_may_report_and_player_1_confirms(published):
    _event, _round, match = published
    p1, p2 = match.player1.player, match.player2.player
    services.report_result(match, actor=p2, games=games_for("0-2"), expected_version=1)
    confirmed = services.confirm_result(match, actor=p1, expected_version=2)
    assert (confirmed.outcome, confirmed.record_text) == ("player2", "0-2-0")


def test_report_with_a_stale_version_is_a_conflict(published):
    _event, _round, match = published
    p1, p2 = match.player1.player, match.player2.player
    services.report_result(match, actor=p1, games=games_for("2-0"), expected_version=1)
    with pytest.raises(services.Conflict) as raised:
        services.report_result(match, actor=p2, games=games_for("0-2"), expected_version=1)
    assert raised.value.code == "stale_version"
    assert raised.value.details == {"current_version": 2}
    stored = Match.objects.get(pk=match.pk)
    assert (stored.record_text, stored.version) == ("2-0-0", 2)
    assert ResultReport.objects.count() == 1
    assert result_actions() == [("match.reported", 2)]


def test_the_opponent_cannot_report_over_a_report(published):
    _event, _round, match = published
    p1, p2 = match.player1.player, match.player2.player
    services.report_result(match, actor=p1, games=games_for("2-0"), expected_version=1)
    with pytest.raises(services.InvalidState) as raised:
        services.report_result(match, actor=p2, games=games_for("0-2"), expected_version=2)
    assert raised.value.code == "already_reported"


def test_the_reporter_may_correct_until_answered(published):
    _event, _round, match = published
    p1, p2 = match.player1.player, match.player2.player
    services.report_result(match, actor=p1, games=games_for("2-0"), expected_version=1)
    services.report_result(match, actor=p1, games=games_for("2-1"), expected_version=2)
    assert Match.objects.get(pk=match.pk).record_text == "2-1-0"
    services.confirm_result(match, actor=p2, expected_version=3)
    with pytest.raises(services.InvalidState) as raised:
        services.report_result(match, actor=p1, games=games_for("2-0"), expected_version=4)
    assert raised.value.code == "result_final"


def test_the_reporter_cannot_confirm_their_own_report(published):
    _event, _round, match = published
    p1 = match.player1.player
    services.report_result(match, actor=p1, games=games_for("2-0"), expected_version=1)
    with pytest.raises(services.NotAllowed) as raised:
        services.confirm_result(match, actor=p1, expected_version=2)
    assert raised.value.code == "own_report"
    assert Match.objects.get(pk=match.pk).status == MatchStatus.REPORTED


def test_confirm_without_a_report_is_refused(published):
    _event, _round, match = published
    with pytest.raises(services.InvalidState) as raised:
        services.confirm_result(match, actor=match.player2.player, expected_version=1)
    assert (raised.value.code, raised.value.details) == ("not_reported", {"current": "pending"})


def test_outsiders_and_other_players_cannot_report(published, outsider):
    _event, round_, match = published
    other = Match.objects.select_related("player1__player").get(round=round_, table=2)
    for actor in (outsider, other.player1.player):
        with pytest.raises(services.NotAllowed) as raised:
            services.report_result(match, actor=actor, games=games_for("2-0"), expected_version=1)
        assert raised.value.code == "not_participant"
    assert ResultReport.objects.count() == 0


def test_report_refused_before_publication_and_after_closing(organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=2)
    register_all(event, make_players(2))
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)
    match = Match.objects.select_related("player1__player").get(round=round_)
    with pytest.raises(services.InvalidState) as raised:
        services.report_result(
            match, actor=match.player1.player, games=games_for("2-0"), expected_version=1
        )
    assert raised.value.code == "round_not_published"
    services.publish_round(round_, actor=organizer)
    services.override_result(match, actor=organizer, expected_version=1, record="2-0", reason="x")
    services.close_round(round_, actor=organizer)
    with pytest.raises(services.InvalidState) as raised:
        services.confirm_result(match, actor=match.player1.player, expected_version=2)
    assert raised.value.code == "round_closed"


@pytest.mark.parametrize(
    ("games", "engine_code"),
    [
        ([{"end": "hp_zero", "hp": [10, 10]}], "no_hp_zero"),
        ([{"end": "hp_zero", "hp": [0, 0]}], "both_hp_zero"),
        ([hp_win(1), hp_win(1), hp_win(1)], "game_after_decided"),
        ([{"end": "hp_zero", "hp": [40, 0]}], "hp_above_maximum"),
        ([{"end": "concession"}], "concession_missing"),
        ([], "no_games"),
    ],
)
def test_impossible_games_are_refused_with_the_engine_code(published, games, engine_code):
    _event, _round, match = published
    with pytest.raises(services.InvalidResult) as raised:
        services.report_result(match, actor=match.player1.player, games=games, expected_version=1)
    assert raised.value.code == "invalid_result"
    assert raised.value.engine_code == engine_code
    stored = Match.objects.get(pk=match.pk)
    assert (stored.status, stored.version) == (MatchStatus.PENDING, 1)
    assert AuditEntry.objects.filter(object_type="match").count() == 0


@pytest.mark.parametrize(
    "games",
    ["2-0", [{"end": "nap"}], [{"end": "time", "hp": [1, 2, 3]}], [{"end": "time", "x": 1}], [1]],
)
def test_malformed_games_are_refused(published, games):
    _event, _round, match = published
    with pytest.raises(services.InvalidInput) as raised:
        services.report_result(match, actor=match.player1.player, games=games, expected_version=1)
    assert raised.value.code == "games_malformed"


def test_dispute_then_a_judge_decides(published, judge):
    _event, _round, match = published
    p1, p2 = match.player1.player, match.player2.player
    services.report_result(match, actor=p1, games=games_for("2-0"), expected_version=1)
    with pytest.raises(services.InvalidInput) as raised:
        services.dispute_result(match, actor=p2, expected_version=2, reason="")
    assert raised.value.code == "reason_required"
    disputed = services.dispute_result(
        match, actor=p2, expected_version=2, reason="I won game 2", games=games_for("2-1")[::-1]
    )
    assert (disputed.status, disputed.record_text) == (MatchStatus.DISPUTED, "2-0-0")
    dispute = ResultReport.objects.get(kind="dispute")
    # The dispute keeps the disputer's own account: their games and the record they make.
    assert (dispute.reason, dispute.record) == ("I won game 2", "2-1-0")
    assert len(dispute.games) == 3
    with pytest.raises(services.InvalidState) as raised:
        services.report_result(match, actor=p1, games=games_for("2-0"), expected_version=3)
    assert raised.value.code == "disputed"
    final = services.override_result(
        match, actor=judge, expected_version=3, games=games_for("2-1"), reason="both agree now"
    )
    assert (final.status, final.record_text, final.version) == (MatchStatus.FINAL, "2-1-0", 4)
    assert result_actions() == [
        ("match.reported", 2),
        ("match.disputed", 3),
        ("match.overridden", 4),
    ]
    entry = AuditEntry.objects.get(action="match.overridden")
    assert (entry.actor, entry.reason) == (judge, "both agree now")
    assert entry.before["record"] == "2-0-0"
    assert entry.after["record"] == "2-1-0"


def test_override_as_a_record_for_an_intentional_draw(published, organizer):
    _event, _round, match = published
    final = services.override_result(
        match, actor=organizer, expected_version=1, record="0-0-3", reason="intentional draw"
    )
    assert (final.outcome, final.record_text, final.games) == ("draw", "0-0-3", [])


def test_override_refusals(published, organizer, outsider):
    _event, _round, match = published
    with pytest.raises(services.NotAllowed) as raised:
        services.override_result(
            match, actor=match.player1.player, expected_version=1, record="2-0", reason="x"
        )
    assert raised.value.code == "not_staff"
    with pytest.raises(services.NotAllowed):
        services.override_result(
            match, actor=outsider, expected_version=1, record="2-0", reason="x"
        )
    with pytest.raises(services.InvalidInput) as raised:
        services.override_result(
            match, actor=organizer, expected_version=1, record="2-0", reason=""
        )
    assert raised.value.code == "reason_required"
    with pytest.raises(services.InvalidInput) as raised:
        services.override_result(match, actor=organizer, expected_version=1, reason="x")
    assert raised.value.code == "games_or_record"
    with pytest.raises(services.InvalidResult) as raised:
        services.override_result(
            match, actor=organizer, expected_version=1, record="3-0", reason="x"
        )
    assert raised.value.engine_code == "game_after_decided"
    bye = Match.objects.filter(round=match.round, player2=None).first()
    if bye is not None:
        with pytest.raises(services.InvalidState):
            services.override_result(
                bye, actor=organizer, expected_version=1, record="2-0", reason="x"
            )
    assert Match.objects.get(pk=match.pk).version == 1


def test_override_in_a_closed_swiss_round_while_swiss_runs(organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=2)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    round_1 = play_round(event, organizer)
    match = Match.objects.get(round=round_1, table=1)
    fixed = services.override_result(
        match, actor=organizer, expected_version=match.version, record="0-2", reason="slip error"
    )
    assert (fixed.outcome, fixed.status) == ("player2", MatchStatus.FINAL)


def test_top_cut_needs_a_winner(organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=1, top_cut_size=2)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    final = services.generate_top_cut(event, actor=organizer)
    services.publish_round(final, actor=organizer)
    match = Match.objects.select_related("player1__player").get(round=final)
    assert final.stage == RoundStage.TOP_CUT
    with pytest.raises(services.InvalidResult) as raised:  # equal HP at time: a judge decides
        services.report_result(
            match, actor=match.player1.player, games=games_for("1-1-1"), expected_version=1
        )
    assert raised.value.engine_code == "undecided_game"
    simultaneous = {"end": "simultaneous", "hp": [0, 0]}
    with pytest.raises(services.InvalidResult) as raised:
        services.report_result(
            match,
            actor=match.player1.player,
            games=[hp_win(1), hp_win(2), simultaneous],
            expected_version=1,
        )
    assert raised.value.engine_code == "winner_required"
    # Time with more HP wins in the top cut (its default policy): a game, not a draw.
    services.report_result(
        match,
        actor=match.player1.player,
        games=[hp_win(1), hp_win(2), {"end": "time", "hp": [8, 3]}],
        expected_version=1,
    )
    assert Match.objects.get(pk=match.pk).record_text == "2-1-0"


def test_closed_top_cut_results_cannot_change(organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=1, top_cut_size=2)
    register_all(event, make_players(2))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    final = play_top_cut_round(services.generate_top_cut(event, actor=organizer), organizer)
    match = Match.objects.get(round=final)
    with pytest.raises(services.InvalidState) as raised:
        services.override_result(
            match, actor=organizer, expected_version=match.version, record="0-2", reason="x"
        )
    assert raised.value.code == "round_closed"


def test_every_engine_refusal_has_a_page_text():
    """Each code the engine raises for games or records has a translatable page text."""
    import re
    from pathlib import Path

    from tournaments.engine import games
    from tournaments.result_texts import ENGINE_TEXTS

    source = Path(games.__file__).read_text(encoding="utf-8")
    codes = set(re.findall(r'Invalid(?:GameReport|MatchRecord)\(\s*"([a-z_]+)"', source))
    codes |= {f"{what}_missing" for what in ("hp", "deck")}  # built by _require
    assert codes - set(ENGINE_TEXTS) == set()


# --- a record from the reporter's side (one tap) -----------------------------------------


def test_report_a_record_from_player_2s_side(published):
    _event, _round, match = published
    p1, p2 = match.player1.player, match.player2.player
    services.report_result(match, actor=p2, record="2-1", expected_version=1)
    stored = Match.objects.get(pk=match.pk)
    # Player 2 won 2-1: stored from player 1's side, without games.
    assert (stored.status, stored.record_text, stored.outcome, stored.games) == (
        MatchStatus.REPORTED,
        "1-2-0",
        "player2",
        [],
    )
    assert stored.reported_by == match.player2
    report = ResultReport.objects.get()
    assert (report.kind, report.record, report.games, report.reporter) == (
        "report",
        "1-2-0",
        [],
        p2,
    )
    entry = AuditEntry.objects.get(action="match.reported")
    assert (entry.after["record"], entry.object_version) == ("1-2-0", 2)
    confirmed = services.confirm_result(stored, actor=p1, expected_version=2)
    assert (confirmed.status, confirmed.record_text) == (MatchStatus.CONFIRMED, "1-2-0")


def test_report_a_record_from_player_1s_side(published):
    _event, _round, match = published
    services.report_result(match, actor=match.player1.player, record="1-0-1", expected_version=1)
    stored = Match.objects.get(pk=match.pk)
    assert (stored.record_text, stored.outcome) == ("1-0-1", "player1")


def test_a_record_replaces_the_reported_games(published):
    _event, _round, match = published
    p1 = match.player1.player
    services.report_result(match, actor=p1, games=games_for("2-1"), expected_version=1)
    services.report_result(match, actor=p1, record="1-1-1", expected_version=2)
    stored = Match.objects.get(pk=match.pk)
    assert (stored.record_text, stored.outcome, stored.games) == ("1-1-1", "draw", [])


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [({}, "games_or_record"), ({"games": [], "record": "2-0"}, "games_or_record")],
)
def test_report_needs_games_or_a_record(published, kwargs, code):
    _event, _round, match = published
    with pytest.raises(services.InvalidInput) as raised:
        services.report_result(match, actor=match.player1.player, expected_version=1, **kwargs)
    assert raised.value.code == code
    assert Match.objects.get(pk=match.pk).version == 1


@pytest.mark.parametrize(
    ("record", "engine_code"),
    [("3-0", "game_after_decided"), ("2-2", "too_many_games"), ("0-0", "no_games")],
)
def test_report_refuses_an_impossible_record(published, record, engine_code):
    _event, _round, match = published
    with pytest.raises(services.InvalidResult) as raised:
        services.report_result(match, actor=match.player1.player, record=record, expected_version=1)
    assert raised.value.engine_code == engine_code
    assert AuditEntry.objects.filter(object_type="match").count() == 0


def test_report_refuses_an_unreadable_record(published):
    _event, _round, match = published
    with pytest.raises(services.InvalidResult) as raised:
        services.report_result(match, actor=match.player1.player, record="two", expected_version=1)
    assert raised.value.engine_code == "unreadable"
    with pytest.raises(services.InvalidInput) as raised:
        services.report_result(match, actor=match.player1.player, record=[2, 1], expected_version=1)
    assert raised.value.code == "record_malformed"


def test_report_a_record_with_a_stale_version_is_a_conflict(published):
    _event, _round, match = published
    p1, p2 = match.player1.player, match.player2.player
    services.report_result(match, actor=p1, record="2-0", expected_version=1)
    with pytest.raises(services.Conflict) as raised:
        services.report_result(match, actor=p1, record="2-1", expected_version=1)
    assert (raised.value.code, raised.value.details) == ("stale_version", {"current_version": 2})
    with pytest.raises(services.InvalidState) as raised:
        services.report_result(match, actor=p2, record="2-0", expected_version=2)
    assert raised.value.code == "already_reported"
    stored = Match.objects.get(pk=match.pk)
    assert (stored.record_text, stored.version) == ("2-0-0", 2)
    assert ResultReport.objects.count() == 1


def test_outsiders_cannot_report_a_record(published, outsider):
    _event, round_, match = published
    other = Match.objects.select_related("player1__player").get(round=round_, table=2)
    for actor in (outsider, other.player1.player):
        with pytest.raises(services.NotAllowed) as raised:
            services.report_result(match, actor=actor, record="2-0", expected_version=1)
        assert raised.value.code == "not_participant"
    assert ResultReport.objects.count() == 0


def _game_loss(match, judge, seat):
    """A judge gives the player in ``seat`` a game loss in ``match``."""
    registration = match.player1 if seat == 1 else match.player2
    services.issue_penalty(
        registration, actor=judge, kind="game_loss", infraction="Tardiness", match=match
    )
    return Match.objects.select_related("player1__player", "player2__player").get(pk=match.pk)


def test_a_record_must_include_the_penalty_game(published, judge):
    _event, _round, match = published
    match = _game_loss(match, judge, seat=2)  # player 1 is 1-0 up before playing
    assert (match.record_text, match.version) == ("1-0-0", 2)
    p2 = match.player2.player
    with pytest.raises(services.InvalidResult) as raised:  # 2-0 for player 2: no 1-0 in it
        services.report_result(match, actor=p2, record="2-0", expected_version=2)
    assert raised.value.engine_code == "record_below_fixed_games"
    assert Match.objects.get(pk=match.pk).version == 2
    services.report_result(match, actor=p2, record="2-1", expected_version=2)
    stored = Match.objects.get(pk=match.pk)
    assert (stored.record_text, stored.outcome) == ("1-2-0", "player2")
    # The penalty game stays with the match; the record stands for the rest.
    assert [game["end"] for game in stored.games] == ["penalty"]


def test_a_record_from_the_penalised_players_opponent(published, judge):
    _event, _round, match = published
    match = _game_loss(match, judge, seat=2)
    services.report_result(match, actor=match.player1.player, record="2-0", expected_version=2)
    assert Match.objects.get(pk=match.pk).record_text == "2-0-0"


def test_top_cut_refuses_a_drawn_record(organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=1, top_cut_size=2)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    final = services.generate_top_cut(event, actor=organizer)
    services.publish_round(final, actor=organizer)
    match = Match.objects.select_related("player1__player", "player2__player").get(round=final)
    for record in ("1-1-1", "0-0-3", "1-1"):
        with pytest.raises(services.InvalidResult) as raised:
            services.report_result(
                match, actor=match.player2.player, record=record, expected_version=1
            )
        assert raised.value.engine_code == "winner_required"
    services.report_result(match, actor=match.player2.player, record="2-1", expected_version=1)
    assert Match.objects.get(pk=match.pk).outcome == "player2"


def test_dispute_with_the_disputers_own_record(published):
    _event, _round, match = published
    p1, p2 = match.player1.player, match.player2.player
    services.report_result(match, actor=p1, record="2-0", expected_version=1)
    disputed = services.dispute_result(
        match, actor=p2, expected_version=2, reason="I won game 2", record="1-2"
    )
    # The match keeps the report until a judge decides; the dispute keeps player 2's
    # claim (they lost 1-2, so 2-1 from player 1's side).
    assert (disputed.status, disputed.record_text) == (MatchStatus.DISPUTED, "2-0-0")
    dispute = ResultReport.objects.get(kind="dispute")
    assert (dispute.record, dispute.games, dispute.reporter) == ("2-1-0", [], p2)


def test_dispute_with_games_and_a_record_is_refused(published):
    _event, _round, match = published
    p1, p2 = match.player1.player, match.player2.player
    services.report_result(match, actor=p1, record="2-0", expected_version=1)
    with pytest.raises(services.InvalidInput) as raised:
        services.dispute_result(
            match, actor=p2, expected_version=2, reason="x", games=games_for("2-1"), record="1-2"
        )
    assert raised.value.code == "games_or_record"
    with pytest.raises(services.InvalidResult) as raised:
        services.dispute_result(match, actor=p2, expected_version=2, reason="x", record="3-0")
    assert raised.value.engine_code == "game_after_decided"
    assert Match.objects.get(pk=match.pk).status == MatchStatus.REPORTED


def test_dispute_without_an_account_keeps_the_reported_record(published):
    _event, _round, match = published
    p1, p2 = match.player1.player, match.player2.player
    services.report_result(match, actor=p1, record="2-1", expected_version=1)
    services.dispute_result(match, actor=p2, expected_version=2, reason="Wrong table")
    assert ResultReport.objects.get(kind="dispute").record == "2-1-0"
