"""What the daily deal does (docs/daily.md): the day's deal and board, an attempt dealt and
settled, streaks and display names. The routes (`routes`) parse and answer; the tables are
`store`'s.

One deal per calendar date and point table, the same for everyone: its seed is drawn once
and kept in `daily_deals`. A player plays the date of their own time zone, so a date is open
while some time zone is on it (`days`: 50 hours, from UTC+14's midnight to UTC-12's). `play`
deals it as an ordinary Poker Squares game (played with the usual move routes); the
player's first attempt of the date is their entry, any later one is a practice replay. An
entry is settled as soon as its deal is finished (`settle`, run after the finishing move's
answer, `records.when_finished`; and again whenever the player reads the daily, for an entry
a stopped process left open): counted if the deal was finished unassisted, and on the board
if the player id was created before the first time zone reached the date
(`days.opens_at`), unless its total is implausible given its own placements (`fairplay`):
then it is held for review, off the board. While an entry is unfinished and unassisted it
is a counted attempt (`counted_attempt`): a new Poker Squares deal asks before replacing
it. Retention keeps the game of an entry not yet settled (`Store.prune`), and an entry
whose game cannot be read back is held too, never ranked unchecked.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any

from cardtable.poker_squares import ENGINE, hands
from cardtable.poker_squares.game import Game
from cardtable.server.core import retention
from cardtable.server.core.errors import ApiError, damaged, not_found
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store import GameRecord, Store
from cardtable.server.daily import days, fairplay, names
from cardtable.server.daily.models import (
    DailyBar,
    DailyBoard,
    DailyDay,
    DailyFairness,
    DailyMe,
    DailyPlay,
    DailyRow,
    DailyUpcoming,
    DisplayName,
    PointTable,
    Provisional,
    Streak,
)
from cardtable.server.daily.store import DailyStore, Entry, Settled
from cardtable.server.games.public import PS_KIND as KIND
from cardtable.server.games.public import CountedAttempt, StatsStore, records
from cardtable.server.games.public import render_ps as render

TABLES: tuple[PointTable, ...] = ("american", "british")
TARGET = "normal"
PREVIOUS_DAYS = 30
SETTLE_BATCH = 100


# -- settling ------------------------------------------------------------------------------
def settle(store: Store, player: str) -> None:
    """Settle the player's open entries whose game has ended (or was replaced)."""
    for entry in DailyStore(store).open_entries(player):
        _settle(store, player, entry)


def settle_day(store: Store, day: str, variant: str) -> None:
    """Settle the day's open entries whose deal is finished, at most `SETTLE_BATCH` (the
    players who finished but have not read the daily since)."""
    daily = DailyStore(store)
    for player in daily.finished_open(day, variant, SETTLE_BATCH):
        entry = daily.entry(player, day, variant)
        if entry is not None and entry.status == "open":
            _settle(store, player, entry)


def _settle(store: Store, player: str, entry: Entry) -> None:
    daily = DailyStore(store)
    record = store.load_game(entry.game_id, player)
    if record is not None and not record.finished:
        if not record.current:
            daily.close(player, entry, None)
        return
    first = StatsStore(store).first_finish(entry.game_id, player)
    if first is None or first.total is None:
        daily.close(player, entry, None)
        return
    game = None
    if record is not None:
        try:
            game = ENGINE.from_dict(record.state)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            game = None
    if game is None or not game.is_over:
        # Nothing to judge it by (retention keeps an open entry's game, so only a damaged
        # game gets here): never ranked unchecked.
        unchecked = Settled(first.total, None, first.practice, first.finished_at)
        if first.practice:
            daily.close(player, entry, unchecked)
        else:
            daily.hold(player, entry, unchecked)
        return
    lines = [None if h is None else h.key for h in game.line_hands]
    settled = Settled(first.total, lines, first.practice, first.finished_at)
    if not first.practice and _implausible(game):
        daily.hold(player, entry, settled)
        return
    if _after_close(entry.day, first.finished_at):
        # Finished once the date had ended everywhere (its seed was public by then): it
        # counts for the streak, but the board closed as it stood.
        entry = replace(entry, eligible=False)
    daily.close(player, entry, settled)


def _after_close(day: str, finished_at: str) -> bool:
    try:
        return datetime.fromisoformat(finished_at) >= days.closes_at(day)
    except ValueError:
        return False


records.when_finished(KIND, "daily", settle)


