"""decks.services: checking pasted lists against stored formats, storing decks, and the
re-check after a ban-list change."""

import datetime as dt

import pytest
from django.db import transaction
from django.utils import timezone

from decks import services
from decks.models import BanEntry, Deck, DeckCheck, DeckEntry, Format, RecheckJob
from tests.decks.conftest import BAN_DAY, BETA_DECK, DAY_BEFORE_BAN, LEGAL_DECK
from tests.factories import CardFactory, PrintingFactory

pytestmark = pytest.mark.django_db


def entry_rows(deck):
    return [
        (e.card.name, e.printing_set.code if e.printing_set_id else None, e.count, e.section)
        for e in deck.entries.select_related("card", "printing_set")
    ]


def test_check_text_beta_printing_banned_from_2002_04_01(crossover):
    report = services.check_text("3 狡猾フィーリア (β)", crossover, BAN_DAY)
    assert report.legal is False
    assert report.codes == ["DECK_TOO_SMALL", "BANNED"]
    banned = report.violations[1]
    assert banned.rule == "1−2−1"
    assert banned.cards == ("狡猾フィーリア",)
    assert banned.lines == (1,)
    assert banned.details == {"set": "beta"}
    assert banned.message_en == "狡猾フィーリア (βedition printing) is banned on 2002-04-01."
    assert banned.message_ja == "〔狡猾フィーリア〕（βedition版）は2002-04-01時点で禁止カードです。"


def test_check_text_beta_printing_legal_on_2002_03_31(crossover):
    report = services.check_text("3 狡猾フィーリア (β)", crossover, DAY_BEFORE_BAN)
    assert report.codes == ["DECK_TOO_SMALL"]
    full = services.check_text(BETA_DECK, crossover, DAY_BEFORE_BAN)
    assert full.legal is True
    assert (full.main_count, full.sideboard_count) == (50, 0)
    assert services.check_text(BETA_DECK, crossover, BAN_DAY).codes == ["BANNED"]


def test_check_text_other_printing_of_a_banned_name_stays_legal(crossover):
    report = services.check_text(LEGAL_DECK, crossover, BAN_DAY)
    assert report.legal is True
    assert report.violations == ()
    assert report.format == "crossover"
    assert report.format_version == 1
    assert report.by_type == {"CHARACTER": 8, "NAVIGATOR": 42}
    assert report.by_element == {"none": 4, "火": 4, "空": 42}


def test_check_text_card_names_follow_rule_4_2_6(crossover, game, sets):
    # Spacing and width do not make another card; another spelling of the reading does.
    manami = CardFactory(game=game, name="鳴瀬真奈美")
    PrintingFactory(card=manami, set=sets["first"])
    text = (
        "4 森原さとみ\n2 鳴瀬　真奈美\n44 スワティ\nサイドボード\n1 森原　さとみ\n2 ナルセマナミ\n"
    )
    report = services.check_text(text, crossover, BAN_DAY)
    assert report.codes == ["TOO_MANY_COPIES", "UNKNOWN_CARD"]
    copies, unknown = report.violations
    assert copies.cards == ("森原 さとみ",)
    assert copies.lines == (1, 5)
    assert copies.details == {"count": 5, "limit": 4}
    assert unknown.cards == ("ナルセマナミ",)
    assert unknown.lines == (6,)
    assert report.main_count == 50
    assert report.sideboard_count == 3


def test_save_deck_stores_entries_and_one_check(crossover, player, sets, cards):
    text = BETA_DECK + "\nサイドボード\n1 狡猾フィーリア [base]\n"
    deck, report = services.save_deck(
        owner=player, fmt=crossover, name="Fire", text=text, as_of=DAY_BEFORE_BAN
    )
    assert report.legal is True
    deck = Deck.objects.get()
    assert (deck.owner, deck.format, deck.name) == (player, crossover, "Fire")
    rows = list(
        DeckEntry.objects.filter(deck=deck).values_list(
            "card", "printing_set", "count", "section", "position"
        )
    )
    assert rows == [
        (cards["satomi"].pk, None, 4, "main", 0),
        (cards["feeria"].pk, sets["beta"].pk, 3, "main", 1),
        (cards["swati"].pk, None, 43, "main", 2),
        (cards["feeria"].pk, sets["base"].pk, 1, "side", 3),
    ]
    check = DeckCheck.objects.get()
    assert check.deck == deck
    assert check.format_version == 1
    assert check.as_of == DAY_BEFORE_BAN
    assert check.legal is True
    assert check.report["legal"] is True
    assert check.report["sideboard_count"] == 1


def test_save_deck_defaults_to_today(crossover, player):
    deck, report = services.save_deck(owner=player, fmt=crossover, name="Now", text=BETA_DECK)
    assert report.as_of == timezone.localdate()
    check = deck.checks.get()
    assert check.as_of == timezone.localdate()
    assert check.legal is False
    assert [v["code"] for v in check.report["violations"]] == ["BANNED"]


