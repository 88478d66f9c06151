"""Names vulture cannot see used (`make deadcode`; docs/checks.md).

Vulture matches by name, not by class: an entry here marks every attribute of that name as
used anywhere in cardtable/, bench/ and research/, so keep this list short and say why
each name is used.
Route functions and pydantic validators are not listed: pyproject's `ignore_decorators`
covers them. This file is read by vulture, never imported.
"""
# ruff: noqa: B018, F821

# Enum members reached only by iterating the enum (`for s in Suit`, cards.DECK).
_.SPADES
_.CLUBS

# Pydantic: `model_config` is read by pydantic itself; response-model fields and the
# hint's `CellEstimate` TypedDict keys are filled by keyword or from a dict and read only
# by the JSON encoder (cardtable/server/games/models.py, cardtable/poker_squares/hint.py).
_.model_config
_.cards_left
_.can_undo
_.last_placed
_.estimate
_.best_practice
_.american
_.british
_.out_of_play_count
_.rule_set
_.last_draw
_.blocked
# Review response fields (cardtable/server/review/models.py, the `StepReview` TypedDict of
# cardtable/poker_squares/review.py): filled from a dict, read by the JSON encoder.
_.open_next
_.final
_.expected
_.best_estimate
_.thresholds
_.start_estimate
_.expected_loss
_.par
_.vs_par
_.percent
_.good_below
_.chosen_line
_.best_line
_.par_line_scores

# The game interface (cardtable.interface.GameEngine): protocol members every engine
# implements; today only the conformance suite (tests/conformance) calls these four.
_.example_options
_.parse_move
_.move_space
_.resample

# The store's record of a game mirrors its row (`updated_at`), and `move_log` reads a game's
# move log back: the crash and migration tests check with it that every acknowledged move
# was saved (docs/reliability.md). Both are the store's interface, not dead ends.
_.updated_at
_.move_log
# Daily deal and statistics answers (cardtable/server/daily/routes.py, routes_stats.py):
# response-model fields filled by keyword, read by the JSON encoder.
_.histogram
_.starts_at
_.ends_at
_.seconds_left
_.board
# The daily archive's calendar (cardtable/server/daily/archive_models.py).
_.playable
_.newest_closed
_.previous_days
_.counted
_.target_hits
_.distribution
_.unassisted
_.matches_won
_.mean_penalty
_.by_opponent
_.by_rule_set
_.replayable
_.reviewable
_.replay_rounds
_.checkable
_.me
# Starlette's StaticFiles hook, overridden by `WebFiles` (cardtable/server/core/web.py).
_.file_response
# Provably fair shuffles (docs/fairness.md): the `fairness` response field and its
# `algorithm`, read by the JSON encoder.
_.algorithm
_.fairness
# Devices (docs/devices.md): response fields filled by keyword, read by the JSON encoder.
_.expires_at
_.transfer
_.expires_in
# Counters the tests read to prove work is done once (render once, one store read per table,
# a replay computed once, evictions and refused handshakes counted): set in cardtable/server,
# read only in tests/, which vulture does not scan.
_.renders
_.reads
_.kicks
_.computed
_.refused_handshakes
# The size of a code's alphabet to the power of its length: the guessing odds in
# docs/online.md and docs/devices.md are computed from it (tests/server/core/
# test_global_limits.py).
_.CODE_SPACE
# uvicorn's WebSocket protocol reads it (how long a closing socket waits for the client).
_.close_timeout

# A module-level __getattr__ (PEP 562): uvicorn's workers import
# "cardtable.cli.serve_workers:http_protocol" and ":ws_protocol", which it builds on first use.
__getattr__

# Starlette runs a response's background task after sending it (the daily's finish hook).
_.background

# uvicorn's WebSocket protocol reads it (resumes reading when the app's queue empties).
_.read_paused

# A response model's field, read by the pages (/api/continue: what the unfinished deal counts for).
_.poker_squares_counted

# Counted by the protocol for the tests (core/serving.py: sockets closed for a flood).
_.flood_closes

# "Your tables" (cardtable/server/online/models.py `MineSeat`, `MineTable`): filled from the
# seats index's summary by `model_validate`, read only by the JSON encoder.
_.you
_.turn_seat

# Quick play's waiting status (cardtable/server/quickplay/models.py `Waiting`): read by the page.
_.fill_at
