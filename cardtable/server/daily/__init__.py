"""The daily Poker Squares deal and its leaderboard (docs/daily.md). Statistics use it only
through `daily.public`."""
