"""Kings Corner for 2-4 players: rules engine (SPEC KC-1..KC-22).

Rules
-----
One 52-card deck. Each player gets 7 cards; four cards go face up at North, East, South
and West of the stock (the centre piles); the four corners NE, SE, SW, NW start empty.
Cards build down by exactly one rank in alternating colour, any suit (black 8 on red 9);
an Ace ends a pile. An empty corner takes only a King. All piles are shared. On a turn a
player may make any number of legal plays and then ends the turn. The round ends the
moment a hand is empty (that player wins), or when it is blocked: the stock is empty,
nobody can place a card and no pile move exists (checked at the start of each turn).
Penalty: 1 per card left in hand, 10 per King; blocked rounds are won by the lowest
penalty (ties share). A `Match` plays 1, 3 or 5 rounds; the lowest total wins.

Options (`Rules`)
-----------------
- ``draw="first"`` draw one card at the start of a turn; ``"last"``: ending the turn draws
  one card, a drawn King goes at once to the first empty corner (NW, NE, SE, SW).
- ``pile_moves=True``: a whole centre pile moves onto a pile its head builds on, or into
  an empty corner when headed by a King; never into an empty centre pile, never from a
  corner. An empty centre pile takes any card but a King from a hand.
- ``kings="first"``: while a player holds a King and a corner is empty, placing a King
  there is the only legal action.
- ``dealt_kings="corner"``: Kings dealt to the centre move to corners, refilled from the
  stock; ``"stay"`` leaves them heading their centre pile.
Presets: ``Rules.preset("standard" | "draw-last" | "simple")``.

Moves
-----
``"9H>N"`` play 9H onto N; ``"E>NW"`` move pile E onto (or into) NW; ``"end"`` end the
turn. ``Move.parse(str(m)) == m``.

>>> from cardtable.kings_corner import Rules, setup, play, play_events, legal_moves
>>> s = setup(Rules(), piles={"N": ["9H"]}, hands=[["8S", "KD"], ["2C"]], stock=[])
>>> [str(m) for m in legal_moves(s)]
['8S>N', '8S>E', '8S>S', '8S>W', 'KD>NE', 'KD>SE', 'KD>SW', 'KD>NW', 'end']
>>> play(s, "8D>N")
Traceback (most recent call last):
...
cardtable.interface.IllegalMove: 8D is not in your hand
>>> s2, events = play_events(s, "8S>N")
>>> [e.seen_by(0) for e in events]
[{'kind': 'play', 'seat': 0, 'card': '8S', 'pile': 'N'}]

Events, derived facts and the game interface
--------------------------------------------
`play_events` also reports what happened (`cardtable.interface.Event`: play, pile_move,
end_turn, draw, king_to_corner, turn, round_over; see `engine`). `view` carries what each
pile accepts, why each card or pile is refused where it is (keys in `reasons`) and the
board at the start of the turn (see `view`). `ENGINE` (module `api`) is one round through
the game interface every game shares.
"""

from .api import ENGINE
from .deal import deal, from_view, setup
from .engine import default_move, legal_moves, move_codes, play, play_events, refusal, undo
from .match import Match, MatchError, RoundResult
from .moves import END, Event, IllegalMove, Move, MoveError
from .rules import PRESETS, Rules, RulesError
from .state import State, StateError, penalty
from .view import view

__all__ = [
    "END",
    "ENGINE",
    "PRESETS",
    "Event",
    "IllegalMove",
    "Match",
    "MatchError",
    "Move",
    "MoveError",
    "RoundResult",
    "Rules",
    "RulesError",
    "State",
    "StateError",
    "deal",
    "default_move",
    "from_view",
    "legal_moves",
    "move_codes",
    "penalty",
    "play",
    "play_events",
    "refusal",
    "setup",
    "undo",
    "view",
]
