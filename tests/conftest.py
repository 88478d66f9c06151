"""Suite-wide fixtures and scheduling: the API fixtures used by tests/server and
tests/reliability, and the order the xdist workers receive the tests in (docs/checks.md).

`--dist loadgroup` (pyproject addopts) hands out the tests to whichever worker is free, in
collection order, one test at a time (a few queued per worker), except `GROUPS`: the tests of a
group go to one worker together, so their shared fixture starts once. The longest tests
(`FIRST`, measured with `--durations`) are collected first, so no worker is left running a long
test alone at the end of the run. (xdist 3.8's own `xdist_group` marks do nothing under
pytest 9, which keeps node ids in `_id`: the scheduler below groups by node id instead.)
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

import coverage
import pytest
from hypothesis import HealthCheck, core, settings

from tests.support import tiers

pytest_plugins = ["tests.support.api_fixtures"]

# Every online view the suite renders is also validated against its schema (render.py
# `Views(check=True)`): the servers the tests start in process and as subprocesses read it.
os.environ["CARDTABLE_CHECK_VIEWS"] = "1"

FIRST = (
    # Prefixes of node ids, by their longest test in the fast tier, longest first
    # (`--durations` of 2026-12-03, docs/checks.md). The cluster's group comes first anyway
    # (xdist hands out the units with the most tests first).
    "tests/online_multi/",
    "tests/proxy/",
    "tests/web/devices/test_devices.py",
    "tests/web/kings_corner/test_kings_corner.py",
    "tests/web/kings_corner/test_screens.py",
    "tests/web/online/test_replay.py",
    "tests/web/online/test_online.py",
    "tests/server/review/test_admitted.py",
    "tests/web/online/test_layout.py",
    "tests/web/daily/test_daily.py",
    "tests/web/review/test_review.py",
    "tests/server/core/test_store_down.py",
    "tests/reliability/test_hidden_scan.py",
    "tests/server/online/test_live_bounds.py",
    "tests/server/core/test_connections.py",
    "tests/reliability/test_crash.py",
    "tests/server/online/test_replay.py",
    "tests/web/poker_squares/test_screens.py",
    "tests/server/daily/test_fairplay.py",
    "tests/server/online/test_api.py",
    "tests/server/core/test_lifecycle.py",
    "tests/kings_corner/test_properties.py",
    "tests/poker_squares/test_hands.py",
    "tests/reliability/test_fuzz_stateful.py",
)
"""Tests run first, in this order; the others keep their collection order."""


GROUPS = (
    # Test files that share one costly fixture: each group runs on a single xdist worker, so
    # the fixture starts once per run instead of once on every worker that takes one of them.
    # The `cluster` of tests/online_multi: two `cardtable serve` processes (each with its
    # search pool), 25-30 s to start under load.
    ("online-cluster", (
        "tests/online_multi/test_two_processes.py",
        "tests/online_multi/test_browser_two_processes.py",
    )),
    # The `site` of tests/proxy: nginx in front of two `cardtable serve` processes.
    ("proxy-site", ("tests/proxy/",)),
)  # fmt: skip
"""(group name, node id prefixes) for the scheduler below."""


def _group(nodeid: str) -> str:
    """A test's unit of scheduling: its group's name, else its own node id."""
    return next((name for name, prefixes in GROUPS if nodeid.startswith(prefixes)), nodeid)


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # before xdist's own; absent without xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadgroup` with this file's GROUPS (xdist's `xdist_group` marks do nothing under
    pytest 9): a group goes to one worker as one unit; every other test is its own unit,
    handed out in collection order."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class GroupScheduling(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _group(nodeid)

    return GroupScheduling(config, log)


def _rank(nodeid: str) -> int:
    return next((i for i, prefix in enumerate(FIRST) if nodeid.startswith(prefix)), len(FIRST))


# Hypothesis: one profile per tier; no test sets its own example count, and nothing is
# derandomised: the run seed (below) chooses the examples, so runs add up to more inputs.
settings.register_profile(
    "fast", max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--tier",
        choices=tiers.TIERS,
        default=os.environ.get("CARDTABLE_TIER", "fast"),
        help="fast: make test; deep: every test and variant; slice: the seed's part of the "
        "deep-only tests (docs/checks.md)",
    )


def pytest_configure(config: pytest.Config) -> None:
    seed = tiers.run_seed()
    tier = config.getoption("tier")
    config.stash[SEED] = seed
    settings.load_profile("fast" if tier == "fast" else "deep")
    if config.getoption("hypothesis_seed", None) is None:
        core.global_force_seed = seed  # type: ignore[attr-defined]


SEED = pytest.StashKey[int]()


def pytest_report_header(config: pytest.Config) -> str:
    tier = config.getoption("tier")
    seed = config.stash[SEED]
    return f"cardtable: tier {tier}, run seed {seed} (again: {tiers.reproduce(seed, tier)})"


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    # Also at the end: `-q` (addopts) leaves the header out.
    terminalreporter.write_line(pytest_report_header(config))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.failed:
        seed = item.config.stash[SEED]
        again = tiers.reproduce(seed, item.config.getoption("tier"))
        report.sections.append(("cardtable run seed", f"run seed {seed}: {again}"))
    return report


@pytest.fixture
def sample(request: pytest.FixtureRequest) -> tiers.Sample:
    """The run seed and tier, for a test that samples (a scan's subset, a crash's kill
    points): a part chosen by the seed in the fast tier, all of it in the deep tier."""
    config = request.config
    return tiers.Sample(
        "fast" if config.getoption("tier") == "fast" else "deep", config.stash[SEED]
    )


@pytest.hookimpl(trylast=True)  # after pytest's own reordering by fixture scope
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A test named on the command line by its node id runs whatever its tier.
    named = any("::" in arg for arg in config.args)
    if not named:
        kept, dropped = tiers.select(items, config.getoption("tier"), config.stash[SEED])
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
    items.sort(key=lambda item: _rank(item.nodeid))  # stable: the rest keep their order


@pytest.fixture(autouse=True)
def _untraced(request: pytest.FixtureRequest) -> Iterator[None]:
    """Runs a test marked `untraced` without coverage's tracer: a check whose lines other
    tests already cover (millions of hands, hundreds of random games, whole matches through
    the API) runs two to four times slower traced, and adds no line to the report
    (docs/checks.md). The test's own thread is paused (`sys.settrace`; coverage's C tracer
    reinstalls itself when set back that way), and threads started during the test (a
    `TestClient`'s app thread, a server's) start untraced (`threading.settrace`). Servers and
    pools already running stay traced: `Coverage.stop()` would stop every thread, and
    `start()` restarts only this one. A long-lived thread first started during such a test
    stays untraced for the rest of the worker: the coverage floor shows such a loss."""
    tracer = sys.gettrace()
    if tracer is None or not request.node.get_closest_marker("untraced"):
        yield
        return
    assert coverage.Coverage.current() is not None
    hook = threading.gettrace()
    threading.settrace(None)  # type: ignore[arg-type]  # None: no hook, as before coverage
    sys.settrace(None)
    try:
        yield
    finally:
        sys.settrace(tracer)
        threading.settrace(hook)  # type: ignore[arg-type]


@pytest.fixture(autouse=True, scope="session")
def _search_pool_kept() -> Iterator[None]:
    """One search pool per test process, as in a server: an app stops its pool when it is
    the last app using it (server/core/admission.py, "Lifecycle"), and the suite starts and
    stops hundreds of apps, each pool worker costing about 4 s of CPU to start."""
    from cardtable.server.core import admission

    with admission.kept():
        yield


FAIR_PLAY_TESTS = ("tests/server/daily/test_fairplay.py",)
"""The tests that exercise the daily's fair-play check (docs/daily.md, "Fair play")."""


@pytest.fixture(autouse=True)
def _fair_play_off(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The daily's fair-play check holds a few honest entries in a thousand by design (its
    threshold is set at a high quantile of honest players' scores). Tests that are not about
    it play honest deals on random daily seeds and expect them ranked, so the check never
    holds there (every server a test starts runs in this process); the tests in
    FAIR_PLAY_TESTS check it."""
    if request.node.nodeid.startswith(FAIR_PLAY_TESTS):
        return
    from cardtable.server.daily import fairplay

    monkeypatch.setattr(fairplay, "SHIFT", float("inf"))
