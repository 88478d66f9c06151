"""What one device sees of a Poker Squares table: the PSTable JSON (docs/ps-tables.md), per
device and per version.

Before the end a device sees the card on show and its own grid, never a card after the one
on show nor another player's grid: its own grid is the engine's view of its own game, with
the card it would place next removed once it has placed the one on show (that next card is
still hidden from everyone). Every grid, the 25 cards, the ranking and the seed come at the
end. Rendered once per (table, version, viewer's seat) and kept a little (`Views`): the
devices of one seat and the spectators share their text.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from cardtable.fairness import fair_deck
from cardtable.poker_squares import CELLS, Game
from cardtable.poker_squares import view as ps_view
from cardtable.server.pstables.room import LOBBY, OVER, PLAYING, Placed, Room, ranking
from cardtable.server.pstables.store import Record

LOG_KEPT = 50


def iso(at: float | None) -> str | None:
    if at is None:
        return None
    return datetime.fromtimestamp(at, UTC).isoformat().replace("+00:00", "Z")


def device_view(room: Room, record: Record, token: str, player: str | None) -> dict[str, Any]:
    """The PSTable the device of ``player`` may see (None, or no seat: a spectator)."""
    placed = record.placed()
    me = None if player is None else room.seat_of(player)
    card = room.card if room.phase == PLAYING else None
    done = {s.seat for s in room.seats if card is not None and placed.count(s.seat) > card}
    cards = room.cards()
    over = room.phase == OVER
    return {
        "token": token,
        "code": record.row.code if room.is_open else None,
        "version": record.version,
        "phase": room.phase,
        "settings": {
            "table": room.settings.table,
            "card_seconds": room.settings.card_seconds,
            "max_players": room.settings.max_players,
        },
        "you": {
            "seat": None if me is None else me.seat,
            "host": me is not None and me.seat == room.host,
        },
        "players": [
            {
                "seat": s.seat,
                "name": s.name,
                "host": s.seat == room.host,
                "presence": s.presence,
                "placed": s.seat in done,
                "ready": s.ready,
            }
            for s in room.seats
        ],
        "spectators": room.spectators,
        "card": None if card is None else {"index": card, "card": str(cards[card])},
        "deadline": None if card is None else iso(room.deadline),
        "placed": len(done),
        "game": None if me is None or room.phase == "lobby" else _own_game(room, placed, me.seat),
        "log": _log(room, record, None if me is None else me.seat),
        "fairness": {
            "commitment": room.fair.commitment,
            "seed": room.fair.seed if over else None,
            "salt": room.fair.salt if over else None,
        },
        "result": _result(room, placed, cards) if over else None,
        "deal": room.deal,
    }


def _log(room: Room, record: Record, seat: int | None) -> list[dict[str, Any]]:
    """The hint's placements of this deal, newest last; before the end the cell only of the
    viewer's own (another player's cell is a piece of their grid)."""
    shown = room.phase == OVER
    return [
        {
            "at": iso(p.at),
            "kind": "hint_placed",
            "seat": p.seat,
            "card": p.card,
            "cell": _cell(p.cell) if shown or p.seat == seat else None,
            "reason": p.hint,
        }
        for p in sorted(record.placements, key=lambda p: (p.at, p.card, p.seat))
        if p.hint is not None
    ][-LOG_KEPT:]


def _cell(cell: int) -> str:
    return f"{'abcde'[cell % 5]}{cell // 5 + 1}"


def _own_game(room: Room, placed: Placed, seat: int) -> dict[str, Any]:
    """The engine's view of the seat's own grid; while playing, once the seat has placed the
    card on show, without the next card (nobody may see it yet)."""
    hide = room.phase == PLAYING and placed.count(seat) > (room.card or 0)
    cells = tuple(placed.cells.get(seat, ()))
    return _game_view(room.settings.table, room.fair.seed, cells, hide)


@lru_cache(maxsize=4096)
def _game_view(table: str, seed: str, cells: tuple[int, ...], hide: bool) -> dict[str, Any]:
    """A grid's view, worked out once: a placement changes one seat's grid, so the other
    seats' views of the same table are the ones made for the change before (callers only
    read the dictionary)."""
    game = Game(table, tuple(fair_deck(seed)[:CELLS]), placements=cells)
    view = ps_view(game, 0)
    if hide:
        view = {**view, "card": None, "legal_moves": []}
    return {**view, "can_undo": False}


def _result(room: Room, placed: Placed, cards: tuple[Any, ...]) -> dict[str, Any]:
    return {
        "cards": [str(c) for c in cards],
        "ranking": [
            {
                "seat": seat.seat,
                "name": seat.name,
                "place": place,
                "total": game.total,
                "game": {**ps_view(game, None), "can_undo": False},
            }
            for place, seat, game in ranking(room, placed)
        ],
    }


class Views:
    """Rendered tables, by (table, version, seat): the text sent to every device of a seat.
    What every device of a version sees alike is encoded once; each seat adds its ``you``
    and its own grid's view (encoded once per grid, `_game_text`)."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._kept: OrderedDict[tuple[str, int, int | None], str] = OrderedDict()
        self._shared: OrderedDict[tuple[str, int], str] = OrderedDict()
        self._lock = threading.Lock()

    def text(self, room: Room, record: Record, token: str, player: str | None) -> str:
        me = None if player is None else room.seat_of(player)
        seat = None if me is None else me.seat
        at = (record.key, record.version, seat)
        with self._lock:
            kept = self._kept.get(at)
            shared = self._shared.get(at[:2])
        if kept is not None:
            return kept
        if shared is None:
            common = device_view(room, record, token, None)
            del common["you"], common["game"], common["log"]
            shared = json.dumps(common, separators=(",", ":"))
            _keep(self._shared, at[:2], shared, self._size, self._lock)
        you = {"seat": seat, "host": seat is not None and seat == room.host}
        game = "null"
        if seat is not None and room.phase != LOBBY:
            placed = record.placed()
            hide = room.phase == PLAYING and placed.count(seat) > (room.card or 0)
            cells = tuple(placed.cells.get(seat, ()))
            game = _game_text(room.settings.table, room.fair.seed, cells, hide)
        log = json.dumps(_log(room, record, seat), separators=(",", ":"))
        mine = json.dumps(you, separators=(",", ":"))
        text = f'{{"you":{mine},"game":{game},"log":{log},{shared[1:]}'
        _keep(self._kept, at, text, self._size, self._lock)
        return text


def _keep(kept: OrderedDict[Any, str], at: Any, text: str, size: int, lock: Any) -> None:
    with lock:
        kept[at] = text
        if len(kept) > size:
            kept.popitem(last=False)


@lru_cache(maxsize=4096)
def _game_text(table: str, seed: str, cells: tuple[int, ...], hide: bool) -> str:
    return json.dumps(_game_view(table, seed, cells, hide), separators=(",", ":"))
