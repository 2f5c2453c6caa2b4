"""Parse and check generated decklists against a generated card pool (pure engine).

    .venv/bin/python bench/decks_check.py [--decks 10000] [--cards 2000] [--repeat 3]
    .venv/bin/python bench/decks_check.py --hostile [--cards 2000]

Target (issue 3): at least 5,000 decklists per second in one process.

``--hostile`` times decklists built to be slow (issue #15) instead, each against a budget:
10,000 lines of unknown names (suggestions are searched for the first 20 distinct names only;
it took 10.6 s and answered 2.7 MB on a 1,082-card pool), and lines of 20,000 characters
(``a``, 19,998 spaces, ``b``: 13.4 s in a parser that backtracked), one alone and 10,000 of
them (200 MB of text, far past what the page and API accept: the parser stays linear).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardpool.names import name_key
from decks.engine.check import check_decklist
from decks.engine.model import BanEntry, CardInfo, CardPool, FormatRules, PrintingInfo
from decks.engine.parser import parse_decklist

TYPES = ["CHARACTER", "NAVIGATOR", "SPELL", "EVENT", "ITEM"]
ELEMENTS = ["火", "水", "風", "地", "空"]
SETS = ["beta", "base", "setup", "first", "second", "promo", "third"]
KANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわ"


def make_pool(size: int, rng: random.Random) -> tuple[CardPool, list[CardInfo]]:
    cards = []
    names = set()
    while len(cards) < size:
        name = "".join(rng.choice(KANA) for _ in range(rng.randint(3, 7)))
        if name in names:
            continue
        names.add(name)
        printings = tuple(
            PrintingInfo(code, code, code == "beta") for code in rng.sample(SETS, rng.randint(1, 2))
        )
        card_type = rng.choice(TYPES)
        cards.append(
            CardInfo(
                key=name_key(name),
                name=name,
                card_type=card_type,
                element=rng.choice(ELEMENTS),
                unlimited=card_type == "NAVIGATOR" and rng.random() < 0.2,
                printings=printings,
            )
        )
    labels = {code: code for code in SETS} | {"β": "beta", "基本セット": "base"}
    return CardPool(cards, labels), cards


def make_decklist(cards: list[CardInfo], rng: random.Random) -> str:
    target = rng.randint(50, 70)
    lines, total = [], 0
    while total < target:
        card = rng.choice(cards)
        count = min(rng.choice([1, 2, 3, 4, 4, 4]), target - total)
        form = rng.randrange(4)
        if form == 0:
            lines.append(f"{count} {card.name}")
        elif form == 1:
            lines.append(f"{card.name} ×{count}")
        elif form == 2:
            lines.append(f"〔{card.name}〕 {count}枚")
        else:
            lines.append(f"{count} {card.name} [{card.printings[0].set_code}]")
        total += count
    side = [f"{rng.randint(1, 3)} {rng.choice(cards).name}" for _ in range(rng.randint(0, 5))]
    if side:
        lines += ["", "サイドボード", *side]
    return "\n".join(lines)


def timed(label: str, budget: float, work) -> None:
    """Run ``work`` once and print its seconds against ``budget``."""
    start = time.perf_counter()
    extra = work()
    seconds = time.perf_counter() - start
    verdict = "met" if seconds <= budget else "NOT met"
    print(f"{label}: {seconds:.3f} s{extra}; budget {budget:g} s: {verdict}")


def hostile(cards: int) -> None:
    """Decklists made to be slow, each timed once against its budget (issue #15)."""
    pool, _cards = make_pool(cards, random.Random(20021))
    rules = FormatRules(slug="hostile", name="bench", game="crossover", min_deck_size=50)
    as_of = dt.date(2002, 4, 1)

    def checked(text: str):
        def work() -> str:
            report = check_decklist(text, rules, as_of, pool)
            size = len(json.dumps(report.as_dict("ja"), ensure_ascii=False).encode())
            return f", report {size:,} bytes, {len(report.violations):,} violations"

        return work

    unknown = "\n".join(f"ZZ{number:05d}Q" for number in range(10_000))
    timed(f"10,000 unknown names, pool of {cards} cards", 2.0, checked(unknown))
    repeated = "\n".join(["4 まったく知らないカード"] * 10_000)
    timed(f"one unknown name on 10,000 lines, pool of {cards} cards", 2.0, checked(repeated))

    long_line = "a" + " " * 19_998 + "b"
    timed("one 20,000-character line, checked", 0.05, checked(long_line))

    def parsed(text: str):
        def work() -> str:
            result = parse_decklist(text)
            return f", {len(result.problems):,} problems"

        return work

    timed("one 20,000-character line, parsed", 0.01, parsed(long_line))
    many = "\n".join([long_line] * 10_000)
    timed("10,000 lines of 20,000 characters, parsed", 5.0, parsed(many))
    timed("10,000 lines of 20,000 characters, checked", 5.0, checked(many))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--decks", type=int, default=10_000)
    parser.add_argument("--cards", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--hostile", action="store_true", help="time hostile decklists")
    args = parser.parse_args()
    if args.hostile:
        hostile(args.cards)
        return
    rng = random.Random(20021)
    pool, cards = make_pool(args.cards, rng)
    bans = tuple(BanEntry(card.key, "beta", dt.date(2002, 4, 1)) for card in cards[:30])
    rules = FormatRules(
        slug="crossover",
        name="bench",
        game="crossover",
        min_deck_size=50,
        copy_limit=4,
        sideboard_max=20,
        legal_sets=frozenset(SETS[:-1]),
        bans=bans,
    )
    decklists = [make_decklist(cards, rng) for _ in range(args.decks)]
    lines = sum(text.count("\n") + 1 for text in decklists)
    as_of = dt.date(2002, 4, 1)
    best = float("inf")
    legal = 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        reports = [check_decklist(text, rules, as_of, pool) for text in decklists]
        best = min(best, time.perf_counter() - start)
        legal = sum(report.legal for report in reports)
    print(
        f"{args.decks} decklists ({lines} lines, pool of {args.cards} cards): "
        f"best of {args.repeat}: {best:.3f} s = {args.decks / best:,.0f} decklists/s "
        f"({legal} legal); target >= 5,000/s: {'met' if args.decks / best >= 5000 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
