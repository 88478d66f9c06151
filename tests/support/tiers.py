"""The suite's two tiers and its run seed (docs/checks.md, "Tiers and the run seed").

- **fast** (`make test`): every test except those marked `deep`, and of each family of
  *variants* (the same test in other languages, viewports or stores) one member, chosen by
  the run seed. Every product behaviour keeps a guard; which variant guards it changes from
  run to run.
- **deep** (`make test-deep`): every test and every variant, at the `deep` Hypothesis profile.
- **slice** (`make test-deep-slice`, run by `.ci/run` after `make test`): the part of the
  deep tier that the fast tier does not always run (the `deep` tests and every member of a
  variant family), cut into `SLICES` parts by a stable hash of the node id; the run seed picks
  one. Seeds with the `SLICES` different remainders together cover the deep tier.

The run seed is `CARDTABLE_SEED`, or a random one that the controller puts in the
environment before xdist starts its workers, so every worker sees the same. It seeds
Hypothesis (`core.global_force_seed`), the variants, the slice and every test that takes the
`sample` fixture (scan subsets, crash points). It is printed in the report header and under
every failure.
"""

from __future__ import annotations

import os
import random
import secrets
import zlib
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import pytest

T = TypeVar("T")
SEED_VAR = "CARDTABLE_SEED"
TIERS = ("fast", "deep", "slice")
SLICES = 3
"""How many parts the deep-only tests are cut into for `make test-deep-slice`."""

BROWSER_FIXTURES = frozenset({"page", "new_page", "browser", "context"})
VARIANT_PARAMS = frozenset({"lang", "phone", "size", "locale", "motion"})
"""Parameters whose values are presentations of one behaviour (language, viewport, motion
preference): in the fast tier a browser test runs in one of them."""
STORE_VALUES = frozenset({"sqlite", "postgres", "postgresql"})
"""Parameter values naming a store: a test on both stores runs on one in the fast tier."""


def run_seed() -> int:
    """This run's seed: CARDTABLE_SEED, else a new random one put in the environment (so that
    xdist's workers, started later from this process, read the same)."""
    text = os.environ.get(SEED_VAR, "").strip()
    if not text:
        text = str(secrets.randbelow(10**6))
        os.environ[SEED_VAR] = text
    return int(text)


def reproduce(seed: int, tier: str) -> str:
    target = {"fast": "make test", "deep": "make test-deep", "slice": "make test-deep-slice"}
    return f"{SEED_VAR}={seed} {target[tier]}"


DEEP_PATHS = ("tests/research/",)
"""Folders whose tests are all deep: the experiments' own checks (research/ is not the
product; its code is exercised by its commands, and `make test-deep` runs these)."""


def _variant_keys(item: pytest.Item) -> tuple[str, ...]:
    """The names of the item's parameters that are variants (empty: not in a family): the
    browser's presentations, a store, and those a test names with `@pytest.mark.variants`."""
    params = getattr(getattr(item, "callspec", None), "params", None)
    if not params:
        return ()
    browser = bool(BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())))
    named = {name for mark in item.iter_markers("variants") for name in mark.args}
    return tuple(
        sorted(
            name
            for name, value in params.items()
            if (browser and name in VARIANT_PARAMS)
            or name in named
            or (isinstance(value, str) and value in STORE_VALUES)
        )
    )


def _family(item: pytest.Item, variants: tuple[str, ...]) -> Hashable:
    """The item's family: its function, and the values of its parameters that are not variants."""
    callspec = item.callspec  # type: ignore[attr-defined]
    # Every xdist worker must deselect exactly the same items: a value whose repr is the
    # same in every process, else its index in its parametrize list.
    rest = tuple(
        sorted(
            (
                k,
                repr(v)
                if isinstance(v, (str, int, float, bool, type(None)))
                else callspec.indices[k],
            )
            for k, v in callspec.params.items()
            if k not in variants
        )
    )
    return (item.nodeid.split("[", 1)[0], rest)


def _slice_of(nodeid: str) -> int:
    return zlib.crc32(nodeid.encode()) % SLICES


def select(
    items: Iterable[pytest.Item], tier: str, seed: int
) -> tuple[list[pytest.Item], list[pytest.Item]]:
    """(kept, deselected) for the tier and seed."""
    items = list(items)
    if tier == "deep":
        return items, []
    families: dict[Hashable, list[pytest.Item]] = defaultdict(list)
    always: set[int] = set()
    for item in items:
        if item.get_closest_marker("deep") or item.nodeid.startswith(DEEP_PATHS):
            continue
        keys = _variant_keys(item)
        if keys:
            families[_family(item, keys)].append(item)
        else:
            always.add(id(item))
    chosen: set[int] = set()
    for key, members in families.items():
        if len(members) == 1:
            always.add(id(members[0]))
            continue
        pick = random.Random(f"{seed}:{key!r}").randrange(len(members))
        chosen.add(id(members[pick]))
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        if tier == "fast":
            keep = id(item) in always or id(item) in chosen
        else:  # slice: the deep-only part, one of SLICES
            keep = id(item) not in always and _slice_of(item.nodeid) == seed % SLICES
        (kept if keep else dropped).append(item)
    return kept, dropped


@dataclass(frozen=True)
class Sample:
    """What a sampling test draws from the run seed (the `sample` fixture): in the fast tier
    a part, chosen anew each run; in the deep tier all of it."""

    tier: str
    seed: int

    @property
    def deep(self) -> bool:
        return self.tier != "fast"

    def rng(self, salt: str) -> random.Random:
        """A generator for one test's random choices, from the run seed."""
        return random.Random(f"{self.seed}:{salt}")

    def size(self, fast: int, deep: int) -> int:
        return deep if self.deep else fast

    def pick(self, items: Sequence[T], fast: int, salt: str) -> list[T]:
        """All of `items` in the deep tier; `fast` of them, chosen by the seed, in the fast."""
        if self.deep or fast >= len(items):
            return list(items)
        chosen = sorted(self.rng(salt).sample(range(len(items)), fast))
        return [items[i] for i in chosen]
