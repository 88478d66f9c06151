"""The Poker Squares tables' entry for the other features: it exports nothing (no feature uses
these tables; the app assembles their routes itself)."""

__all__: list[str] = []
