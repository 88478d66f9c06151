"""Hand classification and the point tables (SPEC PS-2, PS-3, PS-4)."""

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardtable.cards import DECK, Card
from cardtable.poker_squares import TABLES, TARGETS, Hand, HandError, classify, score


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


@pytest.mark.deep
@pytest.mark.untraced
def test_all_2598960_hands_give_the_textbook_counts() -> None:
    counts = Counter(classify(hand) for hand in combinations(DECK, 5))
    assert counts == {
        Hand.ROYAL_FLUSH: 4,
        Hand.STRAIGHT_FLUSH: 36,
        Hand.FOUR_OF_A_KIND: 624,
        Hand.FULL_HOUSE: 3_744,
        Hand.FLUSH: 5_108,
        Hand.STRAIGHT: 10_200,
        Hand.THREE_OF_A_KIND: 54_912,
        Hand.TWO_PAIR: 123_552,
        Hand.ONE_PAIR: 1_098_240,
        Hand.NOTHING: 1_302_540,
    }
    assert sum(counts.values()) == 2_598_960


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("AS 2D 3H 4C 5S", Hand.STRAIGHT),  # the wheel: Ace low
        ("TS JD QH KC AS", Hand.STRAIGHT),  # broadway: Ace high
        ("QS KD AH 2C 3S", Hand.NOTHING),  # no wrap-around
        ("JS QD KH AC 2S", Hand.NOTHING),
        ("KS AD 2H 3C 4S", Hand.NOTHING),
        ("9S TD JH QC KS", Hand.STRAIGHT),
        ("AH 2H 3H 4H 5H", Hand.STRAIGHT_FLUSH),  # steel wheel is not royal
        ("9C TC JC QC KC", Hand.STRAIGHT_FLUSH),
        ("TD JD QD KD AD", Hand.ROYAL_FLUSH),
        ("2H 5H 9H JH KH", Hand.FLUSH),
        ("2H 5D 9H JD KH", Hand.NOTHING),  # one colour is not one suit
        ("2H 3D 4H 5D 6H", Hand.STRAIGHT),  # red straight is no straight flush
        ("7S 7H 7D 7C 2S", Hand.FOUR_OF_A_KIND),
        ("7S 7H 7D 2C 2S", Hand.FULL_HOUSE),
        ("7S 7H 7D 2C 3S", Hand.THREE_OF_A_KIND),
        ("7S 7H 2D 2C 3S", Hand.TWO_PAIR),
        ("7S 7H 2D 4C 3S", Hand.ONE_PAIR),
        ("AS AH KD KC 3S", Hand.TWO_PAIR),
        ("AS 3H 5D 7C 9S", Hand.NOTHING),
        ("AS 2S 3S 4S 6S", Hand.FLUSH),
    ],
)
def test_categories_at_every_edge(hand: str, expected: Hand) -> None:
    assert classify(cards(hand)) is expected


def test_royal_and_straight_flush_under_both_tables() -> None:
    royal, straight_flush = cards("TS JS QS KS AS"), cards("9S TS JS QS KS")
    assert score(royal, "american") == 100 and score(straight_flush, "american") == 75
    assert score(royal, "british") == 30 and score(straight_flush, "british") == 30
    assert classify(royal) is Hand.ROYAL_FLUSH and classify(straight_flush) is Hand.STRAIGHT_FLUSH


def test_tables_and_targets_match_the_spec() -> None:
    american = [100, 75, 50, 25, 20, 15, 10, 5, 2, 0]
    british = [30, 30, 16, 10, 5, 12, 6, 3, 1, 0]
    order = sorted(Hand, reverse=True)
    assert [TABLES["american"][h] for h in order] == american
    assert [TABLES["british"][h] for h in order] == british
    assert TARGETS == {"american": (18, 28, 38), "british": (9, 15, 20)}
    # British points value a straight above a flush; American the other way round.
    assert score(cards("2H 3D 4H 5D 6H"), "british") > score(cards("2H 5H 9H JH KH"), "british")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("AS 2S 3S 4S", "exactly 5 cards, got 4"),
        ("AS 2S 3S 4S 5S 6S", "exactly 5 cards, got 6"),
        ("AS AS 3S 4S 5S", "duplicate card AS"),
    ],
)
def test_anything_but_five_distinct_cards_is_refused(bad: str, message: str) -> None:
    with pytest.raises(HandError, match=message):
        classify(cards(bad))


def test_non_cards_and_unknown_tables_are_refused() -> None:
    with pytest.raises(HandError, match="not a card"):
        classify(["AS", "2S", "3S", "4S", "5S"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="unknown point table 'french'"):
        score(cards("AS 2S 3S 4S 5S"), "french")


@given(st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True), st.randoms())
def test_score_does_not_depend_on_card_order(hand: list[Card], rnd: object) -> None:
    shuffled = list(hand)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    for table in TABLES:
        assert score(hand, table) == score(shuffled, table)
    assert classify(hand) is classify(reversed(hand))
