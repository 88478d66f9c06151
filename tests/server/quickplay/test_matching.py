"""The matching rules alone (cardtable/server/quickplay/matching.py): nearest rating first, the
gap widening with the anchor's wait, "any" fitting every size, blocks in either direction,
the fill, the computers' strength and the rated decision."""

from __future__ import annotations

from cardtable import kings_corner as kc
from cardtable.server.core.quick_config import QuickSettings
from cardtable.server.online.room import Config
from cardtable.server.quickplay.matching import Waiter, gap, groups, rated, strength_for

S = QuickSettings()


def w(name: str, rating: float = 1500.0, players: int | None = 2, at: float = 0.0,
      address: str | None = None, preset: str = "standard") -> Waiter:  # fmt: skip
    address = address or "a-" + name
    return Waiter(player=name, ticket="t", cred="c-" + name, players=players, preset=preset,
                  rating=rating, name=name, address=address, joined_at=at)  # fmt: skip


def names(found: list) -> list[list[str]]:
    return [[m.player for m in g.members] for g in found]


def test_nearest_rating_first() -> None:
    queue = [w("a", 1500, at=0), w("b", 1620, at=1), w("c", 1540, at=2)]
    assert names(groups(queue, set(), 2.0, S)) == [["a", "c"]]


def test_the_gap_widens_with_waiting() -> None:
    queue = [w("a", 1500, at=0), w("b", 1900, at=0)]
    assert groups(queue, set(), 0.0, S) == []
    assert gap(0, S) == S.gap_points
    wait = (400 - S.gap_points) / S.gap_per_second
    assert names(groups(queue, set(), wait, S)) == [["a", "b"]]


def test_presets_never_mix() -> None:
    queue = [w("a", at=0), w("b", at=0, preset="simple")]
    assert groups(queue, set(), 1.0, S) == []


def test_any_fits_every_size_and_blocks_hold_both_ways() -> None:
    queue = [w("a", players=3, at=0), w("b", players=None, at=1), w("c", players=3, at=2)]
    assert names(groups(queue, set(), 3.0, S)) == [["a", "b", "c"]]
    for pair in ({"a", "b"}, {"b", "a"}):
        found = groups(queue, {frozenset(pair)}, 3.0, S)
        assert found == []
        filled = groups(queue, {frozenset(pair)}, S.fill_seconds, S)
        for g in filled:
            assert not {"a", "b"} <= {m.player for m in g.members}


def test_the_fill_takes_the_table_with_most_persons() -> None:
    queue = [w("a", players=None, at=0), w("b", players=3, at=1)]
    found = groups(queue, set(), S.fill_seconds, S)
    assert [(names([g])[0], g.size, g.computers) for g in found] == [(["a", "b"], 3, 1)]


def test_computer_strength_nearest_the_mean() -> None:
    fixed = {"easy": 1200.0, "normal": 1500.0, "strong": 1800.0}
    assert strength_for([1700, 1800], list(fixed), fixed.__getitem__) == "strong"
    assert strength_for([1300, 1400], list(fixed), fixed.__getitem__) == "easy"


def test_rated() -> None:
    a, b = w("a"), w("b")
    assert rated([a, b], {}, 3)
    assert not rated([a, w("b", address="a-a")], {}, 3)
    assert not rated([a, b], {frozenset(("a", "b")): 3}, 3)
    assert rated([a, b], {frozenset(("a", "b")): 2}, 3)


def test_rooms_saved_before_quick_play_load_neither_quick_nor_rated() -> None:
    old = Config(2, kc.Rules.from_options("standard"), 1, None, 60.0, "normal", 1.0).to_dict()
    del old["quick"], old["rated"]
    loaded = Config.from_dict(old)
    assert (loaded.quick, loaded.rated) == (False, False)
    made = Config.from_dict({**old, "quick": True, "rated": True})
    assert (made.quick, made.rated) == (True, True)