def counted_attempt(store: Store, player: str, record: GameRecord) -> CountedAttempt | None:
    """The daily attempt the player's unfinished deal ``record`` is, while it still counts
    (unassisted): a new deal would lose it, so it is asked about first (`records.replacing`)."""
    for entry in DailyStore(store).open_entries(player):
        if entry.game_id != record.id:
            continue
        try:
            practice = ENGINE.from_dict(record.state).practice
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            return None
        if practice:
            return None
        return CountedAttempt(
            game_id=record.id,
            day=entry.day,
            table=entry.variant,  # type: ignore[arg-type]
            eligible=entry.eligible,
        )
    return None


records.when_counted(KIND, "daily", counted_attempt)


def _implausible(game: Game) -> bool:
    """The fair-play check (`fairplay`): is the total implausible given the placements?"""
    return fairplay.judge(game.table, game.cards, game.placements).held


def streak(counted: list[str], today: str) -> Streak:
    """Consecutive dates with a counted daily (the player's own dates): the run ending on
    ``today`` (or the date before, while today's is still to play) and the longest."""
    ordered = sorted({date.fromisoformat(d) for d in counted})
    best = run = 0
    previous: date | None = None
    for d in ordered:
        run = run + 1 if previous is not None and d - previous == timedelta(days=1) else 1
        best = max(best, run)
        previous = d
    current = 0
    if ordered and (date.fromisoformat(today) - ordered[-1]).days <= 1:
        current = run
    return Streak(current=current, best=best)


def line_scores(table: str, lines: list[str | None] | None) -> list[int | None] | None:
    """Each line's points at ``table``, from its hand (the share box's table shows them)."""
    if lines is None:
        return None
    points = hands.TABLES[table]
    return [None if h is None else points[hands.Hand[h.upper()]] for h in lines]


def me(daily: DailyStore, entry: Entry | None) -> DailyMe | None:
    """The player's entry as the answer shows it: rank and percentile, or the provisional
    rank of a player who joined that day, or why it is held."""
    if entry is None or entry.status == "creating":
        return None
    rank = percentile = None
    provisional: Provisional | None = None
    if entry.ranked and entry.total is not None:
        rank, players, at_or_below = daily.rank(entry.day, entry.variant, entry.total)
        percentile = round(100 * at_or_below / players, 1) if players else None
    elif entry.status == "counted" and not entry.eligible and entry.total is not None:
        # A player who joined that day: where the total would rank among the day's ranked
        # entries, read from the score counts; the entry itself never joins them.
        would, players, at_or_below = daily.rank(entry.day, entry.variant, entry.total)
        provisional = Provisional(
            rank=would,
            players=players,
            percentile=round(100 * at_or_below / players, 1) if players else None,
        )
    review_reason = None
    if entry.status == "review":
        review_reason = fairplay.REASON if entry.lines is not None else fairplay.UNCHECKED
    return DailyMe(
        status=entry.status,  # type: ignore[arg-type]
        game_id=entry.game_id,
        total=entry.total,
        lines=entry.lines,
        line_scores=line_scores(entry.variant, entry.lines),
        eligible=entry.eligible,
        ranked=entry.ranked,
        rank=rank,
        percentile=percentile,
        provisional=provisional,
        review_reason=review_reason,
    )


# -- what the routes ask --------------------------------------------------------------------
def day_answer(
    store: Store, player: str, table: PointTable, day: str | None, now: datetime
) -> DailyDay:
    """The date ``day``'s deal at ``table`` (the UTC date when None; the page asks for its own
    date): the player's entry, rank and streak, the top 100, the histogram of every ranked
    total and the earlier days. 404 for a date no time zone has reached yet."""
    day = days.day_of(now) if day is None else day
    start = days.opens_at(day)  # 404 for a date the calendar does not have
    if day > days.newest(now):
        raise not_found("day")
    is_open = days.is_open(day, now)
    settle(store, player)
    settle_day(store, day, table)
    daily_store = DailyStore(store)
    # An open date's deal is drawn (and committed) by its first request; the next date's is
    # drawn with it, so its commitment is out before the first time zone reaches it. A closed
    # date's seed and salt are public, since nobody can play it for the board any more.
    deal = daily_store.deal(day, table) if is_open else daily_store.stored(day, table)
    upcoming = daily_store.deal(days.after(days.newest(now)), table)
    fair = None if deal is None else deal.fair
    end = days.closes_at(day)
    counts = daily_store.counts(day, table)
    # The streak runs to the date asked for while it is open (the page's own date), else to
    # the oldest date still open somewhere.
    reference = day if is_open else days.oldest(now)
    return DailyDay(
        day=day,
        table=table,
        today=is_open,
        starts_at=start.isoformat(),
        ends_at=end.isoformat(),
        seconds_left=max(0, int((end - now).total_seconds())) if is_open else 0,
        fairness=None
        if fair is None
        else DailyFairness(**replace(fair, withheld=is_open).public(over=True)),
        upcoming=None
        if upcoming.commitment is None
        else DailyUpcoming(day=upcoming.day, commitment=upcoming.commitment),
        me=me(daily_store, daily_store.entry(player, day, table)),
        board=DailyBoard(
            players=sum(n for _, n in counts),
            top=[
                DailyRow(rank=r.rank, name=r.name, total=r.total, mine=r.mine)
                for r in daily_store.top(day, table, player)
            ],
            histogram=[DailyBar(total=t, players=n) for t, n in counts],
        ),
        streak=streak(daily_store.counted_days(player), reference),
        display_name=daily_store.name(player),
        previous_days=daily_store.days(table, reference, PREVIOUS_DAYS),
    )


