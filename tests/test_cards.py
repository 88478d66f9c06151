"""Cards: notation, the deck, seeded shuffles (SPEC C-1, C-2)."""

import random

import pytest

from cardtable.cards import (
    DECK,
    Card,
    CardError,
    Colour,
    Suit,
    shuffled_deck,
)


def test_notation_round_trips_for_every_card() -> None:
    assert len(DECK) == 52 and len(set(DECK)) == 52
    for card in DECK:
        assert Card.parse(str(card)) is card
        assert DECK[card.index] is card


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("TH", 10, Suit.HEARTS),
        ("10H", 10, Suit.HEARTS),
        ("as", 1, Suit.SPADES),
        (" KD ", 13, Suit.DIAMONDS),
        ("2C", 2, Suit.CLUBS),
    ],
)
def test_parse_accepts_the_notations(text: str, rank: int, suit: Suit) -> None:
    card = Card.parse(text)
    assert (card.rank, card.suit) == (rank, suit)


@pytest.mark.parametrize("text", ["", "T", "1H", "11H", "TX", "HT", "10", "AHH", "0S"])
def test_bad_text_raises_naming_the_text(text: str) -> None:
    with pytest.raises(CardError, match="not a card") as info:
        Card.parse(text)
    assert repr(text) in str(info.value)


def test_colours_follow_suits_not_names() -> None:
    assert Card.parse("9H").colour is Colour.RED and Card.parse("9D").is_red
    assert Card.parse("9S").colour is Colour.BLACK and not Card.parse("9C").is_red


def test_str_uses_t_for_ten_and_names_for_readers() -> None:
    assert str(Card.parse("10S")) == "TS"
    assert Card.parse("7H").name == "7 of hearts"
    assert Card.parse("QC").name == "Queen of clubs"


def test_invalid_card_values_are_refused() -> None:
    with pytest.raises(CardError):
        Card(14, Suit.SPADES)


def test_shuffle_is_reproducible_from_its_seed() -> None:
    a, b = shuffled_deck(7), shuffled_deck(7)
    assert a == b and sorted(a, key=lambda c: c.index) == list(DECK)
    assert shuffled_deck(8) != a
    assert shuffled_deck(random.Random(7)) == a
