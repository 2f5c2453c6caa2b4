"""Rule 1−2−1: a card may be played only in a printing that exists on the event's date. A
printing's own release date (a promotional card given out on a day) counts the way a set's
does: before it the printing is not legal, in the deck check (``check_deck`` and ``POST
/api/v1/decks/check/``), the re-check of stored decks and an event file's decklists (issue
#24, "Release dates of printings")."""

import datetime as dt

import pytest

from cardpool.models import CardType
from decks import services
from decks.models import RecheckJob
from tests.decks.entry_points_24 import both, codes
from tests.factories import CardFactory, PrintingFactory
from tests.tournaments.conftest import (  # noqa: F401
    co_organizer,
    judge,
    make_players,
    organizer,
    staffed_event,
)
from tests.tournaments.factories import register_all
from tournaments import services as event_services
from tournaments.event_file.decklists import checked_reports
from tournaments.services import deck_checks

pytestmark = pytest.mark.django_db

PROMO_DAY = dt.date(2002, 6, 1)
BEFORE = dt.date(2002, 5, 1)
# 50 cards; 販促 ちゃん is printed only as a promotional card dated 2002-06-01.
PROMO_DECK = "4 森原 さとみ\n4 狡猾フィーリア [base]\n38 スワティ\n4 販促 ちゃん\n"
# 再録 くん is in the basic set and on that promotional card: named in the promo printing.
NAMED_PROMO_DECK = "4 森原 さとみ\n4 狡猾フィーリア [base]\n38 スワティ\n4 再録 くん [promo]\n"
PLAIN_REPRINT_DECK = "4 森原 さとみ\n4 狡猾フィーリア [base]\n38 スワティ\n4 再録 くん\n"


@pytest.fixture
def promos(game, sets, cards):
    only_promo = CardFactory(game=game, name="販促 ちゃん", card_type=CardType.CHARACTER)
    PrintingFactory(card=only_promo, set=sets["promo"], number="P-01", release_date=PROMO_DAY)
    reprint = CardFactory(game=game, name="再録 くん", card_type=CardType.CHARACTER)
    PrintingFactory(card=reprint, set=sets["base"], number="050")
    PrintingFactory(card=reprint, set=sets["promo"], number="P-02", release_date=PROMO_DAY)
    return {"only_promo": only_promo, "reprint": reprint}


def test_1_2_1_promo_only_card_before_its_release_date(client, crossover, promos, tmp_path):
    report = both(client, PROMO_DECK, BEFORE, tmp_path)
    assert report["legal"] is False
    assert codes(report) == ["SET_NOT_LEGAL"]
    violation = report["violations"][0]
    assert violation["rule"] == "1−2−1"
    assert violation["cards"] == ["販促 ちゃん"]
    assert violation["lines"] == [4]
    assert violation["details"] == {"legal_from": "2002-06-01"}
    assert violation["message_en"].endswith(
        "The プロモーションカード printing of 販促 ちゃん is legal in this format from 2002-06-01."
    )
    # The printing's own date decides, not its set's (whose undated cards are legal).
    assert violation["message_ja"].endswith(
        "〔販促 ちゃん〕のプロモーションカード版はこのフォーマットで2002-06-01から使えます。"
    )


def test_1_2_1_promo_only_card_from_its_release_date(client, crossover, promos, tmp_path):
    report = both(client, PROMO_DECK, PROMO_DAY, tmp_path)
    assert report["legal"] is True
    assert report["violations"] == []


def test_1_2_1_named_promo_printing_before_its_date(client, crossover, promos, tmp_path):
    report = both(client, NAMED_PROMO_DECK, BEFORE, tmp_path)
    assert codes(report) == ["PRINTING_NOT_LEGAL"]
    assert report["violations"][0]["details"] == {"set": "promo", "legal_from": "2002-06-01"}
    assert both(client, NAMED_PROMO_DECK, PROMO_DAY, tmp_path)["legal"] is True


def test_1_2_1_plain_name_with_an_older_printing_is_legal(client, crossover, promos, tmp_path):
    report = both(client, PLAIN_REPRINT_DECK, BEFORE, tmp_path)
    assert report["legal"] is True
    assert report["notices"] == []


def test_1_2_1_undated_promo_printing_is_legal_on_any_day(client, crossover, promos, tmp_path):
    promos["only_promo"].printings.update(release_date=None)
    assert both(client, PROMO_DECK, BEFORE, tmp_path)["legal"] is True


def test_1_2_1_recheck_reads_the_printing_date(crossover, promos, player):
    deck, report = services.save_deck(
        owner=player, fmt=crossover, name="promo", text=PROMO_DECK, as_of=PROMO_DAY
    )
    assert report.legal
    # The organizer learns the promo is given out later than today.
    promos["only_promo"].printings.update(release_date=dt.date(2099, 1, 1))
    job = services.format_changed(crossover, reason="promo date corrected")
    services.run_recheck(job.pk)
    job.refresh_from_db()
    assert job.status == RecheckJob.Status.DONE
    assert job.became_illegal == [
        {"deck": deck.pk, "name": "promo", "owner": "player", "codes": ["SET_NOT_LEGAL"]}
    ]


def test_1_2_1_event_file_decklists_read_the_printing_date(crossover, promos):
    document = {
        "event": {"date": BEFORE.isoformat()},
        "registrations": [{"decklist": {"text": PROMO_DECK}}, {"decklist": None}],
    }
    before, none = checked_reports(document, crossover)
    assert none is None
    assert before["legal"] is False
    assert [v["code"] for v in before["violations"]] == ["SET_NOT_LEGAL"]
    document["event"]["date"] = PROMO_DAY.isoformat()
    assert checked_reports(document, crossover)[0]["legal"] is True


# --- a neighbour: the physical deck check at an event (rule 1−2−1) ------------------------


def test_1_2_1_deck_check_refuses_a_counted_printing_released_later(
    promos,
    staffed_event,  # noqa: F811
    organizer,  # noqa: F811
    judge,  # noqa: F811
    make_players,  # noqa: F811
):
    event = staffed_event
    promos["reprint"].printings.filter(set__code="promo").update(release_date=dt.date(2099, 1, 1))
    registrations = register_all(event, make_players(4), PLAIN_REPRINT_DECK)
    event_services.start_event(event, actor=organizer)
    round_ = event_services.generate_round(event, actor=organizer)
    counted = PLAIN_REPRINT_DECK.replace("4 再録 くん", "4 再録 くん [promo]")
    check = deck_checks.record_deck_check(
        registrations[0], actor=judge, counted_text=counted, round_=round_
    )
    assert check.ok is False
    [item] = check.result["discrepancies"]
    assert item["code"] == "COUNTED_NOT_LEGAL"
    assert item["rule"] == "1−2−1"
    assert item["found_printing"] == "promo"
    # Counted in the basic set's printing: nothing to say.
    check = deck_checks.record_deck_check(
        registrations[1],
        actor=judge,
        counted_text=PLAIN_REPRINT_DECK.replace("4 再録 くん", "4 再録 くん [base]"),
        round_=round_,
    )
    assert check.ok is True
