"""The report form's live preview: the engine's outcome of each game and the match record,
for the match's players and the staff, saving nothing."""

import pytest
from django.urls import reverse

from tournaments import services
from tournaments.models import AuditEntry, Match, ResultReport, StaffRole

from .test_player import running  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def preview(client, event, match, data):
    url = reverse("tournaments:result_preview", args=[event.pk, match.pk])
    return client.post(url, {"expected_version": match.version, **data})


def hp_zero(number, loser_seat):
    hp = ["0", "5"] if loser_seat == 1 else ["5", "0"]
    return {f"game{number}_end": "hp_zero", f"game{number}_hp1": hp[0], f"game{number}_hp2": hp[1]}


def test_preview_shows_each_game_and_the_record(client_for, running):  # noqa: F811
    event, match, player1, player2, _ = running
    before = (AuditEntry.objects.count(), ResultReport.objects.count(), match.version)
    data = {**hp_zero(1, 2), **hp_zero(2, 1), **hp_zero(3, 2)}
    response = preview(client_for(player2), event, match, data)
    assert response.status_code == 200
    body = response.content.decode()
    # From the side of player 2, who fills it in.
    name1 = player1.username
    assert "<li>Game 1: you lost — your HP reached 0</li>" in body
    assert f"<li>Game 2: you won — {name1}&#x27;s HP reached 0</li>" in body
    assert "<li>Game 3: you lost — your HP reached 0</li>" in body
    assert "This makes: You lost 1–2" in body
    match.refresh_from_db()
    assert (AuditEntry.objects.count(), ResultReport.objects.count(), match.version) == before
    assert match.status == "pending"


def test_preview_of_a_time_draw(client_for, running):  # noqa: F811
    event, match, player1, _, _ = running
    data = {"game1_end": "time", "game1_hp1": "3", "game1_hp2": "4"}
    body = preview(client_for(player1), event, match, data).content.decode()
    assert "<li>Game 1: drawn — time ran out</li>" in body
    assert "This makes: Drawn 0–0–1" in body


def test_preview_names_the_engine_error(client_for, running):  # noqa: F811
    event, match, player1, _, _ = running
    data = {"game1_end": "hp_zero", "game1_hp1": "4", "game1_hp2": "4"}
    body = preview(client_for(player1), event, match, data).content.decode()
    assert (
        "These games do not make a result yet: Game 1: The ending says a player&#x27;s HP "
        "reached 0, but neither HP is 0."
    ) in body
    assert "This makes" not in body


def test_preview_error_in_japanese(client_for, running):  # noqa: F811
    event, match, player1, _, _ = running
    client = client_for(player1)
    client.cookies["django_language"] = "ja"
    data = {"game1_end": "hp_zero", "game1_hp1": "4", "game1_hp2": "4"}
    body = preview(client, event, match, data).content.decode()
    assert "第1ゲーム" in body
    assert "ending" not in body


def test_preview_with_no_game_is_empty(client_for, running):  # noqa: F811
    event, match, player1, _, _ = running
    response = preview(client_for(player1), event, match, {})
    assert response.status_code == 200
    assert response.content.decode().strip() == ""


def test_staff_may_preview(client_for, running, judge, organizer):  # noqa: F811
    event, match, _, _, _ = running
    services.add_staff(event, actor=organizer, user=judge, role=StaffRole.JUDGE)
    body = preview(client_for(judge), event, match, hp_zero(1, 2)).content.decode()
    name1, name2 = (match.player1.player.username, match.player2.player.username)
    assert f"<li>Game 1: {name1} won — {name2}&#x27;s HP reached 0</li>" in body
    assert f"This makes: {name1} won 1–0 against {name2}" in body


def test_outsiders_and_other_players_are_refused(client_for, running, outsider):  # noqa: F811
    event, match, _, _, registrations = running
    other = next(r for r in registrations if r.pk not in (match.player1_id, match.player2_id))
    for user in (outsider, other.player):
        assert preview(client_for(user), event, match, hp_zero(1, 2)).status_code == 403
    anonymous = preview(client_for(), event, match, hp_zero(1, 2))
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/accounts/login/")


def test_preview_is_post_only(client_for, running):  # noqa: F811
    event, match, player1, _, _ = running
    url = reverse("tournaments:result_preview", args=[event.pk, match.pk])
    assert client_for(player1).get(url).status_code == 405


def test_report_form_asks_for_the_preview(client_for, running):  # noqa: F811
    event, match, player1, _, _ = running
    body = client_for(player1).get(reverse("tournaments:my_match", args=[event.pk])).content
    url = reverse("tournaments:result_preview", args=[event.pk, match.pk])
    assert f'hx-post="{url}"'.encode() in body
    assert f'id="result-preview-{match.pk}"'.encode() in body
    assert Match.objects.get(pk=match.pk).version == match.version
