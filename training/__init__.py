"""Offline training of the Poker Squares hint engine's line-value tables (docs/hint-engine.md).

Not part of the product: nothing in `cardtable` imports this package (pyproject's
import-linter contract "training"), and it is not installed with it. It reads the hint's
abstraction (`cardtable.poker_squares.hint.abstract`) and writes tables in its format; the
tables the hint ships live in the product, ``cardtable/poker_squares/data/``. Run from the
repository root, as `bench` and `research` are:

    python -m training.train --table american --seed 1 --games 200000
    python -m training.train_batch --table american --games 3000000 --seed 1 --out t.npz

- `train`: Monte Carlo (or TD(lambda)) self-play, one game at a time (`Trainer`, `train`).
- `train_batch`: the same learning with numpy over batches of games played in lock-step.
- `cli`: the options both commands take, and writing a trained table.
"""
