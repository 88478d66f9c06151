"""The devices feature's entry for the other features: the only module of `devices` that
they import (`make contracts` holds them to it).

- Who is asking: `PlayerDep` (a route's player, from the ``X-Player-Id`` credential, refused
  when unknown, revoked or deleted), and `PLAYER_ID` and `authenticate` for the live channel,
  which reads the credential from its hello message instead of a header.
- A move in one transaction: `DeviceIdDep` (the header, checked for form only) and
  `change_game`, which judges the credential in the statement that reads the game; a move
  that reads its credential in its own thread trip (an online table's): `player_of`.
- `now_of`: the clock the device routes read (tests inject one).
- `DeviceStore`: a player's devices, so "delete my data" (statistics) deletes them too, and
  `DeviceStore.standing`, with which the online live channel checks its open connections'
  credentials (a device signed out or deleted stops receiving its seat's hand).
- `FORGOTTEN`: hooks run in the transaction that signs a player's devices out or deletes
  the record (push subscriptions go with their device).
"""

from cardtable.server.devices.players import (
    PLAYER_ID,
    DeviceIdDep,
    PlayerDep,
    authenticate,
    change_game,
    player_of,
)
from cardtable.server.devices.service import now_of
from cardtable.server.devices.store import FORGOTTEN, Credential, DeviceStore

__all__ = [
    "FORGOTTEN",
    "PLAYER_ID",
    "Credential",
    "DeviceIdDep",
    "DeviceStore",
    "PlayerDep",
    "authenticate",
    "change_game",
    "now_of",
    "player_of",
]
