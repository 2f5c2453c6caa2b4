"""A judge's review of the wrong-verdict fixes of issue #24, with lists written from the
rulebook (1−2−1 printings that exist on the day, 1−2−2 β printings told apart on the card,
1−2−3 common navigators only), checked by the engine without Django."""

import dataclasses
import datetime as dt

from decks.engine.model import CardInfo, CardPool, PrintingInfo
from tests.decks.engine.pools import (
    BAN_DAY,
    MADOKA,
    MIZUKI,
    check,
    crossover_cards,
    deck,
    filler_lines,
    format_rules,
    labels,
)

PROMO_DAY = dt.date(2002, 6, 1)


def pool_with(*extra: CardInfo) -> CardPool:
    return CardPool([*crossover_cards(), *extra], labels())


def navigator(name: str, *printings: PrintingInfo, unlimited: bool = False) -> CardInfo:
    return CardInfo(name, name, "NAVIGATOR", "空", unlimited, printings)


def test_1_2_3_commons_and_rares_of_navigators_in_one_list():
    pool = pool_with(
        navigator("コモン", PrintingInfo("base", rarity="コモン")),
        navigator("レア", PrintingInfo("base", rarity="Rare"), unlimited=True),
        navigator("全角", PrintingInfo("base", rarity="Ｃ")),
        navigator("アンコ", PrintingInfo("base", rarity="アンコモン"), unlimited=True),
    )
    # Sideboard copies count with the deck's (1−2−3).
    text = deck("20 コモン", "10 全角", "4 レア", "4 アンコ", *filler_lines(12), side=["1 レア"])
    report = check(text, pool=pool)
    assert [(v.code, v.cards, v.details) for v in report.violations] == [
        ("TOO_MANY_COPIES", ("レア",), {"count": 5, "limit": 4})
    ]
    assert report.notices == ()


def test_1_2_1_promo_printing_in_a_format_without_a_set_list():
    # A format that lists no sets (every set legal) still dates a printing.
    rules = format_rules("crossover", legal_sets=None, legal_from={})
    promo = CardInfo(
        "販促",
        "販促",
        "CHARACTER",
        printings=(PrintingInfo("promo", "PR", release_date=PROMO_DAY),),
    )
    text = deck("4 販促", "4 森原さとみ", "42 スワティ")
    report = check(text, rules, as_of=dt.date(2002, 5, 31), pool=pool_with(promo))
    assert [(v.code, v.details) for v in report.violations] == [
        ("SET_NOT_LEGAL", {"legal_from": "2002-06-01"})
    ]
    assert check(text, rules, as_of=PROMO_DAY, pool=pool_with(promo)).legal


def test_1_2_1_printing_date_and_set_date_the_later_counts():
    # THIRD EXPANSION is legal from 2002-04-02 (the format); a printing in it dated
    # 2002-03-01 is still not legal before the set.
    early = CardInfo(
        "早売り",
        "早売り",
        "CHARACTER",
        printings=(PrintingInfo("third", "THIRD EXPANSION", release_date=dt.date(2002, 3, 1)),),
    )
    text = deck("4 早売り", "4 森原さとみ", "42 スワティ")
    report = check(text, as_of=BAN_DAY, pool=pool_with(early))
    assert [(v.code, v.details) for v in report.violations] == [
        ("SET_NOT_LEGAL", {"legal_from": "2002-04-02"})
    ]
    assert check(text, as_of=dt.date(2002, 4, 2), pool=pool_with(early)).legal


def test_1_2_2_plain_and_named_beta_lines_of_the_same_card():
    text = deck(f"2 {MADOKA}", f"2 {MADOKA} [β]", "4 森原さとみ", "42 スワティ")
    report = check(text)
    assert [(v.code, v.lines, v.details) for v in report.violations] == [
        ("BANNED", (2,), {"set": "beta"})
    ]
    assert [(n.code, n.lines) for n in report.notices] == [("BETA_PRINTING_CHECK", (1,))]


def test_1_2_1_beta_only_pool_plain_name_is_legal_with_the_notice():
    only_beta = [
        dataclasses.replace(c, printings=c.printings[:1]) if c.name == MIZUKI else c
        for c in crossover_cards()
    ]
    report = check(
        deck(f"4 {MIZUKI}", "4 森原さとみ", "42 スワティ"), pool=CardPool(only_beta, labels())
    )
    assert report.legal
    assert [(n.code, n.cards) for n in report.notices] == [("BETA_PRINTING_CHECK", (MIZUKI,))]
