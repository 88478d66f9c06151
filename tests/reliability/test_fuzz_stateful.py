"""Stateful fuzzing with schemathesis: the OpenAPI links (cardtable/server/core/openapi_links.py)
chain real requests (create a game, then read, move, undo, hint, reveal, computer-step,
next-round on it with the version of the previous answer), with generated data around them.
Every answer must match the documented status codes and schemas, and none may be a 500.
Bounded: the tier's Hypothesis profile's number of sequences (docs/checks.md), a few steps
each, chosen by the run seed."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, ClassVar

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance

from cardtable.server import Settings, create_app
from cardtable.server.devices.players import new_player_id, player_key
from tests.support.fuzzing import REFUSED_BY_RULE

_DATA = Path(tempfile.mkdtemp(prefix="cardtable-stateful-"))
app = create_app(
    Settings(
        data_dir=_DATA,
        database_url=None,
        hint_budget=4,
        player_rate=None,
        signup_rate=None,
        allow_seed_for_tests=True,
    )
)
schema = schemathesis.openapi.from_asgi("/openapi.json", app)


class Machine(schema.as_state_machine()):  # type: ignore[misc]
    """Each sequence is a new player dealt fixed seeds, so the server answers a replayed
    sequence the same way (Hypothesis requires that to replay and shrink)."""

    calls = 0
    statuses: ClassVar[set[int]] = set()

    def setup(self) -> None:
        self.player = new_player_id()
        app.state.runtime.store.create_player(player_key(self.player))

    def get_call_kwargs(self, case: Any) -> dict[str, Any]:
        return {"headers": {"X-Player-Id": self.player, "X-Test-Seed": "777"}}

    def validate_response(
        self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any
    ) -> None:
        excluded = [positive_data_acceptance] if case.path.startswith(REFUSED_BY_RULE) else []
        case.validate_response(
            response,
            additional_checks=additional_checks,
            excluded_checks=excluded,
            transport_kwargs=kwargs,
        )

    def after_call(self, response: Any, case: Any) -> None:
        Machine.calls += 1
        Machine.statuses.add(response.status_code)
        assert response.status_code < 500, response.text

    def teardown(self) -> None:
        pass


def test_stateful_sequences_never_fail() -> None:
    try:
        Machine.run(
            settings=settings(
                stateful_step_count=8,
                suppress_health_check=list(HealthCheck),
            )
        )
    finally:
        app.state.runtime.close()
        shutil.rmtree(_DATA, ignore_errors=True)
    assert Machine.calls >= settings.default.max_examples  # at least a call a sequence
    # The links reached the games: moves were accepted, not only refused.
    assert 200 in Machine.statuses and 201 in Machine.statuses


def test_the_links_are_in_the_schema() -> None:
    doc = app.openapi()
    created = doc["paths"]["/api/poker-squares/games"]["post"]["responses"]["201"]["links"]
    assert created["moves"]["parameters"] == {"game_id": "$response.body#/id"}
    assert created["moves"]["requestBody"] == {"version": "$response.body#/version"}
    kc = doc["paths"]["/api/kings-corner/games/{game_id}/computer-step"]["post"]["responses"]
    assert set(kc["200"]["links"]) >= {"read", "moves", "computer-step", "next-round"}
