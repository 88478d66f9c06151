"""Every server feature has one shape (docs/architecture.md, "Features"): `routes.py` (thin
handlers), `service.py` (what the feature does), `models.py` (the JSON), `store.py` (its
tables) and `public.py` (what other features may use). `core/` is no feature."""

from __future__ import annotations

from pathlib import Path

import cardtable.server

SERVER = Path(cardtable.server.__file__).parent
SHAPE = ("routes.py", "service.py", "models.py", "store.py", "public.py")
NOT_FEATURES = {"core"}
NO_TABLES = {"stats": "statistics keep no tables: they read the games' records"}


def features() -> list[Path]:
    return sorted(
        p
        for p in SERVER.iterdir()
        if p.is_dir() and (p / "__init__.py").exists() and p.name not in NOT_FEATURES
    )


def test_every_feature_has_the_shape() -> None:
    missing = []
    for feature in features():
        wanted = [f for f in SHAPE if not (f == "store.py" and feature.name in NO_TABLES)]
        absent = [f for f in wanted if not (feature / f).exists()]
        if absent:
            missing.append(f"{feature.name}: no {', '.join(absent)}")
    assert not missing, "features without the shape:\n" + "\n".join(missing)


def test_the_walk_finds_every_feature() -> None:
    names = {p.name for p in features()}
    assert {"daily", "devices", "games", "online", "review", "stats"} <= names, names
