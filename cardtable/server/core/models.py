"""What every feature's JSON shares (docs/api.md): the request and response bases, the error
body, the version a change is made against, and `dump`.

Request models forbid unknown fields and take versions, rows and columns as strict integers.
Response models are separate and list exactly what may leave the server: anything the engine
keeps private (the deck order, other hands) has no field here, so it cannot be sent.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict


def json_integer(value: Any) -> Any:
    # JSON has one number type: 3.0 is the integer 3 (JSON Schema agrees), while "3", true
    # and 3.5 stay refused by the strict integer check.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# The bounds go before the converter, so they stay in the JSON schema as minimum/maximum.
Version = Annotated[
    int,
    Strict(),
    Field(ge=1, le=2**31 - 1, description="The `version` of the response this was made against."),
    BeforeValidator(json_integer),
]


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Response(BaseModel):
    pass


# -- errors and health -----------------------------------------------------------------
class ErrorBody(Response):
    code: str = Field(description="Stable machine-readable code, e.g. `illegal_move`.")
    message: str = Field(description="What went wrong, readable by a person.")


class Health(Response):
    status: Literal["ok"] = Field(description="The process is up and answering.")
    store: Literal["ok", "degraded"] = Field(
        description="The store as last seen, without waiting for it: `degraded` when it is "
        "not open or the database did not answer its last probe (requests that need it are "
        "answered 503 `unavailable` meanwhile)."
    )


class VersionOnly(Request):
    version: Version


def dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json")
