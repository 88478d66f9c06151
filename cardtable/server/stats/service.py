"""What the statistics feature does: a player's statistics and history for both games, and
their data: export and delete (docs/api.md, "Statistics, history and your data").

Everything is computed from what the store keeps (docs/reliability.md, "Retention"): the
result rows for counts, totals and results; the newest finished games' states for what only
a state holds (the hands of a Poker Squares deal; the rule set and the round winners of a
Kings Corner match). A match whose state is no longer kept counts under rule set
``unknown`` and adds no rounds won.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from cardtable.poker_squares import ENGINE
from cardtable.poker_squares.hands import Hand
from cardtable.server.core.store import Store
from cardtable.server.daily.public import DailyStore, settle
from cardtable.server.devices.public import DeviceStore
from cardtable.server.games.public import KC_KIND, PS_KIND, SavedMatch, SavedMatchError, StatsStore
from cardtable.server.rating.public import exported as exported_ratings
from cardtable.server.rating.public import forget as forget_ratings
from cardtable.server.stats.models import (
    Bar,
    History,
    HistoryItem,
    KCGroup,
    KCStats,
    PSGroup,
    PSTable,
    Stats,
)

HISTORY = 100
STRENGTH_ORDER = ("easy", "normal", "strong")


def _ps_group(totals: list[int], hits: int, hands: Counter[str]) -> PSGroup:
    counts = Counter(totals)
    return PSGroup(
        deals=len(totals),
        mean=round(sum(totals) / len(totals), 2) if totals else None,
        best=max(totals) if totals else None,
        target_hits=hits,
        distribution=[Bar(total=t, deals=n) for t, n in sorted(counts.items())],
        hands={h.key: hands.get(h.key, 0) for h in Hand},
    )


def _ps(stats: StatsStore, player: str) -> dict[str, PSTable]:
    totals: dict[tuple[str, bool], list[int]] = defaultdict(list)
    hits: Counter[tuple[str, bool]] = Counter()
    for f in stats.finishes(player, PS_KIND):
        if f.total is None:
            continue
        totals[(f.variant, f.practice)].append(f.total)
        hits[(f.variant, f.practice)] += bool(f.summary.get("target_reached"))
    hands: dict[tuple[str, bool], Counter[str]] = defaultdict(Counter)
    for state in stats.finished_states(player, PS_KIND).values():
        try:
            game = ENGINE.from_dict(state)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            continue
        hands[(game.table, game.practice)].update(h.key for h in game.line_hands if h is not None)

    def group(table: str, practice: bool) -> PSGroup:
        key = (table, practice)
        return _ps_group(totals[key], hits[key], hands[key])

    return {
        table: PSTable(unassisted=group(table, False), practice=group(table, True))
        for table in ("american", "british")
    }


# -- Kings Corner ---------------------------------------------------------------------------
class _KCTally:
    def __init__(self) -> None:
        self.matches = self.won = self.rounds = self.rounds_won = self.penalty = 0

    def out(self) -> KCGroup:
        return KCGroup(
            matches=self.matches,
            matches_won=self.won,
            rounds=self.rounds,
            rounds_won=self.rounds_won,
            mean_penalty=round(self.penalty / self.rounds, 2) if self.rounds else None,
        )


def _opponent(players: list[dict[str, Any]]) -> str:
    strengths = [p.get("strength") for p in players if p.get("kind") == "computer"]
    known = [s for s in STRENGTH_ORDER if s in strengths]
    return known[-1] if known else "people"


def _kc(stats: StatsStore, player: str) -> KCStats:
    states = stats.finished_states(player, KC_KIND)
    tallies: dict[tuple[str, str], _KCTally] = defaultdict(_KCTally)
    for f in stats.finishes(player, KC_KIND):
        players = f.summary.get("players") or []
        seats = [i for i, p in enumerate(players) if p.get("kind") == "human"]
        if not seats:
            continue
        seat = seats[0]
        totals = f.summary.get("totals") or []
        rule_set, rounds_won = "unknown", 0
        state = states.get(f.game_id)
        if state is not None:
            try:
                match = SavedMatch.from_dict(state).match
                rule_set = match.rules.name
                rounds_won = sum(seat in r.winners for r in match.round_results)
            except (SavedMatchError, ValueError, TypeError, KeyError, AttributeError):
                pass
        keys = (("all", ""), ("opponent", _opponent(players)), ("rules", rule_set))
        for key in keys:
            t = tallies[key]
            t.matches += 1
            t.won += seat in (f.summary.get("winners") or [])
            t.rounds += int(f.summary.get("rounds") or 0)
            t.rounds_won += rounds_won
            t.penalty += int(totals[seat]) if seat < len(totals) else 0
    return KCStats(
        all=tallies[("all", "")].out(),
        by_opponent={k: v.out() for (g, k), v in sorted(tallies.items()) if g == "opponent"},
        by_rule_set={k: v.out() for (g, k), v in sorted(tallies.items()) if g == "rules"},
    )


# -- routes ---------------------------------------------------------------------------------
def stats(store: Store, player: str) -> Stats:
    """Poker Squares per table (unassisted and practice apart) and Kings Corner overall, by
    opponent strength and by rule set."""
    s = StatsStore(store)
    return Stats(poker_squares=_ps(s, player), kings_corner=_kc(s, player))


def _kc_kept(state: Any) -> tuple[int, bool]:
    """(finished rounds that can be replayed, dealt from fair shuffles) of a kept match."""
    if state is None:
        return 0, False
    try:
        match = SavedMatch.from_dict(state).match
    except (SavedMatchError, ValueError, TypeError, KeyError):
        return 0, False
    rounds = match.round - 1 + (1 if match.state.is_over else 0)
    return rounds, match.round_fair is not None


def history(store: Store, player: str) -> History:
    """The newest finished games of both kinds (at most 100), newest first."""
    settle(store, player)
    s = StatsStore(store)
    daily = {e.game_id: e.day for e in DailyStore(store).history(player, HISTORY)}
    kept = s.finished_states(player, PS_KIND, HISTORY)
    kept_kc = s.finished_states(player, KC_KIND, HISTORY)
    items: list[HistoryItem] = []
    for f in s.finishes(player, PS_KIND, HISTORY):
        items.append(
            HistoryItem(
                game="poker-squares", id=f.game_id, finished_at=f.finished_at,
                variant=f.variant, target=(f.summary.get("target") or {}).get("level"),
                total=f.total, practice=f.practice, daily=daily.get(f.game_id),
                won=None, penalty=None,
                replayable=f.game_id in kept, reviewable=f.game_id in kept,
                checkable="fair" in kept.get(f.game_id, {}),
            )
        )  # fmt: skip
    for f in s.finishes(player, KC_KIND, HISTORY):
        players = f.summary.get("players") or []
        seats = [i for i, p in enumerate(players) if p.get("kind") == "human"]
        totals = f.summary.get("totals") or []
        seat = seats[0] if seats else None
        rounds, fair = _kc_kept(kept_kc.get(f.game_id))
        items.append(
            HistoryItem(
                game="kings-corner", id=f.game_id, finished_at=f.finished_at,
                variant=f.variant, target=None, total=None, practice=f.practice, daily=None,
                won=None if seat is None else seat in (f.summary.get("winners") or []),
                penalty=None if seat is None or seat >= len(totals) else int(totals[seat]),
                replayable=False, replay_rounds=rounds, checkable=fair,
            )
        )  # fmt: skip
    items.sort(key=lambda i: i.finished_at, reverse=True)
    return History(items=items[:HISTORY])


def export(store: Store, player: str) -> dict[str, Any]:
    """Everything the server keeps for the caller, as one JSON document, each game as its
    player may see it (`games.public.shown`: an unfinished game's view, never its state)."""
    settle(store, player)
    data = StatsStore(store).export(player)
    daily = DailyStore(store).export(player)
    return {
        "format": "cardtable-export/1",
        **data,
        **daily,
        "ratings": exported_ratings(store, player),
    }


def delete(store: Store, player: str) -> None:
    """Delete everything the server keeps for the caller, the player id included, with
    every device credential, recovery key and transfer code of the record: every browser
    of it then starts afresh with a new id."""
    DailyStore(store).delete_player(player)
    StatsStore(store).delete_player(player)
    forget_ratings(store, player)
    DeviceStore(store).delete_player(player)
