"""The audit log as the staff read it, on every page that shows it (the event's audit
log, the dashboard's latest entries, the player page): sentences and values in the
reader's language, never the stored codes; one time zone, named once; staff only."""

import re
from html import unescape

import pytest
from django.urls import reverse
from django.utils import timezone

from tournaments.audit_texts import ACTIONS
from tournaments.models import AuditEntry, Match, Registration

from ..test_audit import Log, play_whole_event

pytestmark = pytest.mark.django_db

# Stored values that must never reach a reader (choices' values, game endings).
RAW_VALUES = ["hp_zero", "game_loss", "top_cut", "registration_open", "time_extended"]


@pytest.fixture
def whole_event(organizer, judge, crossover, make_players):
    return play_whole_event(Log(), organizer, judge, crossover, make_players)


def visible_text(response) -> str:
    """What a reader sees of the page's main part: no tags, no attribute values."""
    body = response.content.decode()
    body = body[body.index("<main") :]
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", body)))


def audit_url(event):
    return reverse("tournaments:audit_log", args=[event.pk])


def assert_no_codes(text: str):
    for action in ACTIONS:
        assert action not in text
    for value in RAW_VALUES:
        assert value not in text
    assert not re.search(r"\b[a-z]+\.[a-z_]+\b", text), re.search(r"\b[a-z]+\.[a-z_]+\b", text)


def test_japanese_audit_log_reads_as_sentences_without_codes(client_for, whole_event, organizer):
    response = client_for(organizer).get(audit_url(whole_event), HTTP_ACCEPT_LANGUAGE="ja")
    assert response.status_code == 200
    text = visible_text(response)
    assert_no_codes(text)
    for sentence in (
        "大会を作成",
        "judgeをスタッフに追加",
        "player001が参加登録",
        "第1ラウンドを公開",
        "第1ラウンドの対戦表を作り直し",
        "第1ラウンドの対戦表を編集",
        "第1ラウンド 1番テーブルの結果をスタッフが変更",
        "決勝トーナメントを作成（第2ラウンド）",
        "大会を終了",
    ):
        assert sentence in text, sentence
    assert "ゲームロス（ペナルティ）" in text
    assert "ペナルティ: ゲームロス" in text
    # one time zone, named once
    assert text.count("Asia/Tokyo") == 1
    assert "時刻はAsia/Tokyoです。" in text


def test_english_audit_log_names_tables_and_players(client_for, whole_event, organizer):
    text = visible_text(client_for(organizer).get(audit_url(whole_event)))
    assert_no_codes(text)
    edited = AuditEntry.objects.get(event=whole_event, action="round.pairing_edited")
    ((table, (first, second)),) = edited.after["tables"].items()
    names = dict(
        Registration.objects.filter(pk__in=[first, second]).values_list("pk", "player__username")
    )
    assert (
        f"Table {table}: {names[second]} – {names[first]} → {names[first]} – {names[second]}"
        in (re.sub(r"\s+", " ", text))
    )
    assert "Reason: slip shows 2-0" in text
    assert "Times in Asia/Tokyo." in text


def test_every_time_on_the_page_is_in_the_sites_zone(client_for, whole_event, organizer):
    body = client_for(organizer).get(audit_url(whole_event)).content.decode()
    newest = AuditEntry.objects.filter(event=whole_event).first()
    local = timezone.localtime(newest.created_at)
    assert local.utcoffset().total_seconds() == 9 * 3600
    stamp = re.escape(local.strftime("%Y-%m-%dT%H:%M:%S"))
    assert re.search(f'<time datetime="{stamp}(\\.\\d+)?\\+09:00">', body)
    assert local.strftime("%Y-%m-%d %H:%M") in body
    assert "+00:00" not in body
    assert "UTC" not in body


def test_dashboard_and_player_page_show_the_same_sentences(client_for, whole_event, organizer):
    client = client_for(organizer)
    dashboard = client.get(
        reverse("tournaments:dashboard", args=[whole_event.pk]), HTTP_ACCEPT_LANGUAGE="ja"
    )
    text = visible_text(dashboard)
    assert "大会を終了" in text
    for action in ACTIONS:
        assert action not in text
    penalised = (
        Match.objects.filter(round__event=whole_event, round__number=1).order_by("table")[0].player2
    )
    page = client.get(
        reverse("tournaments:player_detail", args=[whole_event.pk, penalised.pk]),
        HTTP_ACCEPT_LANGUAGE="ja",
    )
    text = visible_text(page)
    name = penalised.player.username
    assert f"{name}が参加登録" in text
    assert f"{name}へのゲームロス" in text
    assert "マッチの結果: 結果: — → プレイヤー1の勝ち" in text
    assert_no_codes(text.split("監査ログ")[-1])


def test_audit_log_is_refused_to_outsiders_players_and_anonymous(client_for, whole_event, outsider):
    url = audit_url(whole_event)
    player = Registration.objects.filter(event=whole_event).first().player
    assert client_for(outsider).get(url).status_code == 403
    assert client_for(player).get(url).status_code == 403
    anonymous = client_for().get(url)
    assert anonymous.status_code == 302
    assert anonymous["Location"] == f"/accounts/login/?next={url}"


def test_a_whole_event_page_costs_a_bounded_number_of_queries(
    client_for, whole_event, organizer, django_assert_max_num_queries
):
    client = client_for(organizer)
    client.get(audit_url(whole_event))
    # session, user, event, staff row, registration, filter choices, count, page; then one
    # query per kind of id in the data: users, players, matches, formats
    with django_assert_max_num_queries(12):
        assert client.get(audit_url(whole_event)).status_code == 200
