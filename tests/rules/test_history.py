"""Ruling and erratum history, readable: the fields that changed with their labels, human
values, the removed and added parts of a text, in the site's time zone."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from rules import services
from rules.admin import format_changes
from rules.history import changed_fields, field_changes, text_diff
from rules.models import Erratum, Ruling, RulingRevision, RulingStatus
from tests.factories import CardFactory, GameFactory

# --- plain Python ------------------------------------------------------------------------------


def test_changed_fields_counts_a_missing_key_as_none():
    assert changed_fields({"a": 1, "b": None}, {"a": 2, "c": None}) == ["a"]
    assert changed_fields(None, {"a": 1}) == ["a"]
    assert changed_fields({"a": 1}, {"a": 1}) == []


def test_a_text_shows_where_it_changed_word_by_word_not_letter_by_letter():
    assert text_diff("はい。ターン中でも使えます。", "いいえ。ターン中には使えません。") == (
        ("removed", "はい"),
        ("added", "いいえ"),
        ("same", "。ターン中"),
        ("removed", "でも"),
        ("added", "には"),
        ("same", "使えま"),
        ("removed", "す"),
        ("added", "せん"),
        ("same", "。"),
    )
    # A Latin word is one unit.
    assert text_diff("The card is an event.", "The card is a character.") == (
        ("same", "The card is "),
        ("removed", "an event"),
        ("added", "a character"),
        ("same", "."),
    )


def test_a_long_text_is_compared_line_by_line():
    old = "\n".join(f"line {n}" for n in range(1000))
    new = old.replace("line 500", "line five hundred")
    assert text_diff(old, new) == (
        ("same", "\n".join(f"line {n}" for n in range(500)) + "\n"),
        ("removed", "line 500\n"),
        ("added", "line five hundred\n"),
        ("same", "\n".join(f"line {n}" for n in range(501, 1000))),
    )


def test_field_changes_in_the_models_order_with_lists_and_texts():
    before = {"answer": "Yes, the effect of the card applies on both turns.", "cards": ["A", "B"]}
    after = {
        "answer": "No, the effect of the card applies on its owner's turn.",
        "cards": ["B", "C"],
    }
    answer, cards = field_changes(before, after, order=["answer", "cards"])
    assert (answer.field, answer.kind) == ("answer", "text")
    assert ("removed", "Yes") in answer.pieces
    assert ("added", "No") in answer.pieces
    assert (cards.field, cards.kind, cards.removed, cards.added) == (
        "cards",
        "list",
        ("A",),
        ("C",),
    )
    short = field_changes({"status": "official"}, {"status": "community"})[0]
    assert (short.kind, short.before, short.after) == ("value", "official", "community")


# --- in the admin -------------------------------------------------------------------------------


@pytest.fixture
def judge_client(client, judge):
    client.force_login(judge)
    return client


@pytest.fixture
def ruling_with_history(db, judge):
    game = GameFactory()
    card = CardFactory(game=game, name="柴崎 拓也")
    ruling = services.save_ruling(
        Ruling(
            game=game,
            question="Q?",
            answer="Yes: the card is an event, so the effect applies.",
            status=RulingStatus.OFFICIAL,
            date=dt.date(2026, 11, 1),
        ),
        by=judge,
        cards=[card],
    )
    ruling.answer = "No: the card is a character, so the effect does not apply."
    ruling.status = RulingStatus.COMMUNITY
    ruling.date = dt.date(2026, 11, 20)
    services.save_ruling(ruling, by=judge, cards=[])
    return ruling, card


def test_a_revision_reads_with_labels_and_human_values(ruling_with_history):
    _ruling, card = ruling_with_history
    revision = RulingRevision.objects.filter(action="changed").get()
    with translation.override("ja"):
        html = format_changes(revision)
    assert html.startswith('<ul class="history-diff">')
    assert '<span class="history-field">回答</span>' in html
    answer = "<del>Yes</del><ins>No</ins>: the card is <del>an event</del><ins>a character</ins>"
    assert answer in html
    status = '<span class="history-field">状態</span>'
    assert f"{status} <del>公式</del> → <ins>コミュニティ</ins>" in html
    day = '<span class="history-field">日付</span>'
    assert f"{day} <del>2026年11月1日</del> → <ins>2026年11月20日</ins>" in html
    assert f'<span class="history-field">カード</span> <del>柴崎 拓也 (#{card.pk})</del>' in html
    # Only the fields that changed, in the form's order.
    assert html.index("回答") < html.index("日付") < html.index("状態") < html.index("カード")
    assert "質問" not in html


def test_a_deleted_erratum_shows_what_it_was(db, judge):
    card = CardFactory(name="清姫")
    erratum = services.save_erratum(
        Erratum(card=card, date=dt.date(2026, 1, 1), new_text="Draw a card."), by=judge
    )
    services.delete_erratum(erratum, by=judge)
    revision = erratum.revisions.model.objects.get(action="deleted")
    with translation.override("en"):
        html = format_changes(revision)
    assert '<span class="history-field">New text</span> <del>Draw a card.</del>' in html


def test_history_times_are_in_the_sites_time_zone_only(judge_client, ruling_with_history, settings):
    ruling, _card = ruling_with_history
    utc = dt.datetime(2026, 11, 25, 23, 18, tzinfo=dt.UTC)  # 08:18 on the 26th in Tokyo
    RulingRevision.objects.update(changed_at=utc)
    assert settings.TIME_ZONE == "Asia/Tokyo"
    body = judge_client.get(reverse("admin:rules_ruling_change", args=[ruling.pk])).content.decode()
    assert "2026-11-26 08:18" in body  # each revision's heading
    assert "Nov. 26, 2026, 8:18 a.m." in body  # the changed-at column
    assert "23:18" not in body
    assert "11:18 p.m." not in body
    local = timezone.localtime(utc)
    assert str(RulingRevision.objects.first()).endswith(f"{local:%Y-%m-%d %H:%M}")


def test_history_of_a_ruling_is_refused_to_outsiders(client, outsider, ruling_with_history):
    revision = RulingRevision.objects.first()
    url = reverse("admin:rules_rulingrevision_change", args=[revision.pk])
    assert client.get(url).status_code == 302
    client.force_login(outsider)
    response = client.get(url)
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_empty_values_are_no_change_and_a_rewrite_reads_old_to_new():
    created = field_changes(None, {"question": "Q?", "source": "", "cards": [], "date": None})
    assert [change.field for change in created] == ["question"]
    rewritten = field_changes({"answer": "Yes: 魔界 is an event."}, {"answer": "No."})[0]
    assert (rewritten.kind, rewritten.before, rewritten.after) == (
        "value",
        "Yes: 魔界 is an event.",
        "No.",
    )
    edited = field_changes(
        {"answer": "はい。相手のターン中でも使えます。"},
        {"answer": "いいえ。相手のターン中には使えません。"},
    )[0]
    assert edited.kind == "text"
    assert ("same", "。相手のターン中") in edited.pieces


def test_a_long_history_costs_no_more_queries_than_a_short_one(
    judge_client, ruling_with_history, judge
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    ruling, _card = ruling_with_history
    url = reverse("admin:rules_ruling_change", args=[ruling.pk])

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert judge_client.get(url).status_code == 200
        return len(captured)

    short = queries()
    for number in range(10):
        ruling.source = f"Judge meeting {number}"
        services.save_ruling(ruling, by=judge)
    assert RulingRevision.objects.filter(ruling=ruling).count() == 12
    assert queries() == short


@pytest.mark.usefixtures("ruling_with_history")
def test_the_list_of_revisions_says_what_each_was_about(judge_client):
    body = judge_client.get(reverse("admin:rules_rulingrevision_changelist")).content.decode()
    assert body.count('<td class="field-subject">Q?</td>') == 2
    assert 'class="column-subject"' in body
