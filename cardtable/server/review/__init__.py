"""The engine's review of a finished Poker Squares deal and the Kings Corner round replay
(docs/review.md). No other feature imports it."""
