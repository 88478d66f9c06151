"""No private name crosses a module boundary (issue 12).

A name starting with one underscore belongs to its module: no other module of `cardtable`,
`bench` or `research` imports it (``from x import _name``) or reaches for it through a module
it imported (``from pkg import x`` or ``import pkg.x as x``, then ``x._name``). Dunder names
(``__version__``) are public, and a private *module* may be imported inside its own package
(import-linter's ``private_modules`` contract checks that; docs/checks.md). Ruff's PLC2701 is
a preview rule and skips relative imports, so the check is this parse of the source.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cardtable", "bench", "research")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_module(dotted: str) -> bool:
    """Whether a dotted name is a module or package of this repository."""
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def violations(source: str, package: str, where: str) -> list[str]:
    """``where:line: what`` for every private name taken from another module by `source`, the
    text of a module of `package` (the package relative imports start from)."""
    out: list[str] = []
    modules: set[str] = set()  # local names bound to a module of this repository
    tree = ast.parse(source, where)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(a.asname for a in node.names if a.asname)
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            parts = package.split(".")[: len(package.split(".")) - max(node.level - 1, 0)]
            origin = ".".join([*parts, node.module] if node.module else parts)
            if not node.level:
                origin = node.module or ""
            for alias in node.names:
                if _is_module(f"{origin}.{alias.name}"):
                    modules.add(alias.asname or alias.name)
                elif _private(alias.name):
                    out.append(f"{where}:{node.lineno}: from {origin} import {alias.name}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and _private(node.attr)
        ):
            out.append(f"{where}:{node.lineno}: {node.value.id}.{node.attr}")
    return out


def _package_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1])


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_no_private_name_is_taken_from_another_module() -> None:
    found = [
        v
        for top in PACKAGES
        for path in sorted((ROOT / top).rglob("*.py"))
        for v in violations(
            path.read_text(encoding="utf-8"), _package_of(path), path.relative_to(ROOT).as_posix()
        )
    ]
    assert not found, "private names used outside their module:\n" + "\n".join(found)


def test_the_check_reports_private_names_and_lets_the_rest_through() -> None:
    sample = (
        "from __future__ import annotations\n"
        "from .abstract import _PATTERNS, line_key\n"
        "from . import position\n"
        "from cardtable import __version__\n"
        "from cardtable.poker_squares.hint import search\n"
        "import cardtable.poker_squares.hint as h\n"
        "search._spread(position.Position(), {})\n"
        "h.parse_view, h._analysed\n"
    )
    assert violations(sample, "cardtable.poker_squares.hint", "x.py") == [
        "x.py:2: from cardtable.poker_squares.hint.abstract import _PATTERNS",
        "x.py:7: search._spread",
        "x.py:8: h._analysed",
    ]