def play(
    store: Store,
    runtime: Runtime,
    player: str,
    table: PointTable,
    now: datetime,
    *,
    day: str | None = None,
    replace_counted: bool,
) -> DailyPlay:
    """Deal the date ``day``'s deal (the UTC date when None; the page sends its own date):
    the first attempt (counted if played unassisted), the same attempt again while it is
    unfinished, or a practice replay after it. 404 for a date no time zone has reached,
    409 ``day_closed`` for one every time zone has left (its board is closed). A new deal
    replaces the player's unfinished one: when that is a counted attempt (the other table's
    daily), 409 ``replaces_counted`` unless ``replace_counted``."""
    today = days.day_of(now) if day is None else day
    opens = days.opens_at(today)
    if today > days.newest(now):
        raise not_found("day")
    if not days.is_open(today, now):
        raise ApiError(409, "day_closed", f"the board of {today} has closed")
    daily_store = DailyStore(store)
    deal = daily_store.deal(today, table)
    settle(store, player)
    entry = daily_store.entry(player, today, table)
    if entry is not None and entry.status == "open":
        record = store.load_game(entry.game_id, player)
        if record is not None and record.current and not record.finished:
            return DailyPlay(day=today, counted=True, eligible=entry.eligible, game=render(record))
    records.replacing(store, player, KIND, confirmed=replace_counted)
    # On the board only for an id made before the first time zone reached the date: a
    # throwaway id made after it may have seen the cards.
    eligible = entry is None and _created_before(store, player, opens)
    first = entry is None and daily_store.claim(player, today, table, eligible)
    options: dict[str, Any] = {"table": table, "target": TARGET, "replay": not first}
    if deal.fair is not None:  # withheld: the game's view never shows the day's seed
        options["fair"] = deal.fair.saved()
    game = ENGINE.new(deal.seed, options)
    log = [{"action": "deal", "daily": today, "replay_of": None}]
    record = store.create_game(player, KIND, ENGINE.to_dict(game), finished=False, log=log)
    if first:
        daily_store.attach(player, today, table, record.id)
    store.prune(player, KIND, retention.keep(runtime))
    return DailyPlay(
        day=today, counted=first, eligible=first and eligible, game=render(record, game)
    )


def _created_before(store: Store, player: str, moment: datetime) -> bool:
    created = StatsStore(store).created_at(player)
    if created is None:  # pragma: no cover - the player was just checked
        return False
    try:
        return datetime.fromisoformat(created) < moment
    except ValueError:
        raise damaged("player") from None


def set_name(store: Store, player: str, text: str | None) -> DisplayName:
    """Set the display name on the boards, as it will show (`names.clean`); 422
    ``invalid_name`` for a name that would show nothing a reader can see, stacks accents or
    holds a character drawn far wider than a letter, with ``reason`` ``not_seen``; with
    ``reason`` ``not_polite`` for a word no one should have to read (`core.names.check_polite`).
    None, or a text of spaces, makes the player anonymous."""
    try:
        name = None if text is None else names.clean(text)
    except names.NameRefused as exc:
        reason = "not_polite" if isinstance(exc, names.NotPolite) else "not_seen"
        raise ApiError(422, "invalid_name", f"name: {exc}", reason=reason) from None
    DailyStore(store).set_name(player, name)
    return DisplayName(name=name)
