"""Suite-wide fixtures and scheduling: the API fixtures used by tests/server and
tests/reliability, and the order the two xdist workers receive the tests in (docs/checks.md).

`--dist loadgroup` (pyproject addopts) hands out one test at a time to whichever worker is
free, in collection order; the longest tests (`FIRST`, measured with `--durations`) are
collected first, so neither worker is left running a long test alone at the end of the run.
(xdist 3.8's `xdist_group` marks do nothing under pytest 9, which keeps node ids in `_id`:
no test here uses them.)
"""

from __future__ import annotations

import pytest

pytest_plugins = ["tests.support.api_fixtures"]

FIRST = (
    # Prefixes of node ids, longest first (`--durations` of 2026-11-30, docs/checks.md).
    "tests/web/test_web_kings_corner_screens.py",
    "tests/reliability/test_crash.py",
    "tests/online_multi/",
    "tests/web/test_web_screens.py",
    "tests/kings_corner/test_properties.py",
    "tests/reliability/test_fuzz_stateful.py",
    "tests/web/test_web_review.py",
    "tests/web/test_web_kc_online.py",
    "tests/reliability/test_hidden_scan.py",
    "tests/server/test_api_review.py",
    "tests/web/test_web_kings_corner.py",
    "tests/kings_corner/test_cpu_stateless.py",
    "tests/server/test_limits_admission.py",
    "tests/server/test_limits_connections.py",
    "tests/poker_squares/test_hands.py",
    "tests/poker_squares/test_review.py",
)
"""Tests run first, in this order; the others keep their collection order."""


def _rank(nodeid: str) -> int:
    return next((i for i, prefix in enumerate(FIRST) if nodeid.startswith(prefix)), len(FIRST))


@pytest.hookimpl(trylast=True)  # after pytest's own reordering by fixture scope
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: _rank(item.nodeid))  # stable: the rest keep their order
