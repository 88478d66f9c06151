"""The daily archive (docs/daily.md, "The archive"): every past date's deal of both tables,
played again as practice from a calendar. Never an entry, so never on a board or in a
streak; the player's best practice total per date is kept (`archive_store`), on the server,
so it follows the record to another device.

A date is in the archive once it has ended everywhere (`days.closes_at`): while some time
zone is still on it, it is played from the daily itself. Only dates whose deal is stored can
be played: a date nobody asked for has no deal, and none is drawn for it now (its commitment
was never published before the date, so a deal drawn after it would not be that date's
daily; and drawing one on request would let anyone fill the table with rows for any date).
"""

from __future__ import annotations

import calendar
from dataclasses import replace
from datetime import date, datetime
from typing import Any

from cardtable.poker_squares import ENGINE
from cardtable.server.core import retention
from cardtable.server.core.errors import ApiError, not_found
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store import Store
from cardtable.server.daily import days
from cardtable.server.daily.archive_models import ArchiveDay, DailyArchive
from cardtable.server.daily.archive_store import ArchiveStore
from cardtable.server.daily.models import DailyPlay, PointTable
from cardtable.server.daily.service import TARGET
from cardtable.server.daily.store import DailyStore
from cardtable.server.games.public import PS_KIND as KIND
from cardtable.server.games.public import StatsStore, records
from cardtable.server.games.public import render_ps as render

FIRST_MONTH = "2000-01"
"""No month before this one is asked about (nothing was dealt then)."""


def settle(store: Store, player: str) -> None:
    """Read the result of the player's archive deals that have ended (or were replaced)."""
    archive = ArchiveStore(store)
    for variant, day, game_id in archive.pending(player):
        record = store.load_game(game_id, player)
        if record is not None and not record.finished and record.current:
            continue  # still being played
        first = StatsStore(store).first_finish(game_id, player)
        total = None if first is None else first.total
        archive.finish(player, variant, day, game_id, total)


records.when_finished(KIND, "daily-archive", settle)


def _month(month: str) -> tuple[str, str]:
    """The first and last dates of ``YYYY-MM``; 404 for a month that is not one."""
    try:
        first = date.fromisoformat(f"{month}-01")
    except ValueError:
        raise not_found("month") from None
    last = first.replace(day=calendar.monthrange(first.year, first.month)[1])
    return first.isoformat(), last.isoformat()


def month_answer(
    store: Store, player: str, table: PointTable, month: str, now: datetime
) -> DailyArchive:
    """The dates of ``month`` at ``table``: which can be played from the archive (a deal
    stored, ended everywhere), which are still open, and the player's best practice total."""
    first, last = _month(month)
    if month < FIRST_MONTH or first > days.newest(now):
        raise not_found("month")
    settle(store, player)
    archive = ArchiveStore(store)
    dealt = set(archive.deal_days(table, first, last))
    mine = archive.month(player, table, first, last)
    out = []
    for n in range(1, int(last[-2:]) + 1):
        day = f"{month}-{n:02d}"
        is_open = day <= days.newest(now) and days.is_open(day, now)
        practice = mine.get(day)
        out.append(
            ArchiveDay(
                day=day,
                playable=day in dealt and not is_open and day <= days.newest(now),
                open=is_open,
                best=None if practice is None else practice.best,
                plays=0 if practice is None else practice.plays,
            )
        )
    return DailyArchive(
        table=table,
        month=month,
        first_day=archive.first_day(table),
        newest_closed=days.before(days.oldest(now)),
        days=out,
    )


def play(
    store: Store,
    runtime: Runtime,
    player: str,
    table: PointTable,
    day: str,
    now: datetime,
    *,
    replace_counted: bool,
) -> DailyPlay:
    """Deal ``day``'s deal again as practice (from its first card, one card at a time, like
    any deal). 404 for a date not reached yet or with no deal stored; 409 ``day_open`` while
    some time zone is still on it (play it from the daily); 409 ``replaces_counted`` as for
    any new deal over a counted attempt."""
    days.parsed(day)
    if day > days.newest(now):
        raise not_found("day")
    if days.is_open(day, now):
        raise ApiError(409, "day_open", f"{day} is still open: play it from the daily")
    deal = DailyStore(store).stored(day, table)
    if deal is None:
        raise not_found("day")
    records.replacing(store, player, KIND, confirmed=replace_counted)
    options: dict[str, Any] = {"table": table, "target": TARGET, "replay": True}
    if deal.fair is not None:  # the date is over: its seed is public, shown at the end
        options["fair"] = replace(deal.fair, withheld=False).saved()
    game = ENGINE.new(deal.seed, options)
    log = [{"action": "deal", "daily": day, "archive": True, "replay_of": None}]
    record = store.create_game(player, KIND, ENGINE.to_dict(game), finished=False, log=log)
    ArchiveStore(store).dealt(player, table, day, record.id)
    store.prune(player, KIND, retention.keep(runtime))
    return DailyPlay(day=day, counted=False, eligible=False, game=render(record, game))