def test_save_deck_with_unknown_card_writes_nothing(crossover, player):
    with pytest.raises(services.DeckNotStorable) as raised:
        services.save_deck(
            owner=player, fmt=crossover, name="Bad", text="4 森原 さとみ\n3 存在しないカード\n"
        )
    assert [(v.code, v.lines) for v in raised.value.problems] == [("UNKNOWN_CARD", (2,))]
    assert Deck.objects.count() == 0
    assert DeckEntry.objects.count() == 0
    assert DeckCheck.objects.count() == 0


def test_save_deck_editing_with_unknown_card_keeps_the_old_deck(crossover, player):
    deck, _ = services.save_deck(owner=player, fmt=crossover, name="Kept", text=LEGAL_DECK)
    before = entry_rows(deck)
    with pytest.raises(services.DeckNotStorable) as raised:
        services.save_deck(
            owner=player,
            fmt=crossover,
            name="Renamed",
            text="4 森原 さとみ\n?? ??\n1 ナイカード (base)\n",
            deck=deck,
        )
    assert [(v.code, v.lines) for v in raised.value.problems] == [
        ("PARSE_ERROR", (2,)),
        ("UNKNOWN_CARD", (3,)),
    ]
    deck.refresh_from_db()
    assert deck.name == "Kept"
    assert entry_rows(deck) == before
    assert Deck.objects.count() == 1
    assert DeckEntry.objects.count() == 3
    assert DeckCheck.objects.count() == 1


def test_save_deck_editing_replaces_entries(crossover, player):
    deck, _ = services.save_deck(owner=player, fmt=crossover, name="Old", text=LEGAL_DECK)
    same, report = services.save_deck(
        owner=player, fmt=crossover, name="New", text="4 森原 さとみ\n46 スワティ\n", deck=deck
    )
    assert same.pk == deck.pk
    assert report.legal is True
    deck.refresh_from_db()
    assert deck.name == "New"
    assert entry_rows(deck) == [("森原 さとみ", None, 4, "main"), ("スワティ", None, 46, "main")]
    assert DeckEntry.objects.count() == 2
    assert deck.checks.count() == 2


def test_deck_text_round_trips(crossover, player):
    text = (
        "〔森原さとみ〕 ×4\n狡猾フィーリア (βedition) 3枚\n４３ スワティ\n"
        "\n// the sideboard\nSB:\n2 狡猾フィーリア [base]\n"
    )
    deck, _ = services.save_deck(
        owner=player, fmt=crossover, name="A", text=text, as_of=DAY_BEFORE_BAN
    )
    exported = services.deck_text(deck.entries.select_related("card", "printing_set"))
    assert exported == (
        "4 森原 さとみ\n3 狡猾フィーリア [beta]\n43 スワティ\n\n"
        "サイドボード\n2 狡猾フィーリア [base]\n"
    )
    again, _ = services.save_deck(
        owner=player, fmt=crossover, name="B", text=exported, as_of=DAY_BEFORE_BAN
    )
    fields = ("card", "printing_set", "count", "section", "position")
    assert list(again.entries.values_list(*fields)) == list(deck.entries.values_list(*fields))
    assert entry_rows(again) == [
        ("森原 さとみ", None, 4, "main"),
        ("狡猾フィーリア", "beta", 3, "main"),
        ("スワティ", None, 43, "main"),
        ("狡猾フィーリア", "base", 2, "side"),
    ]


def test_duplicate_deck_copies_entries_and_latest_check(crossover, player, outsider):
    deck, _ = services.save_deck(
        owner=player, fmt=crossover, name="Orig", text=BETA_DECK, as_of=DAY_BEFORE_BAN
    )
    copy = services.duplicate_deck(deck, owner=player)
    assert copy.pk != deck.pk
    assert (copy.name, copy.owner, copy.format) == ("Orig (2)", player, crossover)
    assert entry_rows(copy) == entry_rows(deck)
    assert list(copy.entries.values_list("position", flat=True)) == [0, 1, 2]
    check = copy.checks.get()
    assert (check.format_version, check.as_of, check.legal) == (1, DAY_BEFORE_BAN, True)
    assert Deck.objects.count() == 2
    assert DeckEntry.objects.count() == 6
    assert deck.entries.count() == 3  # the original is untouched


def test_delete_deck_removes_entries_and_checks(crossover, player):
    deck, _ = services.save_deck(owner=player, fmt=crossover, name="Gone", text=LEGAL_DECK)
    services.delete_deck(deck)
    assert Deck.objects.count() == 0
    assert DeckEntry.objects.count() == 0
    assert DeckCheck.objects.count() == 0


