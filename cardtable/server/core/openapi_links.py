"""OpenAPI links: how one answer leads to the next request. A created or changed game's ``id``
is the ``game_id`` of the requests on it, and its ``version`` is the ``version`` they carry.
They document the flow (docs/api.md) and let stateful API testing (schemathesis) chain real
requests: create, then read, move, undo, ... on the game just made."""

from __future__ import annotations

from typing import Any

GAME_ID = "$response.body#/id"
VERSION = "$response.body#/version"

PS = "/api/poker-squares/games"
KC = "/api/kings-corner/games"
# (path of the answer, status) -> the requests on the same game it leads to
FLOWS: dict[str, tuple[str, list[str]]] = {
    PS: ("201", ["get", "moves", "undo", "hint"]),
    f"{PS}/{{game_id}}/moves": ("200", ["get", "moves", "undo", "hint"]),
    f"{PS}/{{game_id}}/undo": ("200", ["get", "moves", "undo"]),
    KC: ("201", ["get", "moves", "undo", "reveal", "computer-step", "next-round"]),
    **{
        f"{KC}/{{game_id}}/{action}": (
            "200",
            ["get", "moves", "undo", "reveal", "computer-step", "next-round"],
        )
        for action in ("moves", "undo", "reveal", "computer-step", "next-round")
    },
}


def add_links(schema: dict[str, Any]) -> dict[str, Any]:
    """Add the links to a FastAPI OpenAPI document (in place; idempotent)."""
    paths = schema.get("paths", {})
    for path, (status, targets) in FLOWS.items():
        response = paths.get(path, {}).get("post", {}).get("responses", {}).get(status)
        if response is None:
            continue
        root = PS if path.startswith(PS) else KC
        links: dict[str, Any] = {}
        for target in targets:
            if target == "get":
                op = paths[f"{root}/{{game_id}}"]["get"]
                links["read"] = {
                    "operationId": op["operationId"],
                    "parameters": {"game_id": GAME_ID},
                }
                continue
            op = paths[f"{root}/{{game_id}}/{target}"]["post"]
            links[target] = {
                "operationId": op["operationId"],
                "parameters": {"game_id": GAME_ID},
                "requestBody": {"version": VERSION},
            }
        response["links"] = links
    return schema
