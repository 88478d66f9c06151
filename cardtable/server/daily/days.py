"""The daily's dates on the player's own calendar (docs/daily.md, "Your own midnight").

A daily deal belongs to a calendar date, the same deal everywhere. A player plays the date
their own clock shows, so a date is open while some time zone on Earth is on it: from its
midnight at UTC+14 (the first zone to reach it, 14 hours before UTC) to its midnight at the end
in UTC-12 (the last zone to leave it, 12 hours after UTC), 50 hours in all. Before it opens the
date is refused like any future day; after it closes its board takes no new entry and its
seed and salt are published.

Every process derives all of this from the time alone: nothing in memory decides a date.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from fastapi import Request

from cardtable.server.core.errors import not_found

FIRST_ZONE = timedelta(hours=14)
"""UTC+14 (Kiribati, the Line Islands) reaches a date first."""
LAST_ZONE = timedelta(hours=12)
"""UTC-12 (Baker Island) leaves a date last."""
ONE_DAY = timedelta(days=1)


def clock(request: Request) -> datetime:
    """Now, in UTC: ``app.state.daily_clock()`` when a test injected one."""
    injected = getattr(request.app.state, "daily_clock", None)
    return injected() if injected is not None else datetime.now(UTC)


def day_of(moment: datetime) -> str:
    """The UTC date of ``moment`` (what a request that names no date gets)."""
    return moment.astimezone(UTC).date().isoformat()


def parsed(day: str) -> date:
    """The date ``YYYY-MM-DD``; 404 ``not_found`` for one the calendar does not have."""
    try:
        return date.fromisoformat(day)
    except ValueError:  # such as 2030-02-30
        raise not_found("day") from None


def day_start(day: str) -> datetime:
    """Midnight UTC at the start of ``day``."""
    return datetime.combine(parsed(day), time(), tzinfo=UTC)


def opens_at(day: str) -> datetime:
    """When the first time zone (UTC+14) reaches ``day``."""
    return day_start(day) - FIRST_ZONE


def closes_at(day: str) -> datetime:
    """When the last time zone (UTC-12) leaves ``day``: its board closes."""
    return day_start(day) + ONE_DAY + LAST_ZONE


def newest(now: datetime) -> str:
    """The newest date any time zone is on at ``now`` (UTC+14's)."""
    return day_of(now + FIRST_ZONE)


def oldest(now: datetime) -> str:
    """The oldest date any time zone is still on at ``now`` (UTC-12's)."""
    return day_of(now - LAST_ZONE)


def is_open(day: str, now: datetime) -> bool:
    """Some time zone is on ``day`` at ``now``: it can be played for the board."""
    return opens_at(day) <= now < closes_at(day)


def after(day: str) -> str:
    return (parsed(day) + ONE_DAY).isoformat()


def before(day: str) -> str:
    return (parsed(day) - ONE_DAY).isoformat()
