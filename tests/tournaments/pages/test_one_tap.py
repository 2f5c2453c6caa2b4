"""The match page and one-tap reporting: a result chosen from the reporter's own side and
confirmed with one more tap, the opponent's one-tap confirmation, every text from the
reader's side, who may see and do what, and the page's query count."""

import re
from html import unescape

import pytest
from django.urls import reverse

from tests.tournaments.factories import open_event, play_round, register_all
from tournaments import services
from tournaments.models import AuditEntry, Event, Match, MatchStatus, ResultReport, StaffRole

from .test_player import running  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

LINK = re.compile(r'<a class="button[^"]*" href="([^"]+)"[^>]*>([^<]+)</a>')
FORM = re.compile(r'<form method="post" action="([^"]+)"[^>]*>(.*?)</form>', re.S)
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
BUTTON = re.compile(r'<button type="submit"[^>]*>([^<]+)</button>')


def page_of(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def link_to(body: str, label: str) -> str:
    """The href of the button-link labelled ``label``."""
    links = {unescape(text): unescape(href) for href, text in LINK.findall(body)}
    assert label in links, sorted(links)
    return links[label]


def form_with_button(body: str, label: str) -> tuple[str, dict]:
    """The action and hidden fields of the form whose submit button says ``label``."""
    for action, inner in FORM.findall(body):
        if label in [unescape(text) for text in BUTTON.findall(inner)]:
            return unescape(action), dict(HIDDEN.findall(inner))
    raise AssertionError(f"no form with a button {label!r}")


def match_url(event, match) -> str:
    return reverse("tournaments:match", args=[event.pk, match.pk])


def main_of(body: str) -> str:
    return body[body.index("<main") : body.index("</main>")]


# --- the 2-1 win in three requests, the one-tap confirmation --------------------------------


def test_a_2_1_win_is_reported_in_three_requests(client_for, running):  # noqa: F811
    event, match, player1, player2, _ = running
    reporter = client_for(player2)  # player 2: the record must be turned to player 1's side
    requests = 0

    body = page_of(reporter, match_url(event, match))  # 1: open the match page
    requests += 1
    assert "Report the result" in body
    body = page_of(reporter, link_to(body, "2–1 win"))  # 2: tap "2–1 win"
    requests += 1
    action, fields = form_with_button(body, "Report 2–1 win")
    response = reporter.post(action, fields)  # 3: tap "Report 2–1 win"
    requests += 1

    assert requests <= 3
    assert response.status_code == 302
    assert response["Location"] == match_url(event, match)
    stored = Match.objects.get(pk=match.pk)
    assert (stored.status, stored.record_text, stored.outcome, stored.reported_by_id) == (
        MatchStatus.REPORTED,
        "1-2-0",
        "player2",
        match.player2_id,
    )
    assert AuditEntry.objects.filter(action="match.reported", object_id=match.pk).count() == 1
    after = page_of(reporter, response["Location"])
    assert f"Reported: 2–1 win. {player1.username} now confirms or disputes it." in after
    assert "<strong>You won 2–1</strong>" in after
    assert f"You reported this result. Waiting for {player1.username} to confirm it." in after
    assert "Correct your report" in after


def test_the_opponent_reads_their_loss_and_confirms_in_one_post(client_for, running):  # noqa: F811
    event, match, player1, player2, _ = running
    services.report_result(match, actor=player2, record="2-1", expected_version=1)
    opponent = client_for(player1)
    body = page_of(opponent, match_url(event, match))
    assert "<strong>You lost 1–2</strong>" in body
    assert f"{player2.username} reported this result: confirm it or dispute it." in body
    action, fields = form_with_button(body, "Confirm: you lost 1–2")

    response = opponent.post(action, fields)  # the one tap

    assert response.status_code == 302
    assert response["Location"] == match_url(event, match)
    stored = Match.objects.get(pk=match.pk)
    assert (stored.status, stored.version) == (MatchStatus.CONFIRMED, 3)
    after = page_of(opponent, response["Location"])
    assert "Result confirmed." in after
    assert '<span class="badge badge--ok">Confirmed</span>' in after
    assert "Confirm:" not in after
    assert "Report the result" not in after


def test_the_opponent_sees_each_reported_game_from_their_side(client_for, running):  # noqa: F811
    event, match, player1, player2, _ = running
    games = [
        {"end": "hp_zero", "hp": [0, 4]},  # player 2 wins
        {"end": "concession", "conceded": [False, True]},  # player 1 wins
        {"end": "deck_empty", "deck": [0, 9]},  # player 2 wins
    ]
    services.report_result(match, actor=player2, games=games, expected_version=1)
    body = page_of(client_for(player1), match_url(event, match))
    assert '<ol class="game-lines">' in body
    lines = re.findall(r"<li>(Game \d: [^<]+)</li>", unescape(body))
    assert lines == [
        "Game 1: you lost — your HP reached 0",
        f"Game 2: you won — {player2.username} conceded",
        "Game 3: you lost — your deck ran out",
    ]
    reporter = unescape(page_of(client_for(player2), match_url(event, match)))
    assert f"Game 1: you won — {player1.username}'s HP reached 0" in reporter
    assert "Game 2: you lost — you conceded" in reporter
    assert "<strong>You won 2–1</strong>" in reporter


def test_spectators_read_the_result_from_the_winners_side(client_for, running, outsider):  # noqa: F811
    event, match, player1, player2, registrations = running
    services.report_result(match, actor=player2, record="2-0", expected_version=1)
    services.confirm_result(match, actor=player1, expected_version=2)
    other = next(r for r in registrations if r.pk not in (match.player1_id, match.player2_id))
    expected = f"<strong>{player2.username} won 2–0 against {player1.username}</strong>"
    for viewer in (None, outsider, other.player):
        body = page_of(client_for(viewer), match_url(event, match))
        assert expected in body
        assert f"{player1.username} vs {player2.username}" in body
        assert "You won" not in body
        assert "Report the result" not in body
        assert "Confirm:" not in body


def test_a_draw_reads_the_same_to_both_players(client_for, running):  # noqa: F811
    event, match, player1, player2, _ = running
    services.report_result(match, actor=player1, record="1-1-1", expected_version=1)
    for player in (player1, player2):
        assert "<strong>Drawn 1–1–1</strong>" in page_of(
            client_for(player), match_url(event, match)
        )
    body = page_of(client_for(player2), match_url(event, match))
    assert "Confirm: drawn 1–1–1" in body
    spectator = page_of(client_for(), match_url(event, match))
    assert f"{player1.username} and {player2.username} drew 1–1–1" in spectator


# --- the choices ----------------------------------------------------------------------------


def test_the_choices_from_the_reporters_side(client_for, running):  # noqa: F811
    event, match, player1, _, _ = running
    body = page_of(client_for(player1), match_url(event, match))
    labels = [unescape(text) for _href, text in LINK.findall(body)]
    choices = [label for label in labels if label.endswith(("win", "loss")) or "Draw" in label]
    assert choices == [
        "2–0 win",
        "2–1 win",
        "1–0 win",
        "2–0–1 win",
        "1–0–1 win",
        "1–0–2 win",
        "Draw 1–1–1",
        "Draw 0–0–3",
        "Draw 1–1",
        "Draw 0–0–2",
        "Draw 0–0–1",
        "0–2 loss",
        "1–2 loss",
        "0–1 loss",
        "0–2–1 loss",
        "0–1–1 loss",
        "0–1–2 loss",
    ]
    assert body.count('class="choice-grid choice-grid--') == 3


def test_a_top_cut_offers_no_draw(client_for, organizer, crossover, make_players):
    event = open_event(organizer, crossover, swiss_rounds=1, top_cut_size=2)
    register_all(event, make_players(4))
    services.start_event(event, actor=organizer)
    play_round(event, organizer)
    final = services.generate_top_cut(event, actor=organizer)
    services.publish_round(final, actor=organizer)
    match = Match.objects.select_related("player1__player").get(round=final)
    body = page_of(client_for(match.player1.player), match_url(event, match))
    assert "2–1 win" in body
    assert "Draw" not in body
    assert "choice-grid--draw" not in body
    # A drawn record posted anyway is refused with the page's text.
    client = client_for(match.player1.player)
    response = client.post(
        reverse("tournaments:report_result", args=[event.pk, match.pk]),
        {"record": "1-1-1", "expected_version": 1},
    )
    assert response.status_code == 302
    body = page_of(client, response["Location"])
    assert "This match needs a winner: play a deciding game or let a judge decide." in body
    assert Match.objects.get(pk=match.pk).status == MatchStatus.PENDING


@pytest.mark.parametrize("choice", ["3-0-0", "2-1-5", "9" * 30, "nonsense", ""])
def test_an_unknown_choice_shows_no_report_button(client_for, running, choice):  # noqa: F811
    event, match, player1, _, _ = running
    body = page_of(client_for(player1), match_url(event, match) + f"?report={choice}")
    assert "Report 2" not in body
    assert "Choose another result" not in body
    assert "2–1 win" in body  # the choices instead


def test_a_choice_without_its_draws_reads_as_none_drawn(client_for, running):  # noqa: F811
    event, match, player1, _, _ = running
    body = page_of(client_for(player1), match_url(event, match) + "?report=2-1")
    _action, fields = form_with_button(body, "Report 2–1 win")
    assert fields["record"] == "2-1-0"


def test_a_stale_one_tap_report_says_so(client_for, running):  # noqa: F811
    event, match, player1, player2, _ = running
    body = page_of(client_for(player1), match_url(event, match) + "?report=2-0-0")
    action, fields = form_with_button(body, "Report 2–0 win")
    services.report_result(match, actor=player2, record="2-0", expected_version=1)
    client = client_for(player1)
    response = client.post(action, fields)
    assert response.status_code == 302
    after = page_of(client, response["Location"])
    assert "Someone else changed this match first." in after
    assert Match.objects.get(pk=match.pk).record_text == "0-2-0"


# --- the game-by-game path ------------------------------------------------------------------


def test_game_by_game_is_the_secondary_path(client_for, running):  # noqa: F811
    event, match, player1, _, _ = running
    body = page_of(client_for(player1), match_url(event, match))
    assert '<details class="match-games-form"' in body
    assert "<summary>Report game by game</summary>" in body
    assert 'data-timeout-policy="draw"' in body
    assert '<p data-needs="hp">' in body


def test_game_by_game_asks_no_numbers_an_ending_does_not_need(client_for, running):  # noqa: F811
    event, match, player1, _, _ = running
    url = reverse("tournaments:report_result", args=[event.pk, match.pk])
    data = {
        "expected_version": 1,
        # a Swiss time-out is a draw: no HP needed
        "game1_end": "time",
        # a concession needs no number; HP 0 left over from another ending is not sent
        "game2_end": "concession",
        "game2_conceded": "2",
        "game2_hp2": "0",
        "game2_deck1": "0",
    }
    response = client_for(player1).post(url, data)
    assert response.status_code == 302
    stored = Match.objects.get(pk=match.pk)
    assert (stored.record_text, stored.games) == (
        "1-0-1",
        [
            {
                "end": "time",
                "hp": [None, None],
                "deck": [None, None],
                "conceded": [False, False],
                "penalized": [False, False],
            },
            {
                "end": "concession",
                "hp": [None, None],
                "deck": [None, None],
                "conceded": [False, True],
                "penalized": [False, False],
            },
        ],
    )


# --- the dispute ----------------------------------------------------------------------------


def test_the_opponent_disputes_with_their_own_result(client_for, running):  # noqa: F811
    event, match, player1, player2, _ = running
    services.report_result(match, actor=player2, record="2-0", expected_version=1)
    body = page_of(client_for(player1), match_url(event, match))
    assert 'name="record" value="2-1-0"> 2–1 win' in body
    url = reverse("tournaments:dispute_result", args=[event.pk, match.pk])
    client = client_for(player1)
    response = client.post(
        url, {"expected_version": 2, "reason": "I won game 2 and 3", "record": "2-1-0"}
    )
    assert response.status_code == 302
    assert response["Location"] == match_url(event, match)
    dispute = ResultReport.objects.get(match=match, kind="dispute")
    assert (dispute.reason, dispute.record) == ("I won game 2 and 3", "2-1-0")
    after = page_of(client, response["Location"])
    assert "Result disputed: a judge will come to your table." in after
    assert "The result is disputed: a judge will decide." in after


def test_a_dispute_without_a_reason_is_refused(client_for, running):  # noqa: F811
    event, match, player1, player2, _ = running
    services.report_result(match, actor=player2, record="2-0", expected_version=1)
    client = client_for(player1)
    response = client.post(
        reverse("tournaments:dispute_result", args=[event.pk, match.pk]), {"expected_version": 2}
    )
    assert "Give a reason for the dispute." in page_of(client, response["Location"])
    assert Match.objects.get(pk=match.pk).status == MatchStatus.REPORTED


# --- who may see and do what ----------------------------------------------------------------


@pytest.fixture
def other_event_player(organizer, crossover, make_players):
    """A player registered in another event."""
    other = open_event(organizer, crossover, name="Summer Open")
    (player,) = make_players(1, prefix="summer")
    register_all(other, [player])
    return player


def test_anyone_who_may_see_the_round_sees_the_match(client_for, running, outsider):  # noqa: F811
    event, match, *_ = running
    for viewer in (None, outsider):
        assert client_for(viewer).get(match_url(event, match)).status_code == 200


def test_a_draft_rounds_match_is_for_staff_only(
    client_for, organizer, judge, outsider, crossover, make_players
):
    event = open_event(organizer, crossover, swiss_rounds=2)
    services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    players = make_players(4)
    register_all(event, players)
    services.start_event(event, actor=organizer)
    round_ = services.generate_round(event, actor=organizer)  # a draft
    match = Match.objects.select_related("player1__player").get(round=round_, table=1)
    url = match_url(event, match)
    for viewer in (None, outsider, match.player1.player):
        assert client_for(viewer).get(url).status_code == 404
    for viewer in (organizer, judge):
        body = page_of(client_for(viewer), url)
        assert "Enter or override the result" in body
        assert "Report the result" not in body


def test_a_match_of_another_event_is_404(client_for, running, other_event_player):  # noqa: F811
    _event, match, player1, *_ = running
    summer = Event.objects.get(name="Summer Open")
    url = reverse("tournaments:match", args=[summer.pk, match.pk])
    assert client_for(player1).get(url).status_code == 404


ACTIONS = {
    "report_result": {"record": "2-0-0", "expected_version": "1"},
    "confirm_result": {"expected_version": "2"},
    "dispute_result": {"expected_version": "2", "reason": "Wrong"},
}


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_outsiders_cannot_act_on_the_match(
    client_for,
    running,  # noqa: F811
    outsider,
    other_event_player,
    name,
):
    event, match, _player1, player2, registrations = running
    if name != "report_result":
        services.report_result(match, actor=player2, record="2-0", expected_version=1)
    before = Match.objects.get(pk=match.pk).version
    url = reverse(f"tournaments:{name}", args=[event.pk, match.pk])
    anonymous = client_for().post(url, ACTIONS[name])
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/accounts/login/")
    other = next(r for r in registrations if r.pk not in (match.player1_id, match.player2_id))
    for user in (outsider, other.player, other_event_player):
        assert client_for(user).post(url, ACTIONS[name]).status_code == 403
    assert Match.objects.get(pk=match.pk).version == before


@pytest.mark.parametrize("name", ["confirm_result", "dispute_result"])
def test_the_reporter_cannot_answer_their_own_report(client_for, running, name):  # noqa: F811
    event, match, _player1, player2, _ = running
    services.report_result(match, actor=player2, record="2-0", expected_version=1)
    url = reverse(f"tournaments:{name}", args=[event.pk, match.pk])
    assert client_for(player2).post(url, ACTIONS[name]).status_code == 403
    assert Match.objects.get(pk=match.pk).status == MatchStatus.REPORTED
    # and sees no confirm button, only their own report to correct
    body = page_of(client_for(player2), match_url(event, match))
    assert "Confirm:" not in body
    assert "Correct your report" in body


def test_the_opponent_cannot_report_over_a_report(client_for, running):  # noqa: F811
    event, match, player1, player2, _ = running
    services.report_result(match, actor=player2, record="2-0", expected_version=1)
    body = page_of(client_for(player1), match_url(event, match))
    assert "Report the result" not in body
    client = client_for(player1)
    response = client.post(
        reverse("tournaments:report_result", args=[event.pk, match.pk]),
        {"record": "2-0-0", "expected_version": 2},
    )
    after = page_of(client, response["Location"])
    assert "Your opponent reported: confirm or dispute their result." in after
    assert Match.objects.get(pk=match.pk).record_text == "0-2-0"


def test_match_page_only_answers_get(client_for, running):  # noqa: F811
    event, match, player1, *_ = running
    assert client_for(player1).post(match_url(event, match)).status_code == 405


# --- "my match" shows the same body ---------------------------------------------------------


def test_my_match_shows_the_match_body(client_for, running):  # noqa: F811
    event, match, player1, player2, _ = running
    services.report_result(match, actor=player2, record="2-1", expected_version=1)
    mine = main_of(page_of(client_for(player1), reverse("tournaments:my_match", args=[event.pk])))
    own = main_of(page_of(client_for(player1), match_url(event, match)))
    # the same but for the per-render CSRF token and the server's clock
    strip = re.compile(r'value="[A-Za-z0-9]{64}"|data-server-now="[^"]*"')
    block = re.compile(r'<div id="match-\d+".*?</section>\s*</div>', re.S)
    assert strip.sub("", block.search(mine).group()) == strip.sub("", block.search(own).group())
    assert f'data-live="{reverse("tournaments:live", args=[event.pk])}"' in mine
    assert "Confirm: you lost 1–2" in mine


# --- queries --------------------------------------------------------------------------------


@pytest.mark.parametrize("viewer", ["anonymous", "player", "opponent"])
def test_match_page_query_count(
    client_for,
    running,  # noqa: F811
    django_assert_num_queries,
    viewer,
):
    event, match, player1, player2, _ = running
    services.report_result(
        match,
        actor=player1,
        games=[{"end": "hp_zero", "hp": [5, 0]}, {"end": "hp_zero", "hp": [0, 5]}],
        expected_version=1,
    )
    user = {"anonymous": None, "player": player1, "opponent": player2}[viewer]
    client = client_for(user)
    client.get(match_url(event, match))  # warm the session
    # the event with the viewer's access, the match with its round and players; signed
    # in, the session and the user; for the player who may report again, the game's end
    # rules for the report form
    expected = {"anonymous": 2, "player": 5, "opponent": 4}[viewer]
    with django_assert_num_queries(expected):
        assert client.get(match_url(event, match)).status_code == 200
