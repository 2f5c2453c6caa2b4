"""Checking a deck against a format (CrossOver rules 1−2−1 to 1−2−4 and the other games').

Every problem is reported at once, each with a stable code, the rule section it enforces
(from the format's data), a message in English and Japanese, and the cards, lines and
numbers involved.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import NamedTuple

from cardpool.names import name_key

from .messages import NOTICES, QUANTITY_FORMS, render
from .model import MAIN, CardInfo, CardPool, FormatRules, PrintingInfo
from .parser import ParsedDecklist, heading_counts, parse_decklist


class Entry(NamedTuple):
    """A resolved decklist line: ``count`` copies of ``card`` in ``section``; ``set_code``
    is the printing the player named, or None for "the card's legal printing"."""

    card: CardInfo
    count: int
    section: str = MAIN
    set_code: str | None = None
    line: int | None = None
    # True when the line's card or printing could not be found (already reported): the
    # copies still count towards deck size (and, for a known card in an unknown printing,
    # its copy limit), but no printing is checked.
    unresolved: bool = False

    @property
    def unknown_card(self) -> bool:
        """The name is not a card of the pool: its type and rarity are unknown, so whether
        the copy limit applies (1−2−3: common navigators are exempt) cannot be judged."""
        return self.unresolved and self.card.key.startswith("?")


@dataclass(frozen=True)
class Violation:
    code: str
    rule: str
    message_en: str
    message_ja: str
    cards: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()
    details: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Notice:
    code: str
    message_en: str
    message_ja: str
    cards: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()


@dataclass(frozen=True)
class Report:
    format: str
    format_version: int
    as_of: dt.date
    main_count: int
    sideboard_count: int
    by_type: Mapping[str, int]
    by_element: Mapping[str, int]
    violations: tuple[Violation, ...]
    notices: tuple[Notice, ...] = ()
    entries: tuple[Entry, ...] = ()

    @property
    def legal(self) -> bool:
        return not self.violations

    @property
    def codes(self) -> list[str]:
        return [violation.code for violation in self.violations]

    def violations_by_line(self) -> dict[int, list[Violation]]:
        found: dict[int, list[Violation]] = defaultdict(list)
        for violation in self.violations:
            for line in violation.lines:
                found[line].append(violation)
        return dict(found)

    def as_dict(self, language: str | None = None) -> dict:
        """The report as plain data. With ``language`` ("en", "ja", "ja-jp"…) every
        violation and notice also gets ``message`` in that language."""
        data = {
            "format": self.format,
            "format_version": self.format_version,
            "as_of": self.as_of.isoformat(),
            "legal": self.legal,
            "main_count": self.main_count,
            "sideboard_count": self.sideboard_count,
            "by_type": dict(self.by_type),
            "by_element": dict(self.by_element),
            "violations": [
                {**asdict(v), "cards": list(v.cards), "lines": list(v.lines)}
                for v in self.violations
            ],
            "notices": [
                {**asdict(n), "cards": list(n.cards), "lines": list(n.lines)} for n in self.notices
            ],
        }
        if language is not None:
            key = "message_ja" if language.lower().startswith("ja") else "message_en"
            for item in data["violations"] + data["notices"]:
                item["message"] = item[key]
        return data


def check_decklist(text: str, rules: FormatRules, as_of: dt.date, pool: CardPool) -> Report:
    """Parse a pasted decklist, find its cards in ``pool`` and check it. A heading that
    states a number of cards other than the number listed under it gets a notice."""
    from dataclasses import replace  # here: the module's import block is edited by many

    parsed = parse_decklist(text, is_card=lambda name: pool.lookup(name) is not None)
    entries, problems = resolve(parsed, rules, pool)
    report = check_entries(entries, rules, as_of, problems=problems)
    counted = ((e.line, e.section, e.count) for e in entries if e.line is not None)
    notices = []
    for found in heading_counts(parsed, counted):
        heading = found.heading
        values = {
            "line": heading.line,
            "heading": heading.text,
            "stated": heading.stated,
            "actual": found.actual,
        }
        message_en, message_ja = render("HEADING_COUNT_MISMATCH", values, NOTICES)
        notices.append(
            Notice("HEADING_COUNT_MISMATCH", message_en, message_ja, (), (heading.line,))
        )
    return replace(report, notices=report.notices + tuple(notices)) if notices else report


# Each suggestion searches the whole pool, and each unknown line is a violation: a list of
# thousands of unknown names must cost neither lines x pool nor a report per line (#15).
SUGGESTED_NAMES = 20  # distinct unknown names (by name key) that get suggestions
# Unknown lines, and unreadable lines, reported one by one; the rest share one violation.
NAMED_UNKNOWN_LINES = 100


def resolve(
    parsed: ParsedDecklist, rules: FormatRules, pool: CardPool
) -> tuple[list[Entry], list[Violation]]:
    """Turn parsed lines into entries; unreadable lines and unknown cards or printings
    become violations. The first ``SUGGESTED_NAMES`` distinct unknown names get suggestions
    (the first name past them says so); the first ``NAMED_UNKNOWN_LINES`` unknown lines are
    reported one by one, any further ones together in one UNKNOWN_CARD violation (and the
    same for unreadable lines and PARSE_ERROR)."""
    from .messages import (  # here: the module's import block is edited by many
        MESSAGES,
        PARSE_ERROR_AGAIN,
        UNKNOWN_LIMITS,
    )

    entries: list[Entry] = []
    problems: list[Violation] = []
    suggested: dict[str, list[str]] = {}  # name key -> suggestions
    unknown_lines = 0
    limit_said = False
    more_lines: list[int] = []
    more_names: dict[str, str] = {}  # name key -> name, the first SUGGESTED_NAMES of them
    for problem in parsed.problems[:NAMED_UNKNOWN_LINES]:
        values = {"line": problem.line, "text": problem.text}
        table = PARSE_ERROR_AGAIN if problems else MESSAGES  # the forms only once
        message_en = render("PARSE_ERROR", {**values, "reason": problem.reason_en}, table)[0]
        message_ja = render("PARSE_ERROR", {**values, "reason": problem.reason_ja}, table)[1]
        problems.append(
            Violation(
                "PARSE_ERROR",
                rules.section("PARSE_ERROR"),
                message_en,
                message_ja,
                lines=(problem.line,),
                details={"text": problem.text},
            )
        )
    if len(parsed.problems) > NAMED_UNKNOWN_LINES:
        unread = [problem.line for problem in parsed.problems[NAMED_UNKNOWN_LINES:]]
        values = {"count": len(unread), "first": unread[0], "limit": NAMED_UNKNOWN_LINES}
        message_en, message_ja = render("PARSE_ERRORS_MORE", values, UNKNOWN_LIMITS)
        problems.append(
            Violation(
                "PARSE_ERROR",
                rules.section("PARSE_ERROR"),
                message_en,
                message_ja,
                lines=tuple(unread),
                details={"more_lines": len(unread)},
            )
        )

    def find(name: str, qualifier: str | None):
        card = pool.lookup(name)
        set_code = pool.resolve_set(qualifier) if qualifier is not None else None
        if qualifier is not None and set_code is None:
            # A bracketed tail that names no set may be part of the printed name.
            whole = pool.lookup(f"{name}({qualifier})")
            if whole is not None:
                card, qualifier = whole, None
        return card, qualifier, set_code

    for line in parsed.lines:
        card, qualifier, set_code = find(line.name, line.qualifier)
        if card is None and line.bare_count is not None:
            # "スワティ 31": the number is the count when the name before it is a card
            # (parse_decklist settles this itself when it is given the pool).
            count, name, bare_qualifier = line.bare_count
            found = find(name, bare_qualifier)
            if found[0] is not None:
                card, qualifier, set_code = found
                line = line._replace(
                    count=count, name=name, qualifier=bare_qualifier, bare_count=None
                )
        if card is None:
            key = name_key(line.name)
            placeholder = CardInfo(key=f"?{key}", name=line.name)
            entries.append(Entry(placeholder, line.count, line.section, None, line.line, True))
            unknown_lines += 1
            if unknown_lines > NAMED_UNKNOWN_LINES:
                more_lines.append(line.line)
                if len(more_names) < SUGGESTED_NAMES:
                    more_names.setdefault(key, line.name)
                continue
            details: dict[str, object]
            limited_en = limited_ja = ""
            if key in suggested or len(suggested) < SUGGESTED_NAMES:
                if key not in suggested:
                    suggested[key] = pool.suggest(line.name)
                suggestions = suggested[key]
                details = {"suggestions": suggestions}
            else:
                suggestions = []
                details = {"suggestions": suggestions, "suggestions_limited": True}
                if not limit_said:
                    limit_said = True
                    limited_en, limited_ja = render(
                        "SUGGESTIONS_LIMITED", {"limit": SUGGESTED_NAMES}, UNKNOWN_LIMITS
                    )
            listed = "、".join(f"〔{name}〕" for name in suggestions)
            # A name ending in a number (read as a count or not: glued to the name as in
            # "スワティ46", or out of range as in "森原さとみ 0" or "森原さとみ 1000"):
            # say how a number of copies is written.
            bare = line.bare_count is not None or line.name.rstrip()[-1:].isdigit()
            message_en, message_ja = render(
                "UNKNOWN_CARD",
                {
                    "name": line.name,
                    "line": line.line,
                    "suggestions_en": (
                        " Did you mean " + ", ".join(suggestions) + "?" if suggestions else ""
                    ),
                    "suggestions_ja": f"もしかして: {listed}" if suggestions else "",
                    "quantity_en": QUANTITY_FORMS[0] if bare else "",
                    "quantity_ja": QUANTITY_FORMS[1] if bare else "",
                },
            )
            problems.append(
                Violation(
                    "UNKNOWN_CARD",
                    rules.section("UNKNOWN_CARD"),
                    message_en + limited_en,
                    message_ja + limited_ja,
                    cards=(line.name,),
                    lines=(line.line,),
                    details=details,
                )
            )
            continue
        if qualifier is not None and (set_code is None or card.printing(set_code) is None):
            message_en, message_ja = render(
                "UNKNOWN_PRINTING",
                {"qualifier": qualifier, "line": line.line, "name": card.name},
            )
            problems.append(
                Violation(
                    "UNKNOWN_PRINTING",
                    rules.section("UNKNOWN_PRINTING"),
                    message_en,
                    message_ja,
                    cards=(card.name,),
                    lines=(line.line,),
                    details={"qualifier": qualifier},
                )
            )
            entries.append(Entry(card, line.count, line.section, None, line.line, True))
            continue
        entries.append(Entry(card, line.count, line.section, set_code, line.line))
    if more_lines:
        values = {"count": len(more_lines), "first": more_lines[0], "limit": NAMED_UNKNOWN_LINES}
        message_en, message_ja = render("UNKNOWN_CARDS_MORE", values, UNKNOWN_LIMITS)
        problems.append(
            Violation(
                "UNKNOWN_CARD",
                rules.section("UNKNOWN_CARD"),
                message_en,
                message_ja,
                cards=tuple(more_names.values()),
                lines=tuple(more_lines),
                details={"suggestions": [], "more_lines": len(more_lines)},
            )
        )
    return entries, problems


def check_entries(
    entries: Iterable[Entry],
    rules: FormatRules,
    as_of: dt.date,
    *,
    problems: Iterable[Violation] = (),
) -> Report:
    """Check resolved entries. ``problems`` (from parsing and resolving) are included."""
    entries = list(entries)
    violations: list[Violation] = list(problems)
    notices: list[Notice] = []

    leaders, deck, side = [], [], []
    for e in entries:
        if e.section != MAIN:
            side.append(e)
        elif rules.leader_type and e.card.card_type == rules.leader_type:
            leaders.append(e)
        else:
            deck.append(e)
    main_count = sum(e.count for e in deck)
    side_count = sum(e.count for e in side)

    violations += _deck_size(rules, leaders, deck, main_count)
    violations += _sideboard_size(rules, side, side_count)
    violations += _copies(rules, entries)
    legality, notices = _printings(rules, entries, as_of)
    violations += legality
    notices = _rarity_checks(rules, entries) + notices

    by_type: Counter[str] = Counter()
    by_element: Counter[str] = Counter()
    for e in deck:
        by_type[e.card.card_type or "unknown"] += e.count
        by_element[e.card.element or "none"] += e.count
    violations.sort(key=lambda v: (min(v.lines, default=0), v.code))
    return Report(
        format=rules.slug,
        format_version=rules.version,
        as_of=as_of,
        main_count=main_count,
        sideboard_count=side_count,
        by_type=dict(sorted(by_type.items())),
        by_element=dict(sorted(by_element.items())),
        violations=tuple(violations),
        notices=tuple(notices),
        entries=tuple(entries),
    )


def make_violation(rules: FormatRules, code: str, values: dict, **extra) -> Violation:
    message_en, message_ja = render(code, values)
    return Violation(code, rules.section(code), message_en, message_ja, **extra)


def _lines(entries: Iterable[Entry]) -> tuple[int, ...]:
    return tuple(sorted({e.line for e in entries if e.line is not None}))


def _deck_size(rules, leaders, deck, main_count) -> list[Violation]:
    found = []
    minimum, maximum = rules.min_deck_size, rules.max_deck_size
    if rules.leader_type:
        leader_count = sum(e.count for e in leaders)
        if leader_count != rules.leader_count:
            found.append(
                make_violation(
                    rules,
                    "LEADER_COUNT",
                    {
                        "expected": rules.leader_count,
                        "count": leader_count,
                        "card_type": rules.leader_type,
                    },
                    cards=tuple(e.card.name for e in leaders),
                    lines=_lines(leaders),
                    details={"expected": rules.leader_count, "count": leader_count},
                )
            )
        elif len(leaders) == 1:
            leader = leaders[0].card
            minimum = leader.deck_size_min if leader.deck_size_min is not None else minimum
            maximum = leader.deck_size_max if leader.deck_size_max is not None else maximum
            if minimum is None or maximum is None:
                # The card's printed range sets the size; without it (and no bound from the
                # format) any size would pass, so the size is reported as not checkable.
                printed = {"minimum": leader.deck_size_min, "maximum": leader.deck_size_max}
                shown = {key: "?" if value is None else value for key, value in printed.items()}
                found.append(
                    make_violation(
                        rules,
                        "LEADER_RANGE_UNKNOWN",
                        {"name": leader.name, **shown},
                        cards=(leader.name,),
                        lines=_lines(leaders),
                        details={"card": leader.name, "count": main_count, **printed},
                    )
                )
    if minimum is not None and main_count < minimum:
        found.append(
            make_violation(
                rules,
                "DECK_TOO_SMALL",
                {"count": main_count, "minimum": minimum},
                details={"count": main_count, "minimum": minimum},
            )
        )
    if maximum is not None and main_count > maximum:
        found.append(
            make_violation(
                rules,
                "DECK_TOO_LARGE",
                {"count": main_count, "maximum": maximum},
                details={"count": main_count, "maximum": maximum},
            )
        )
    return found


def _sideboard_size(rules, side, side_count) -> list[Violation]:
    if side_count == 0:
        return []
    details = {"count": side_count, "minimum": rules.sideboard_min, "maximum": rules.sideboard_max}
    if rules.sideboard_max == 0:
        return [
            make_violation(
                rules, "SIDEBOARD_NOT_ALLOWED", details, lines=_lines(side), details=details
            )
        ]
    if side_count > rules.sideboard_max:
        return [make_violation(rules, "SIDEBOARD_TOO_LARGE", details, details=details)]
    if side_count < rules.sideboard_min:
        return [make_violation(rules, "SIDEBOARD_TOO_SMALL", details, details=details)]
    return []


def _copies(rules: FormatRules, entries: list[Entry]) -> list[Violation]:
    if rules.copy_limit is None:
        return []
    limit = rules.copy_limit
    group_of: dict[str, tuple] = {}
    for index, group in enumerate(rules.copy_groups):
        for key in group:
            group_of[key] = ("group", index)
    exempt = rules.exempt
    # Deck and sideboard count together (rule 1−2−3).
    counts: dict[object, int] = {}
    for entry in entries:
        if (
            entry.unknown_card
            or exempt(entry.card, entry.set_code)
            or rules.rarity_unknown(entry.card, entry.set_code)
        ):
            continue
        key = group_of.get(entry.card.key, entry.card.key) if group_of else entry.card.key
        counts[key] = counts.get(key, 0) + entry.count
    over = {key for key, count in counts.items() if count > limit}
    if not over:
        return []
    totals: dict[object, list[Entry]] = defaultdict(list)
    for entry in entries:
        if exempt(entry.card, entry.set_code) or rules.rarity_unknown(entry.card, entry.set_code):
            continue
        key = group_of.get(entry.card.key, entry.card.key) if group_of else entry.card.key
        if key in over:
            totals[key].append(entry)
    found = []
    for group_entries in totals.values():
        count = sum(e.count for e in group_entries)
        names = tuple(dict.fromkeys(e.card.name for e in group_entries))
        found.append(
            make_violation(
                rules,
                "TOO_MANY_COPIES",
                {"name": "・".join(names), "count": count, "limit": rules.copy_limit},
                cards=names,
                lines=_lines(group_entries),
                details={"count": count, "limit": rules.copy_limit},
            )
        )
    return found


def _printings(
    rules: FormatRules, entries: list[Entry], as_of: dt.date
) -> tuple[list[Violation], list[Notice]]:
    bans = rules.bans_in_force(as_of)
    # The sets legal on the day: a listed set is legal from its release date or the date
    # the format gives it.
    legal_sets = rules.legal_sets_on(as_of)

    def set_legal(code: str) -> bool:
        return legal_sets is None or code in legal_sets

    def available(printing: PrintingInfo) -> bool:
        # A printing exists from its own release date, where known, as a set from its date
        # (rule 1−2−1: a card may be played in a printing that exists on the day).
        released = printing.release_date is None or printing.release_date <= as_of
        return released and set_legal(printing.set_code)

    def set_available(card: CardInfo, code: str) -> bool:
        return any(p.set_code == code and available(p) for p in card.printings)

    def banned(card: CardInfo, code: str | None) -> bool:
        return any(ban.covers(code) for ban in bans.get(card.key, ()))

    # (code, card key, set code) -> entries, so one card on two lines is one violation.
    problems: dict[tuple, list[Entry]] = defaultdict(list)
    unknown: dict[str, list[Entry]] = defaultdict(list)
    # Cards legal through another printing whose βedition printing is banned, written
    # without a printing: a judge checks the physical cards (rule 1−2−2 tells them apart).
    beta_check: dict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        card = entry.card
        if entry.unresolved:
            continue
        card_bans = bans.get(card.key)
        if card_bans is None and card.printings and not card.dated:
            # The common case, kept fast: no ban on this card, no dated printing.
            if entry.set_code is None:
                if legal_sets is None or not legal_sets.isdisjoint(card.set_codes):
                    continue
            elif legal_sets is None or entry.set_code in legal_sets:
                continue
        if any(ban.set_code is None for ban in card_bans or ()):
            problems[("BANNED", card.key, None)].append(entry)
        elif entry.set_code is not None:
            if banned(card, entry.set_code):
                problems[("BANNED", card.key, entry.set_code)].append(entry)
            elif not set_available(card, entry.set_code):
                other = any(available(p) and not banned(card, p.set_code) for p in card.printings)
                code = "PRINTING_NOT_LEGAL" if other else "SET_NOT_LEGAL"
                problems[(code, card.key, entry.set_code)].append(entry)
        elif not card.printings:
            if legal_sets is not None:
                unknown[card.key].append(entry)
        elif not any(available(p) and not banned(card, p.set_code) for p in card.printings):
            usable = [p for p in card.printings if available(p)]
            if usable and all(p.is_beta for p in usable):
                # Only the card's βedition printings are banned, not its name, and the pool
                # records no other printing that day: the player's cards may be one the pool
                # lacks, so the name is legal and the judge looks at the cards (1−2−2).
                beta_check[card.key].append(entry)
            elif usable:
                # Every printing from a legal set is banned: name the banned printing(s).
                codes = tuple(dict.fromkeys(p.set_code for p in usable))
                problems[("BANNED", card.key, codes[0] if len(codes) == 1 else None)].append(entry)
            else:
                problems[("SET_NOT_LEGAL", card.key, None)].append(entry)
        elif any(p.is_beta and banned(card, p.set_code) for p in card.printings):
            beta_check[card.key].append(entry)

    violations = []
    for (code, _key, set_code), group in problems.items():
        card = group[0].card
        printing = card.printing(set_code) if set_code else None
        set_name = (printing.set_name or printing.set_code) if printing else (set_code or "")
        values = {
            "name": card.name,
            "line": ", ".join(str(line) for line in _lines(group)),
            "set_name": set_name,
            "as_of": as_of.isoformat(),
            "printing_en": f" ({set_name} printing)" if set_name else "",
            "printing_ja": f"（{set_name}版）" if set_name else "",
            "not_yet_en": "",
            "not_yet_ja": "",
        }
        details = {"set": set_code} if set_code else {}
        later = _legal_later(rules, card, set_code, as_of) if code != "BANNED" else None
        if later is not None:
            day, label_en, label_ja = later
            values["not_yet_en"] = f" {label_en} is legal in this format from {day.isoformat()}."
            values["not_yet_ja"] = f"{label_ja}はこのフォーマットで{day.isoformat()}から使えます。"
            details["legal_from"] = day.isoformat()
        violations.append(
            make_violation(
                rules, code, values, cards=(card.name,), lines=_lines(group), details=details
            )
        )
    notices = []
    for group in unknown.values():
        card = group[0].card
        message_en, message_ja = render("PRINTING_UNKNOWN", {"name": card.name}, NOTICES)
        notices.append(
            Notice("PRINTING_UNKNOWN", message_en, message_ja, (card.name,), _lines(group))
        )
    if beta_check:
        notices.append(_beta_notice(list(beta_check.values())))
    return violations, notices


def _legal_later(
    rules: FormatRules, card: CardInfo, set_code: str | None, as_of: dt.date
) -> tuple[dt.date, str, str] | None:
    """The first day after ``as_of`` on which a printing the line could mean becomes legal
    (a listed set not yet released or dated later by the format, or a printing released
    later on its own date), with what becomes legal in English and Japanese: the set, or,
    when the printing's own release date decides, that printing of the card (the rest of
    its set may be legal already)."""
    later = []
    for printing in card.printings:
        if set_code is not None and printing.set_code != set_code:
            continue
        if rules.legal_sets is not None and printing.set_code not in rules.legal_sets:
            continue
        days = [
            day
            for day in (rules.legal_from.get(printing.set_code), printing.release_date)
            if day is not None
        ]
        if days and max(days) > as_of:
            later.append((max(days), printing.set_code, printing))
    if not later:
        return None
    day, code, printing = min(later, key=lambda found: found[:2])
    set_name = printing.set_name or code
    set_day = rules.legal_from.get(printing.set_code)
    if printing.release_date == day and (set_day is None or set_day < day):
        return day, f"The {set_name} printing of {card.name}", f"〔{card.name}〕の{set_name}版"
    return day, set_name, set_name


def _beta_notice(groups: list[list[Entry]]) -> Notice:
    """One notice naming every card (and its lines) that a judge should check is not a
    banned βedition printing."""
    named_en, named_ja = [], []
    for group in groups:
        lines = _lines(group)
        listed = ", ".join(str(line) for line in lines)
        name = group[0].card.name
        if lines:
            named_en.append(f"{name} (line{'s' if len(lines) > 1 else ''} {listed})")
            named_ja.append(f"〔{name}〕（{listed}行目）")
        else:
            named_en.append(name)
            named_ja.append(f"〔{name}〕")
    message_en, message_ja = render(
        "BETA_PRINTING_CHECK",
        {"cards_en": "; ".join(named_en), "cards_ja": "、".join(named_ja)},
        NOTICES,
    )
    return Notice(
        "BETA_PRINTING_CHECK",
        message_en,
        message_ja,
        tuple(group[0].card.name for group in groups),
        _lines(entry for group in groups for entry in group),
    )


def _rarity_checks(rules: FormatRules, entries: list[Entry]) -> list[Notice]:
    """A notice naming each card over the copy limit that is exempt only if it is a common
    (rule 1−2−3) while the pool records no rarity for it: legal, for a judge to check the
    rarity printed on the cards, as the incomplete pool cannot say."""
    if rules.copy_limit is None or rules.exempt_card_type is None:
        return []
    found: dict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        if rules.rarity_unknown(entry.card, entry.set_code):
            found[entry.card.key].append(entry)
    notices = []
    for group in found.values():
        count = sum(e.count for e in group)
        if count <= rules.copy_limit:
            continue
        card = group[0].card
        values = {"name": card.name, "count": count, "limit": rules.copy_limit}
        message_en, message_ja = render("RARITY_CHECK", values, NOTICES)
        notices.append(Notice("RARITY_CHECK", message_en, message_ja, (card.name,), _lines(group)))
    return notices
