"""The English wording of every refusal, by its stable key (the keys a translated page uses).

The engine decides *whether* and *why* a move is refused (`engine.refusal`, a key and its
parameters); this module only words it. ``KEYS`` lists every key the engine can give.

======================  ==========================  ============================================
key                     params                      when
======================  ==========================  ============================================
not_in_hand             card                        the card is not in the mover's hand
kings_first             (none)                      kings-first forces a King to a corner (KC-15)
on_ace                  card, tail [, pile]         nothing goes on an Ace (KC-4)
king_on_card            card, tail [, pile]         a King only starts an empty corner (KC-4)
not_one_below           card, tail [, pile]         not one rank below the tail (KC-4)
same_colour             card, tail [, pile]         the same colour as the tail (KC-4)
king_to_centre          card                        a King to an empty centre pile (KC-11)
corner_needs_king       card                        a non-King to an empty corner (KC-5)
pile_moves_off          (none)                      a pile move with the option off (KC-12)
corner_never_moves      pile                        a corner as the source (KC-9)
empty_source            pile                        an empty source pile
onto_itself             pile                        a pile onto itself
pile_to_empty_centre    pile                        a pile into an empty centre pile (KC-11)
pile_corner_needs_king  pile, card                  a non-King-headed pile to an empty corner
round_over              (none)                      any move or undo once the round is over
nothing_to_undo         (none)                      undo at the start of a turn (KC-8)
======================  ==========================  ============================================

For a pile move whose head does not build on the target, the build keys carry ``card`` (the
head), ``tail`` and ``pile`` (the source).
"""

from __future__ import annotations

from collections.abc import Mapping

from ._tables import BY_TEXT, colour_word

KINGS_FIRST = "kings first: a held King must go to an empty corner before anything else"

_FIXED = {
    "kings_first": KINGS_FIRST,
    "king_to_centre": "a King cannot go to an empty centre pile",
    "pile_moves_off": "pile moves are off in these rules",
    "onto_itself": "a pile cannot move onto itself",
    "pile_to_empty_centre": "a pile never moves into an empty centre pile",
    "round_over": "the round is over",
    "nothing_to_undo": "nothing to undo in this turn",
}
_BUILD = {
    "on_ace": "nothing goes on an Ace ({tail})",
    "king_on_card": "a King only starts an empty corner, it cannot go on {tail}",
    "not_one_below": "{card} is not one rank below {tail}",
    "same_colour": "{card} is {colour} like {tail}",
}
_NAMED = {
    "not_in_hand": "{card} is not in your hand",
    "corner_needs_king": "only a King can start an empty corner, not {card}",
    "corner_never_moves": "a corner pile never moves ({pile} is a corner)",
    "empty_source": "pile {pile} is empty",
    "pile_corner_needs_king": (
        "only a pile headed by a King can move to an empty corner ({pile} starts with {card})"
    ),
}
KEYS: frozenset[str] = frozenset((*_FIXED, *_BUILD, *_NAMED))


def text(key: str, params: Mapping[str, str]) -> str:
    """The sentence for a refusal key (one of `KEYS`) and its parameters."""
    if key not in KEYS:
        raise ValueError(f"unknown refusal key {key!r}")
    if key in _FIXED:
        return _FIXED[key]
    if key in _BUILD:
        card = params["card"]
        said = _BUILD[key].format(colour=colour_word(BY_TEXT[card]), **params)
        if "pile" in params:  # a pile move: the source's head is the card that must build
            return f"{params['pile']} starts with {card}: {said}"
        return said
    return _NAMED[key].format(**params)
