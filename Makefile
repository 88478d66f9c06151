# cardtable: the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
export UV_PYTHON_DOWNLOADS := never
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | sha1sum | cut -c1-12)

.PHONY: run test test-deep test-deep-slice screenshots lint typecheck contracts deadcode pytest bench clean setup system-packages figures

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check uv==0.13.8
	$(BIN)/uv pip install --python $(BIN)/python -q -c constraints.txt -e '.[dev,bench]'
	@rm -f $(VENV)/.installed-* && touch $@

setup: $(STAMP)

system-packages:
	@bash scripts/ensure-system-packages.sh

run: $(STAMP)
	$(BIN)/cardtable serve --host 127.0.0.1 --port 8000 --data ./data

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/biome ci cardtable/web

typecheck: $(STAMP)
	$(BIN)/mypy

# Import layers: cli > server > registry > games > interface, cards (pyproject [tool.importlinter]).
contracts: $(STAMP)
	$(BIN)/lint-imports

# Code with no caller in cardtable/, bench/ or research/ (pyproject [tool.vulture],
# vulture_allowlist.py).
deadcode: $(STAMP)
	$(BIN)/vulture

# Line coverage of cardtable/ over the suite: 97% on 2026-11-30 (docs/checks.md).
COVERAGE_FLOOR := 96

# The suite has two tiers (docs/checks.md, "Tiers and the run seed"): `make test` runs the
# fast one, `make test-deep` everything, `make test-deep-slice` the part of the deep tier the
# run seed picks (CI runs it after `make test`). One seed per run: CARDTABLE_SEED, else random,
# printed in the report's header and under every failure; `CARDTABLE_SEED=N make test`
# reproduces a run.
# pytest exits 5 when it collected no test: say so plainly instead of failing silently.
# The coverage floor is checked after a green run of the fast tier (pytest-cov's
# --cov-fail-under would turn "no tests" into a plain failure).
# -n 2, one worker per core: -n 4 was not faster on a loaded 2-core machine (docs/checks.md).
# Bytecode is cached under .venv/pycache even where PYTHONDONTWRITEBYTECODE is set (the
# source tree stays clean): otherwise each worker and each `cardtable serve` it starts
# compiles every module again.
# --durations=25: every run (CI's included) ends with its slowest tests, where time goes.
PYTEST := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV)/pycache \
	$(BIN)/pytest -n 2 --durations=25
TIER_ARGS ?=

pytest: $(STAMP) system-packages
	@$(PYTEST) --tier fast --cov=cardtable --cov-report=term-missing:skip-covered $(TIER_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests" >&2; fi; \
	if [ $$rc -eq 0 ] && ! $(BIN)/coverage report --fail-under=$(COVERAGE_FLOOR) >/dev/null; then \
		echo "make test: coverage of cardtable/ is $$($(BIN)/coverage report --format=total)%," \
			"under the floor of $(COVERAGE_FLOOR)%" >&2; rc=2; \
	fi; exit $$rc

test: lint typecheck contracts deadcode pytest

# Every test, every variant, the deep Hypothesis profile; no coverage floor (the fast tier
# holds it).
test-deep: $(STAMP) system-packages
	$(PYTEST) --tier deep $(TIER_ARGS)

# The run seed's part of the deep-only tests (about five minutes); .ci/run runs it after
# `make test`, so every deep test runs within a few landings.
test-deep-slice: $(STAMP) system-packages
	$(PYTEST) --tier slice $(TIER_ARGS)

# The tests that take screenshots, in every variant, with the drawing on
# (test-artifacts/screenshots/), then the images docs/ shows copied from them (tools/screenshots.py).
screenshots: $(STAMP) system-packages
	CARDTABLE_SCREENSHOTS=1 $(PYTEST) --tier deep -m screenshots $(TIER_ARGS)
	$(BIN)/python -m tools.screenshots

# The how-to-play pages' figures, drawn from engine positions by the game screens' code in
# headless Chromium (tools/figures; tests/web/site/test_figures.py fails when they are out of date).
figures: $(STAMP)
	$(BIN)/python -m tools.figures

bench: $(STAMP)
	$(BIN)/python -m bench.classify

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .coverage
