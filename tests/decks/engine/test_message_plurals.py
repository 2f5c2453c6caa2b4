"""English violation messages say "1 card" and "2 cards" (the engine's own plural forms:
it runs without Django's translation machinery)."""

import pytest

from decks.engine.messages import MESSAGES, UNKNOWN_LIMITS, render


@pytest.mark.parametrize(
    ("code", "values", "expected"),
    [
        (
            "DECK_TOO_SMALL",
            {"count": 1, "minimum": 50},
            "The deck has 1 card; it needs at least 50.",
        ),
        (
            "DECK_TOO_SMALL",
            {"count": 49, "minimum": 50},
            "The deck has 49 cards; it needs at least 50.",
        ),
        (
            "DECK_TOO_SMALL",
            {"count": 0, "minimum": 50},
            "The deck has 0 cards; it needs at least 50.",
        ),
        (
            "SIDEBOARD_NOT_ALLOWED",
            {"count": 1},
            "This format has no sideboard, but 1 card is listed in one.",
        ),
        (
            "SIDEBOARD_NOT_ALLOWED",
            {"count": 3},
            "This format has no sideboard, but 3 cards are listed in one.",
        ),
        (
            "TOO_MANY_COPIES",
            {"count": 5, "name": "スワティ", "limit": 4},
            "5 copies of スワティ in deck and sideboard together; at most 4.",
        ),
        (
            "LEADER_COUNT",
            {"expected": 2, "card_type": "CHARACTER", "count": 1},
            "The deck needs exactly 2 CHARACTER cards beside it; 1 listed.",
        ),
        (
            "SWAP_SIZE_MISMATCH",
            {"out_count": 1, "in_count": 2},
            "1 card goes out but 2 come in; the deck size must stay the same.",
        ),
    ],
)
def test_english_plural_forms(code, values, expected):
    english, japanese = render(code, values)
    assert english == expected
    # Japanese has no plural forms: the number is the same either way.
    assert str(values.get("count", values.get("out_count"))) in japanese


def test_limit_messages_say_one_more_line():
    english, _ = render(
        "UNKNOWN_CARDS_MORE", {"count": 1, "first": 101, "limit": 100}, UNKNOWN_LIMITS
    )
    assert english.startswith("Unknown cards on 1 more line, from line 101 on")
    english, _ = render(
        "PARSE_ERRORS_MORE", {"count": 1, "first": 102, "limit": 100}, UNKNOWN_LIMITS
    )
    assert english.startswith("1 more line cannot be read, from line 102 on")


def test_no_message_writes_card_s():
    """Messages choose "card" or "cards" instead of writing "card(s)"."""
    for code, (english, _japanese) in MESSAGES.items():
        assert "card(s)" not in english, code
