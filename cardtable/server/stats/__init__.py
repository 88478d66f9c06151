"""A player's statistics, history, export and deletion (docs/api.md). No other feature
imports it."""
