"""Rulings and errata through the service functions: validation and kept history."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.db.models import ProtectedError

from rules import services
from rules.models import (
    Erratum,
    ErratumRevision,
    RevisionAction,
    Ruling,
    RulingRevision,
    RulingStatus,
)
from rules.selectors import cards_with_rules, current_card_text
from tests.factories import CardFactory, CardSetFactory, GameFactory, PrintingFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def card(game):
    card = CardFactory(game=game, name="森原 さとみ")
    PrintingFactory(card=card, set=CardSetFactory(game=game), text="printed text")
    return card


def new_ruling(game, **fields):
    return Ruling(**{"game": game, "question": "Q?", "answer": "A.", **fields})


def test_creating_a_ruling_writes_a_created_revision(game, card, judge, crossover_rules):
    section = crossover_rules.sections.get(number_key="4-3-8")
    ruling = services.save_ruling(
        new_ruling(game, source="FAQ", date=dt.date(2002, 5, 1)),
        by=judge,
        cards=[card],
        sections=[section],
    )
    revision = RulingRevision.objects.get()
    assert (revision.ruling, revision.object_id) == (ruling, ruling.pk)
    assert (revision.action, revision.changed_by, revision.before) == (
        RevisionAction.CREATED,
        judge,
        None,
    )
    assert revision.after["cards"] == [f"森原 さとみ (#{card.pk})"]
    assert revision.after["sections"] == [
        f"4−3−8 ひとつのカードに対して効果等が複数ある場合の処理 (#{section.pk})"
    ]
    assert revision.after["date"] == "2002-05-01"
    # The search text holds the card's name and the section's number, folded.
    ruling.refresh_from_db()
    assert "森原さとみ" in ruling.search_text
    assert "4-3-8" in ruling.search_text


def test_changing_a_ruling_keeps_before_and_after(game, card, judge):
    ruling = services.save_ruling(new_ruling(game), by=judge)
    ruling.answer = "Another answer."
    services.save_ruling(ruling, by=judge, cards=[card])
    latest = RulingRevision.objects.order_by("-id").first()
    assert latest.action == RevisionAction.CHANGED
    assert latest.changed_fields() == ["answer", "cards"]
    assert (latest.before["answer"], latest.after["answer"]) == ("A.", "Another answer.")
    assert RulingRevision.objects.count() == 2


def test_saving_without_a_change_writes_no_revision(game, judge):
    ruling = services.save_ruling(new_ruling(game), by=judge)
    services.save_ruling(ruling, by=judge)
    assert RulingRevision.objects.count() == 1


def test_superseding_a_ruling(game, judge):
    old = services.save_ruling(new_ruling(game), by=judge)
    replacement = services.save_ruling(new_ruling(game, question="Q2?"), by=judge)
    services.supersede_ruling(old, by=judge, replacement=replacement)
    old.refresh_from_db()
    assert (old.status, old.superseded_by) == (RulingStatus.SUPERSEDED, replacement)
    latest = RulingRevision.objects.filter(object_id=old.pk).order_by("-id").first()
    assert latest.changed_fields() == ["status", "superseded_by"]
    # The replacement cannot be deleted while it replaces another ruling.
    with pytest.raises(ProtectedError):
        services.delete_ruling(replacement, by=judge)


@pytest.mark.parametrize(
    ("fields", "error_field"),
    [
        ({"status": RulingStatus.SUPERSEDED}, "superseded_by"),
        ({"status": RulingStatus.OFFICIAL, "superseded_by_id": "other"}, "status"),
        ({"status": RulingStatus.SUPERSEDED, "superseded_by_id": "other-game"}, "superseded_by"),
    ],
)
def test_invalid_superseded_states_are_refused(game, judge, fields, error_field):
    other = services.save_ruling(new_ruling(game), by=judge)
    other_game = services.save_ruling(new_ruling(GameFactory(slug="mc", name="MC")), by=judge)
    ids = {"other": other.pk, "other-game": other_game.pk}
    if "superseded_by_id" in fields:
        fields = {**fields, "superseded_by_id": ids[fields["superseded_by_id"]]}
    with pytest.raises(ValidationError) as error:
        services.save_ruling(new_ruling(game, **fields), by=judge)
    assert error_field in error.value.message_dict
    assert Ruling.objects.count() == 2


def test_deleting_a_ruling_keeps_its_history(game, judge):
    ruling = services.save_ruling(new_ruling(game), by=judge)
    ruling_id = ruling.pk
    services.delete_ruling(ruling, by=judge)
    assert not Ruling.objects.exists()
    revisions = RulingRevision.objects.filter(object_id=ruling_id).order_by("id")
    assert [r.action for r in revisions] == [RevisionAction.CREATED, RevisionAction.DELETED]
    assert revisions[1].before["question"] == "Q?"
    assert revisions[1].after is None
    assert all(r.ruling is None for r in revisions)


def test_current_card_text_is_the_latest_erratum(card, judge, django_assert_num_queries):
    assert current_card_text(card) == "printed text"
    services.save_erratum(
        Erratum(card=card, date=dt.date(2002, 4, 1), new_text="first fix"), by=judge
    )
    services.save_erratum(
        Erratum(card=card, date=dt.date(2002, 6, 1), new_text="second fix"), by=judge
    )
    services.save_erratum(
        Erratum(card=card, date=dt.date(2002, 5, 1), new_text="entered late"), by=judge
    )
    loaded = cards_with_rules().get(pk=card.pk)
    with django_assert_num_queries(0):
        assert current_card_text(loaded) == "second fix"


def test_erratum_history(card, judge):
    erratum = services.save_erratum(
        Erratum(card=card, date=dt.date(2002, 4, 1), new_text="fix"), by=judge
    )
    erratum.new_text = "better fix"
    services.save_erratum(erratum, by=judge)
    erratum_id = erratum.pk
    services.delete_erratum(erratum, by=judge)
    revisions = ErratumRevision.objects.filter(object_id=erratum_id).order_by("id")
    assert [r.action for r in revisions] == ["created", "changed", "deleted"]
    assert (revisions[1].before["new_text"], revisions[1].after["new_text"]) == (
        "fix",
        "better fix",
    )
    assert current_card_text(card) == "printed text"


def test_history_without_a_signed_in_user(game):
    services.save_ruling(new_ruling(game), by=None)
    assert RulingRevision.objects.get().changed_by is None
