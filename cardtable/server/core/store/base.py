"""What the server asks of a store: players, games saved with compare-and-set, and results.

A game row holds the server's state JSON (the engine's versioned state plus the server's own
fields) and a `version` that every save increments. `save_game` succeeds only if the row still
has the version it was loaded at and is still current (``UPDATE ... WHERE id = ? AND
version = ? AND current = 1``), in the same
transaction as the move-log rows and the result, so two tabs or two server processes can
never both apply a move to the same version. Player ids arrive here already hashed.

`change_game` is a whole move in one transaction: the caller's credential row and the game
row read by one statement, the move judged and made by the caller's functions, and the
result saved by the same compare-and-set, with nothing else read or written.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

JSON = dict[str, Any]


class Tx(Protocol):
    """The part of a DB-API cursor the SQL stores use inside a transaction."""

    def execute(self, sql: str, params: Sequence[Any] = ...) -> Any: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    @property
    def rowcount(self) -> int: ...


class StaleVersion(Exception):
    """The game changed since it was loaded; nothing was written."""


class StoreError(Exception):
    """The store cannot be opened or used (bad URL, unreachable server, damaged file)."""


class StoreBusy(StoreError):
    """Every connection stayed busy for the pool's whole timeout: try again shortly."""


@dataclass(frozen=True)
class GameRecord:
    """One saved game as loaded. ``current`` marks the player's newest game of its kind."""

    id: str
    player: str
    kind: str
    version: int
    state: JSON
    finished: bool
    current: bool
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class Caller:
    """A credential row as `Store.change_game` read it (docs/devices.md): the player it
    names, its kind (``device`` or ``recovery``), when it was signed out (None: it was not)
    and its last recorded use (ISO-8601 UTC)."""

    player: str
    kind: str
    revoked_at: str | None
    last_used_at: str


@dataclass(frozen=True)
class Result:
    """What a finished game leaves behind. ``variant`` is the Poker Squares table, or the
    number of players for Kings Corner; ``total`` is the score (None when it has none)."""

    variant: str
    total: int | None
    practice: bool
    summary: JSON


@dataclass(frozen=True)
class Change:
    """What one move writes: the new state and, as `Store.save_game` takes them, whether
    the game is finished, the move-log entries and the result."""

    state: JSON
    finished: bool
    log: Sequence[JSON] = ()
    result: Result | None = None


@dataclass(frozen=True)
class ResultRecord:
    game_id: str
    kind: str
    variant: str
    total: int | None
    practice: bool
    summary: JSON
    finished_at: str


@dataclass(frozen=True)
class Retention:
    """What one player keeps per kind of game (docs/reliability.md, "Retention"):
    ``unfinished`` unfinished games (the current one included), ``finished`` finished games
    with their state and move log, and ``finishes`` result rows (plus, always, the row
    holding each best total per variant and practice flag)."""

    unfinished: int
    finished: int
    finishes: int


class Store(ABC):
    """The small interface the routes use; `SqlStore` implements it for SQLite and PostgreSQL."""

    @abstractmethod
    def create_player(self, player: str, *, device_name: str = "Browser") -> None:
        """A new player with its first device credential (``cred = player``, docs/devices.md)."""

    @abstractmethod
    def has_player(self, player: str) -> bool: ...

    @abstractmethod
    def create_game(
        self, player: str, kind: str, state: JSON, *, finished: bool, log: Sequence[JSON] = ()
    ) -> GameRecord:
        """Save a new game as the player's current game of ``kind`` (the previous current one
        stays saved but is no longer current)."""

    @abstractmethod
    def load_game(self, game_id: str, player: str) -> GameRecord | None:
        """The game if it exists and belongs to ``player``; otherwise None (never tell which)."""

    @abstractmethod
    def save_game(
        self,
        game: GameRecord,
        state: JSON,
        *,
        finished: bool,
        log: Sequence[JSON] = (),
        result: Result | None = None,
    ) -> GameRecord:
        """Write ``state`` as version ``game.version + 1`` if the row is still at
        ``game.version`` and still the player's current game of its kind (a newer game may
        have replaced it since it was loaded), append ``log`` to the move log and add
        ``result``, all in one transaction. Raises `StaleVersion` (changing nothing)
        otherwise."""

    @abstractmethod
    def change_game(
        self,
        cred: str,
        game_id: str,
        admit: Callable[[Caller | None], str | None],
        play: Callable[[GameRecord | None], Change],
    ) -> GameRecord:
        """One move as one transaction. Read the credential row ``cred`` (a hash) and the
        game ``game_id`` of the player it names together, by one statement; ``admit`` judges
        the credential (None: there is no such row) and raises to refuse it, or returns a
        time to record as its last use (only if the recorded one is older) or None; ``play``
        judges the game (None: missing, or another player's) and raises to refuse it, or
        returns the `Change`. The change is written as `save_game` writes it (version + 1 if
        the row is still at the version read and still current, with its log and result),
        with the use, and committed. Whatever ``admit`` or ``play`` raise rolls everything
        back and passes through. Raises `StaleVersion` (nothing written) if another process
        changed the game between the read and the write (PostgreSQL; SQLite holds its write
        lock for the whole transaction)."""

    @abstractmethod
    def current_game(self, player: str, kind: str) -> GameRecord | None:
        """The player's current game of ``kind`` if it is unfinished."""

    @abstractmethod
    def results(
        self, player: str, kind: str, *, variant: str | None = None, limit: int
    ) -> list[ResultRecord]:
        """The player's results of ``kind`` (and ``variant`` if given), newest first."""

    @abstractmethod
    def best_scores(self, player: str, kind: str) -> Mapping[tuple[str, bool], int]:
        """Best total per (variant, practice) over every result of ``kind``."""

    @abstractmethod
    def move_log(self, game_id: str) -> list[JSON]:
        """Every log entry of a game, oldest first (for replay and analysis)."""

    @abstractmethod
    def prune(self, player: str, kind: str, keep: Retention) -> int:
        """Delete what ``player`` has of ``kind`` beyond ``keep`` (games with their move log
        and reviews; old result rows); the number of rows deleted."""

    @abstractmethod
    def expire_players(self, idle_since: str, *, limit: int) -> int:
        """Delete up to ``limit`` players created before ``idle_since`` (ISO-8601 UTC) that
        have no game saved and no credential used since, with everything they have; the
        number deleted."""

    @abstractmethod
    def claim(self, job: str, every: float, now: float) -> bool:
        """True if this caller may run ``job`` now (epoch seconds): it last ran at least
        ``every`` seconds ago, in any process. Claiming records ``now``."""

    @abstractmethod
    def close(self) -> None: ...
