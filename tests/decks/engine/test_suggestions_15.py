"""Unknown-card suggestions stay bounded however many unknown lines a decklist has (#15).

Each suggestion is a fuzzy search of the whole pool, so a list of thousands of unknown names
(10,000 lines took 10.6 s and answered 2.7 MB on a 1,082-card pool) must not ask for one per
line: only the first ``SUGGESTED_NAMES`` distinct unknown names get suggestions, and only the
first ``NAMED_UNKNOWN_LINES`` unknown lines are reported one by one; the rest share one
UNKNOWN_CARD violation naming their lines.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from cardpool.names import name_key
from decks.engine import check as check_module
from decks.engine.check import check_decklist
from decks.engine.model import CardInfo, CardPool, FormatRules

KANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわ"
RULES = FormatRules(slug="hostile", name="hostile", game="crossover", min_deck_size=50)
DAY = dt.date(2002, 4, 1)
# The report of 10,000 unknown lines (a 20,000-character decklist, the most the page and API
# accept) stays under this many bytes of JSON: the first NAMED_UNKNOWN_LINES violations and
# one line number for every further line (it was 2.7 MB).
REPORT_BYTES_BOUND = 150_000


def kana_name(number: int) -> str:
    letters = []
    while True:
        number, digit = divmod(number, len(KANA))
        letters.append(KANA[digit])
        if number == 0:
            return "".join(letters) + "の戦士"


def big_pool(size: int = 2_000) -> CardPool:
    return CardPool(CardInfo(key=name_key(kana_name(n)), name=kana_name(n)) for n in range(size))


@pytest.fixture
def suggest_calls(monkeypatch):
    """Counts CardPool.suggest calls; after 50 it answers [] at once, so the test fails
    quickly (on the count) instead of searching the pool 10,000 times."""
    calls: list[str] = []
    original = CardPool.suggest

    def counting(self, name, limit=3):
        calls.append(name)
        return original(self, name, limit) if len(calls) <= 50 else []

    monkeypatch.setattr(CardPool, "suggest", counting)
    return calls


def test_suggestions_15_ten_thousand_unknown_lines_are_bounded(suggest_calls):
    pool = big_pool()
    text = "\n".join(f"ZZ{number:05d}Q" for number in range(10_000))
    report = check_decklist(text, RULES, DAY, pool)

    assert len(suggest_calls) == check_module.SUGGESTED_NAMES == 20
    unknown = [v for v in report.violations if v.code == "UNKNOWN_CARD"]
    assert len(unknown) == check_module.NAMED_UNKNOWN_LINES + 1 == 101
    # Line by line for the first 100 unknown lines.
    assert [v.lines for v in unknown[:100]] == [(line,) for line in range(1, 101)]
    rest = unknown[100]
    assert rest.lines == tuple(range(101, 10_001))
    assert rest.details == {"suggestions": [], "more_lines": 9_900}
    assert rest.cards == tuple(f"ZZ{number:05d}Q" for number in range(100, 120))
    assert rest.message_en == (
        "Unknown cards on 9900 more lines, from line 101 on (only the first 100 unknown "
        "lines are listed one by one)."
    )
    assert rest.message_ja == (
        "101行目以降のさらに9900行にも見つからないカードがあります"
        "（1行ずつ示すのは最初の100行までです）。"
    )
    # Every line still counts towards the deck size.
    assert report.main_count == 10_000
    size = len(json.dumps(report.as_dict("ja")).encode())
    assert size < REPORT_BYTES_BOUND, size


def test_suggestions_15_repeated_unknown_name_is_searched_once(suggest_calls):
    pool = big_pool(200)
    near = kana_name(5)[:-1]  # one letter short of a card
    text = "\n".join([f"1 {near}"] * 30)
    report = check_decklist(text, RULES, DAY, pool)

    assert suggest_calls == [near]
    unknown = [v for v in report.violations if v.code == "UNKNOWN_CARD"]
    assert len(unknown) == 30
    assert {tuple(v.details["suggestions"]) for v in unknown} == {
        tuple(pool.suggest(near)),
    }
    assert kana_name(5) in unknown[0].details["suggestions"]


def test_suggestions_15_names_past_the_limit_say_suggestions_were_limited(suggest_calls):
    pool = big_pool(200)
    text = "\n".join(f"Q{chr(65 + number)}Z" for number in range(25))
    report = check_decklist(text, RULES, DAY, pool)

    assert len(suggest_calls) == 20
    unknown = [v for v in report.violations if v.code == "UNKNOWN_CARD"]
    assert [v.details for v in unknown[:20]] == [{"suggestions": []}] * 20
    assert [v.details for v in unknown[20:]] == [
        {"suggestions": [], "suggestions_limited": True}
    ] * 5
    # The one summary: on the first line past the limit only.
    note_en = " Suggestions are given for the first 20 unknown names only."
    note_ja = "候補は最初の20種類の名前にだけ示します。"
    assert unknown[20].message_en == f"Unknown card “QUZ” on line 21.{note_en}"
    assert unknown[20].message_ja == f"21行目の「QUZ」というカードは見つかりません。{note_ja}"
    assert [v.message_en for v in unknown[21:]] == [
        f"Unknown card “Q{chr(65 + n)}Z” on line {n + 1}." for n in range(21, 25)
    ]


def test_suggestions_15_suggest_matches_the_old_results():
    """Precomputing the folded names changes no answer: the same near names, best first."""
    pool = CardPool(
        CardInfo(key=name_key(name), name=name)
        for name in ["森原さとみ", "森原さとる", "ＡＢＣカード", "abcカード2", "スワティ"]
    )
    assert pool.suggest("森原さとる子")[:2] == ["森原さとる", "森原さとみ"]
    assert pool.suggest("ABCカード") == ["ＡＢＣカード", "abcカード2"]
    assert pool.suggest("") == []


def test_suggestions_15_suggest_cuts_a_long_query():
    pool = big_pool(50)
    long_name = kana_name(7) + "あ" * 290
    # Only the first SUGGEST_QUERY_CHARS characters are compared; still finds the card.
    assert pool.suggest(long_name)[0] == kana_name(7)


def test_suggestions_15_unreadable_lines_are_bounded_too():
    """The same bound for lines that cannot be read: 6,666 "〔〕" lines (20,000 characters)
    answered 3.3 MB, one PARSE_ERROR each."""
    text = "4 森原さとみ\n" + "〔〕\n" * 6_666
    report = check_decklist(text, RULES, DAY, big_pool(10))

    unreadable = [v for v in report.violations if v.code == "PARSE_ERROR"]
    assert len(unreadable) == check_module.NAMED_UNKNOWN_LINES + 1
    assert [v.lines for v in unreadable[:100]] == [(line,) for line in range(2, 102)]
    assert unreadable[0].details == {"text": "〔〕"}
    rest = unreadable[100]
    assert rest.lines == tuple(range(102, 6_668))
    assert rest.details == {"more_lines": 6_566}
    assert rest.message_en == (
        "6566 more lines cannot be read, from line 102 on (only the first 100 are listed "
        "one by one)."
    )
    assert rest.message_ja == (
        "102行目以降のさらに6566行を読めません（1行ずつ示すのは最初の100行までです）。"
    )
    size = len(json.dumps(report.as_dict("ja")).encode())
    assert size < REPORT_BYTES_BOUND, size