def test_format_changed_rechecks_and_lists_decks_that_became_illegal(
    crossover, player, outsider, cards, django_capture_on_commit_callbacks
):
    satomi_deck, _ = services.save_deck(owner=player, fmt=crossover, name="Satomi", text=LEGAL_DECK)
    clean_deck, _ = services.save_deck(
        owner=outsider, fmt=crossover, name="Clean", text="4 狡猾フィーリア [base]\n46 スワティ\n"
    )
    small_deck, _ = services.save_deck(
        owner=player, fmt=crossover, name="Small", text="4 森原 さとみ\n10 スワティ\n"
    )
    BanEntry.objects.create(format=crossover, card=cards["satomi"])
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        job = services.format_changed(crossover, reason="ban: 森原 さとみ")
    assert len(callbacks) == 1
    crossover.refresh_from_db()
    assert crossover.version == 2
    job.refresh_from_db()
    assert job.format_version == 2
    assert job.reason == "ban: 森原 さとみ"
    assert job.status == RecheckJob.Status.DONE
    assert (job.total, job.done) == (3, 3)
    assert job.finished_at is not None
    assert job.error == ""
    assert job.became_illegal == [
        {"deck": satomi_deck.pk, "name": "Satomi", "owner": "player", "codes": ["BANNED"]}
    ]
    latest = {deck.pk: deck.checks.first() for deck in (satomi_deck, clean_deck, small_deck)}
    assert {pk: (c.format_version, c.legal) for pk, c in latest.items()} == {
        satomi_deck.pk: (2, False),
        clean_deck.pk: (2, True),
        small_deck.pk: (2, False),
    }
    assert latest[satomi_deck.pk].as_of == timezone.localdate()
    assert DeckCheck.objects.count() == 6


def test_format_changed_after_the_beta_ban_date_lists_beta_decks(
    crossover, player, django_capture_on_commit_callbacks
):
    # Checked on 2002-03-31 the β 狡猾フィーリア was legal; the re-check uses today's ban list.
    beta_deck, _ = services.save_deck(
        owner=player, fmt=crossover, name="Beta", text=BETA_DECK, as_of=DAY_BEFORE_BAN
    )
    services.save_deck(owner=player, fmt=crossover, name="Base", text=LEGAL_DECK)
    with django_capture_on_commit_callbacks(execute=True):
        job = services.format_changed(crossover, reason="edited")
    job.refresh_from_db()
    assert job.became_illegal == [
        {"deck": beta_deck.pk, "name": "Beta", "owner": "player", "codes": ["BANNED"]}
    ]


def test_format_changed_in_a_rolled_back_transaction_queues_nothing(
    crossover, player, django_capture_on_commit_callbacks
):
    services.save_deck(owner=player, fmt=crossover, name="A", text=LEGAL_DECK)

    def change_then_fail():
        with transaction.atomic():
            services.format_changed(crossover, reason="undone")
            raise RuntimeError("admin form failed")

    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
    ):
        change_then_fail()
    assert callbacks == []
    assert RecheckJob.objects.count() == 0
    assert Format.objects.get(pk=crossover.pk).version == 1
    assert DeckCheck.objects.count() == 1


def test_run_recheck_twice_is_harmless(crossover, player, cards):
    deck, _ = services.save_deck(owner=player, fmt=crossover, name="Satomi", text=LEGAL_DECK)
    BanEntry.objects.create(format=crossover, card=cards["satomi"], effective_from=BAN_DAY)
    # Not inside an on-commit capture: the task is queued but never runs here.
    job = services.format_changed(crossover, reason="ban")
    assert RecheckJob.objects.get().status == RecheckJob.Status.PENDING
    first = services.run_recheck(job.pk)
    assert first is not None
    assert first.status == RecheckJob.Status.DONE
    assert first.became_illegal == [
        {"deck": deck.pk, "name": "Satomi", "owner": "player", "codes": ["BANNED"]}
    ]
    assert services.run_recheck(job.pk) is None
    job.refresh_from_db()
    assert job.status == RecheckJob.Status.DONE
    assert job.became_illegal == first.became_illegal
    assert DeckCheck.objects.count() == 2


def test_run_recheck_of_an_unknown_job_does_nothing(db):
    assert services.run_recheck(12345) is None


def test_ban_until_date_is_exclusive(crossover, cards):
    BanEntry.objects.create(
        format=crossover,
        card=cards["satomi"],
        effective_from=dt.date(2002, 1, 1),
        effective_until=dt.date(2002, 2, 1),
    )
    crossover.refresh_from_db()
    assert services.check_text(LEGAL_DECK, crossover, dt.date(2002, 1, 31)).codes == ["BANNED"]
    assert services.check_text(LEGAL_DECK, crossover, dt.date(2002, 2, 1)).legal is True
    assert services.check_text(LEGAL_DECK, crossover, dt.date(2001, 12, 31)).legal is True
