"""Card pools and formats for the engine tests, built without Django.

The formats come from ``decks/builtin_formats.json`` (the shipped data), converted the way
``decks.builtin`` and ``decks.services.format_rules`` do it: an empty ``legal_sets`` list
means every set is legal, an empty ``leader_type`` means no leader.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from functools import cache
from pathlib import Path

from cardpool.names import name_key
from decks.engine.check import Report, check_decklist
from decks.engine.model import BanEntry, CardInfo, CardPool, FormatRules, PrintingInfo

BUILTIN_FILE = Path(__file__).resolve().parents[3] / "decks" / "builtin_formats.json"

BAN_DAY = dt.date(2002, 4, 1)
DAY_BEFORE_BAN = dt.date(2002, 3, 31)

# CrossOver sets: code -> (name, other labels players write).
CROSSOVER_SETS = {
    "beta": ("βedition", ("β", "β版", "βedition")),
    "base": ("基本セット", ("基本", "ベーシック")),
    "setup": ("Setup Deck", ()),
    "first": ("FIRST EXPANSION", ()),
    "second": ("SECOND EXPANSION", ()),
    "promo": ("プロモーションカード", ("プロモ",)),
    "third": ("THIRD EXPANSION", ()),
    "fairytale": ("Fairy Tale", ()),
}

FILLER_PREFIX = "汎用イベント"
FILLER_NAMES = 60


@cache
def builtin_specs() -> dict[str, dict]:
    data = json.loads(BUILTIN_FILE.read_text(encoding="utf-8"))
    return {spec["slug"]: spec for spec in data["formats"]}


def format_rules(slug: str, **overrides) -> FormatRules:
    """The built-in format ``slug`` as the engine sees it, with ``overrides`` applied."""
    spec = builtin_specs()[slug]
    bans = tuple(
        BanEntry(
            card_key=name_key(ban["card"]),
            set_code=ban.get("set") or None,
            effective_from=dt.date.fromisoformat(ban["effective_from"])
            if ban.get("effective_from")
            else None,
            effective_until=dt.date.fromisoformat(ban["effective_until"])
            if ban.get("effective_until")
            else None,
            note=ban.get("note", ""),
        )
        for ban in spec["bans"]
    )
    rules = FormatRules(
        slug=spec["slug"],
        name=spec["name"],
        game=spec["game"],
        min_deck_size=spec.get("min_deck_size"),
        max_deck_size=spec.get("max_deck_size"),
        copy_limit=spec.get("copy_limit"),
        exempt_unlimited=spec.get("exempt_unlimited", True),
        exempt_card_type=spec.get("exempt_card_type") or None,
        sideboard_min=spec.get("sideboard_min", 1),
        sideboard_max=spec.get("sideboard_max", 0),
        legal_sets=frozenset(spec["legal_sets"]) or None,
        legal_from={
            code: dt.date.fromisoformat(day) for code, day in spec.get("legal_from", {}).items()
        },
        bans=bans,
        leader_type=spec.get("leader_type") or None,
        leader_count=spec.get("leader_count", 1),
        rule_sections=dict(spec.get("rule_sections", {})),
    )
    return dataclasses.replace(rules, **overrides)


def crossover_rules(**overrides) -> FormatRules:
    return format_rules("crossover", **overrides)


def _printings(*codes: str, sets=CROSSOVER_SETS) -> tuple[PrintingInfo, ...]:
    return tuple(PrintingInfo(code, sets[code][0], is_beta=code == "beta") for code in codes)


def card(name: str, card_type: str = "", element: str = "", *printings: str, **extra) -> CardInfo:
    sets = extra.pop("sets", CROSSOVER_SETS)
    return CardInfo(
        key=name_key(name),
        name=name,
        card_type=card_type,
        element=element,
        printings=_printings(*printings, sets=sets),
        **extra,
    )


def filler_name(index: int, prefix: str = FILLER_PREFIX) -> str:
    return f"{prefix}{index:02d}"


def filler_lines(total: int, *, start: int = 1, prefix: str = FILLER_PREFIX, per_name: int = 4):
    """Decklist lines adding up to ``total`` cards, ``per_name`` copies of each filler card."""
    lines, index = [], start
    while total > 0:
        count = min(per_name, total)
        lines.append(f"{count} {filler_name(index, prefix)}")
        total -= count
        index += 1
    return lines


def labels(sets=CROSSOVER_SETS) -> dict[str, str]:
    found = {}
    for code, (set_name, aliases) in sets.items():
        for label in (code, set_name, *aliases):
            found.setdefault(label, code)
    return found


MORIHARA = "森原 さとみ"
FEELIA = "狡猾フィーリア"
MADOKA = "深見まどか"
MIZUKI = "水姫"
SWATI = "スワティ"
HIKARU = "桜庭 ひかる"
TAKIGUCHI = "滝口 洋介"
NO_PRINTING = "名無しのカード"
# A printed name that ends in brackets, like a qualifier would.
REPLICANT_KAI = "レプリカント（改）"


def crossover_cards() -> list[CardInfo]:
    cards = [
        card(MORIHARA, "CHARACTER", "火", "base"),
        card(FEELIA, "CHARACTER", "闇", "beta", "base"),
        card(MADOKA, "CHARACTER", "水", "beta", "base"),
        card(MIZUKI, "CHARACTER", "水", "beta", "base"),
        card(SWATI, "NAVIGATOR", "空", "base", "fairytale", unlimited=True),
        card(HIKARU, "CHARACTER", "光", "third"),
        card(TAKIGUCHI, "CHARACTER", "雷", "base", "third"),
        card(NO_PRINTING, "ITEM", ""),
        card(REPLICANT_KAI, "CHARACTER", "雷", "first"),
    ]
    cards += [card(filler_name(i), "EVENT", "", "first") for i in range(1, FILLER_NAMES + 1)]
    return cards


def crossover_pool() -> CardPool:
    return CardPool(crossover_cards(), labels())


def deck(*lines: str, side: tuple[str, ...] | list[str] = (), heading: str = "サイドボード") -> str:
    """A decklist: ``lines``, then ``side`` under a sideboard heading (if any)."""
    text = list(lines)
    if side:
        text += [heading, *side]
    return "\n".join(text) + "\n"


def check(
    text: str, rules: FormatRules | None = None, as_of: dt.date = BAN_DAY, pool=None
) -> Report:
    return check_decklist(
        text, rules or crossover_rules(), as_of, pool if pool is not None else crossover_pool()
    )
