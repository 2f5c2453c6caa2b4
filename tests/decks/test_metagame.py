"""The metagame figures (decks.metagame), pure Python: exact counts, shares and averages."""

from decimal import Decimal
from fractions import Fraction

from decks.metagame import CardLine, Decklist, element_key, metagame, percent


def card(card_id, name, count, *, kind="CHARACTER", element="", section="main", en=""):
    return CardLine(
        card_id=card_id,
        name=name,
        name_en=en,
        count=count,
        section=section,
        card_type=kind,
        elements=(element,) if element else (),
    )


SATOMI = (1, "森原 さとみ")
FEELIA = (2, "狡猾フィーリア")
SWATI = (3, "スワティ")
FIREBALL = (4, "ファイアボール")


def decks():
    """Three decks: a fire/wind deck (1st, top cut), a fire deck (2nd, top cut) and a
    no-element deck with an unknown card line and a sideboard."""
    return [
        Decklist(
            player="A",
            placing=1,
            top_cut=True,
            top_cut_result="champion",
            lines=(
                card(*SATOMI, 4, element="火", en="Satomi Morihara"),
                card(*FEELIA, 4, element="風"),
                card(*SWATI, 40, kind="NAVIGATOR"),
                card(*FIREBALL, 2, kind="SPELL", element="火"),
            ),
        ),
        Decklist(
            player="B",
            placing=2,
            top_cut=True,
            top_cut_result="finalist",
            lines=(
                card(*SATOMI, 3, element="火", en="Satomi Morihara"),
                card(*SWATI, 45, kind="NAVIGATOR"),
                card(*FIREBALL, 1, kind="SPELL", element="火"),
                card(*FIREBALL, 1, kind="SPELL", element="火"),
            ),
        ),
        Decklist(
            player="C",
            placing=3,
            lines=(
                card(*SWATI, 48, kind="NAVIGATOR"),
                CardLine(card_id=None, name="ないカード", count=2),
                card(*FEELIA, 2, element="風", section="side"),
            ),
        ),
    ]


def test_element_shares_per_deck_and_per_copy():
    meta = metagame(decks())
    assert meta.decks == 3
    # main copies of resolved cards: 50 + 50 + 48
    assert meta.main_copies == 148
    assert [(s.key, s.decks, s.deck_share, s.copies, s.copy_share) for s in meta.elements] == [
        ("火", 2, Fraction(2, 3), 4 + 2 + 3 + 2, Fraction(11, 148)),
        ("風", 1, Fraction(1, 3), 4, Fraction(4, 148)),
    ]
    assert [(s.deck_percent, s.copy_percent) for s in meta.elements] == [
        (Decimal("66.7"), Decimal("7.4")),
        (Decimal("33.3"), Decimal("2.7")),
    ]


def test_card_type_shares():
    meta = metagame(decks())
    assert [(s.key, s.decks, s.copies) for s in meta.card_types] == [
        ("NAVIGATOR", 3, 133),
        ("CHARACTER", 2, 11),
        ("SPELL", 2, 4),
    ]
    assert meta.card_types[0].copy_share == Fraction(133, 148)


def test_element_combinations_with_top_cut_counts():
    meta = metagame(decks())
    assert [(c.key, c.decks, c.share, c.top_cut_decks) for c in meta.combinations] == [
        ("", 1, Fraction(1, 3), 0),
        ("火", 1, Fraction(1, 3), 1),
        ("火風", 1, Fraction(1, 3), 1),
    ]


def test_most_played_cards_main_and_side():
    meta = metagame(decks())
    rows = [(u.card_id, u.name, u.decks, u.percent, u.copies, u.average) for u in meta.main_cards]
    assert rows == [
        (3, "スワティ", 3, Decimal("100.0"), 133, Decimal("44.33")),
        # equal decks: more copies first
        (1, "森原 さとみ", 2, Decimal("66.7"), 7, Decimal("3.50")),
        # two lines of one card in one deck count as one deck playing it
        (4, "ファイアボール", 2, Decimal("66.7"), 4, Decimal("2.00")),
        (2, "狡猾フィーリア", 1, Decimal("33.3"), 4, Decimal("4.00")),
    ]
    assert meta.main_cards[1].name_en == "Satomi Morihara"
    assert [(u.name, u.decks, u.copies, u.average) for u in meta.side_cards] == [
        ("狡猾フィーリア", 1, 2, Decimal("2.00")),
    ]
    assert meta.unresolved_lines == 1


def test_top_cut_summary_by_placing():
    meta = metagame(decks())
    assert [(t.player, t.placing, t.top_cut_result, t.elements) for t in meta.top_cut] == [
        ("A", 1, "champion", "火風"),
        ("B", 2, "finalist", "火"),
    ]
    first = meta.top_cut[0]
    assert (first.main_count, first.side_count) == (50, 0)
    assert first.copies_by_type == {"CHARACTER": 8, "NAVIGATOR": 40, "SPELL": 2}
    assert [(c.name, c.count) for c in first.key_cards] == [
        ("スワティ", 40),
        ("森原 さとみ", 4),
        ("狡猾フィーリア", 4),
    ]
    # a card on two lines counts once with its total
    assert [(c.name, c.count) for c in meta.top_cut[1].key_cards] == [
        ("スワティ", 45),
        ("森原 さとみ", 3),
        ("ファイアボール", 2),
    ]


def test_no_decks_is_empty_without_dividing_by_zero():
    meta = metagame([])
    assert meta.empty
    assert (meta.elements, meta.main_cards, meta.top_cut) == ((), (), ())


def test_helpers():
    assert element_key({"空", "火", "水"}) == "火水空"
    assert percent(Fraction(1, 8)) == Decimal("12.5")
    assert percent(Fraction(1, 3)) == Decimal("33.3")
    assert percent(Fraction(2, 3)) == Decimal("66.7")
