"""The shape of the browser modules (no browser; docs/web.md, "The modules"): every module under
assets/js has fewer than 450 lines and no function in it more than 80, and every page
preloads (`{% set preload = [...] %}`) exactly the modules its entry module imports.

The function scanner is plain and honest, not a parser: it blanks comments, strings, template
literals' text (not their `${...}` code) and regular expressions, matches the braces that are
left, and counts as a function every block that follows `function name(...)`, a method
`name(...)` or an arrow `=>`, from the line of its name to its closing brace, the functions
inside it included. `test_the_scanner_*` check it on a small sample."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from cardtable.server.core.settings import WEB_DIR

JS = WEB_DIR / "assets" / "js"
TEMPLATES = WEB_DIR / "templates"
MODULE_LINES = 450
"""A module has fewer lines than this."""
FUNCTION_LINES = 80
"""A function has at most this many lines."""

WORD = re.compile(r"[A-Za-z_$][\w$]*")
NOT_METHODS = frozenset({"if", "for", "while", "switch", "catch", "with", "return", "typeof"})
"""Words that a `(...) {` follows without being a function's name."""
BEFORE_REGEX = frozenset(
    {
        "return",
        "typeof",
        "case",
        "do",
        "else",
        "in",
        "of",
        "new",
        "delete",
        "void",
        "throw",
        "yield",
        "await",
    }
)
"""Words after which a `/` starts a regular expression (after any other word it divides)."""
BEFORE_REGEX_SIGNS = "(,=:[!&|?{};+-*%<>~^"
"""Signs after which a `/` starts a regular expression (after `)`, `]`, a quote, it divides)."""


def mask(source: str) -> str:
    """`source` with the same lines and columns, where only code is left: comments become
    spaces; strings, template literals and regular expressions keep their delimiters and
    lose their text (a template keeps the code of its `${...}`)."""
    out = list(source)
    n = len(source)

    def blank(start: int, end: int) -> None:
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    templates: list[int] = []  # one open-brace count per `${` being read
    prev = ""  # the last word or sign of code: whether a `/` divides or starts a regex
    i = 0
    in_template = False
    while i < n:
        if in_template:  # the text of a template literal, up to its end or a `${`
            j = i
            while j < n and source[j] != "`" and not source.startswith("${", j):
                j += 2 if source[j] == "\\" else 1
            blank(i, j)
            if source.startswith("${", j):
                blank(j, j + 2)
                templates.append(0)
                in_template = False
                prev = "{"
                i = j + 2
            else:
                in_template = False
                prev = "`"
                i = j + 1
            continue
        c = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif c in "'\"":
            j = i + 1
            while j < n and source[j] not in (c, "\n"):
                j += 2 if source[j] == "\\" else 1
            blank(i + 1, j)
            prev = c
            i = j + 1
        elif c == "`":
            in_template = True
            i += 1
        elif c == "/" and (prev in BEFORE_REGEX or (len(prev) <= 1 and prev in BEFORE_REGEX_SIGNS)):
            j = i + 1
            in_class = False
            while j < n and source[j] != "\n" and (in_class or source[j] != "/"):
                if source[j] == "\\":
                    j += 1
                elif source[j] in "[]":
                    in_class = source[j] == "["
                j += 1
            blank(i + 1, j)
            prev = "/regex/"
            i = j + 1
        elif c == "}" and templates and templates[-1] == 0:
            templates.pop()  # the end of a `${...}`: back to the template's text
            blank(i, i + 1)
            in_template = True
            i += 1
        elif word := WORD.match(source, i):
            prev = word.group()
            i = word.end()
        else:
            if c == "{" and templates:
                templates[-1] += 1
            elif c == "}" and templates:
                templates[-1] -= 1
            if not c.isspace():
                prev = c
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class Function:
    name: str
    line: int  # where its name (or its `function`, or its arrow's parameters) stands
    lines: int  # from that line to its closing brace's


def _opening(code: str, close: int) -> int:
    """The `(` that the `)` at `close` closes."""
    depth = 0
    for k in range(close, -1, -1):
        if code[k] == ")":
            depth += 1
        elif code[k] == "(":
            depth -= 1
            if depth == 0:
                return k
    return -1


def _head(code: str, brace: int) -> tuple[str, int] | None:
    """(name, where it starts) of the function whose body opens at `brace`, or None."""
    before = code[:brace].rstrip()
    if before.endswith("=>"):
        params = before[:-2].rstrip()
        if params.endswith(")"):
            start = _opening(code, len(params) - 1)
        else:  # one parameter, no parentheses
            param = re.search(r"[A-Za-z_$][\w$]*$", params)
            start = param.start() if param else len(params)
        lead = code[:start]
        named = re.search(r"([A-Za-z_$][\w$]*)\s*[=:]\s*(?:async\s*)?$", lead)
        if named:  # `name = (...) => {`, `name: async (...) => {`
            return named.group(1), named.start(1)
        return "(arrow)", start
    if not before.endswith(")"):
        return None
    opening = _opening(code, len(before) - 1)
    lead = code[:opening].rstrip()
    word = re.search(r"(?:\bfunction\b\s*\*?\s*)?([A-Za-z_$][\w$]*)$", lead)
    if not word:
        return None
    name = word.group(1)
    if name == "function":
        return "(function)", word.start(1)
    if name in NOT_METHODS:
        return None
    return name, word.start()


def functions(source: str) -> list[Function]:
    """Every function of a module, in the order their bodies open."""
    code = mask(source)
    opens: list[int] = []
    pairs: list[tuple[int, int]] = []
    for k, c in enumerate(code):
        if c == "{":
            opens.append(k)
        elif c == "}" and opens:
            pairs.append((opens.pop(), k))
    out = []
    for brace, close in sorted(pairs):
        head = _head(code, brace)
        if head is None:
            continue
        name, start = head
        line = code.count("\n", 0, start) + 1
        out.append(Function(name, line, code.count("\n", 0, close) + 2 - line))
    return out


def modules() -> list[Path]:
    return sorted(JS.rglob("*.js"))


def test_no_module_has_450_lines_or_more() -> None:
    long = {
        str(path.relative_to(JS)): lines
        for path in modules()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) >= MODULE_LINES
    }
    assert not long, f"modules of {MODULE_LINES} lines or more (split them by job): {long}"


def test_no_function_is_longer_than_80_lines() -> None:
    long = [
        f"{path.relative_to(JS)}:{f.line} {f.name} ({f.lines} lines)"
        for path in modules()
        for f in functions(path.read_text(encoding="utf-8"))
        if f.lines > FUNCTION_LINES
    ]
    assert not long, f"functions of more than {FUNCTION_LINES} lines: {long}"


SAMPLE = r"""const s = "function fake() {";
/* function alsoFake() { */
const re = /[{(]+\/"'`/g, half = 4 / 2;
export async function outer(a) {
  const t = `x ${a ? `{${a}` : "}"} } ${{ a }.a}`;
  const inner = (b) => {
    return b / 2; // }
  };
  if (a) {
    for (const x of [a]) {
      return { a, x };
    }
  }
  return inner;
}
class K {
  static method(x) {
    return x;
  }
}
const obj = { get(y) { return y; }, run: async () => {}, other: function () {} };
list.map((x) => {
  return x;
});
const single = x => { return `}`; };
"""


def test_the_scanner_blanks_strings_comments_templates_and_regexes() -> None:
    code = mask(SAMPLE)
    assert len(code) == len(SAMPLE) and code.count("\n") == SAMPLE.count("\n")
    assert "fake" not in code and "alsoFake" not in code
    assert code.count("{") == code.count("}")
    assert "const re = /" in code and "half = 4 / 2" in code
    assert "${" not in code and "{ a }.a" in code


def test_the_scanner_finds_functions_and_their_lengths() -> None:
    found = [(f.name, f.line, f.lines) for f in functions(SAMPLE)]
    assert found == [
        ("outer", 4, 12),
        ("inner", 6, 3),
        ("method", 17, 3),
        ("get", 21, 1),
        ("run", 21, 1),
        ("(function)", 21, 1),
        ("(arrow)", 22, 3),
        ("single", 25, 1),
    ]


# --- what each page preloads -------------------------------------------------------------

STATIC_IMPORT = re.compile(
    r"^(?:import|export)\b[^;]*?[\"'](\.{1,2}/[^\"']+\.js)[\"'];", re.MULTILINE | re.DOTALL
)


def imports(module: str) -> set[str]:
    """The modules `module` ("core/api") imports statically, named as a template names them."""
    path = JS / f"{module}.js"
    out = set()
    for spec in STATIC_IMPORT.findall(path.read_text(encoding="utf-8")):
        target = (path.parent / spec).resolve().relative_to(JS.resolve())
        out.add(target.as_posix().removesuffix(".js"))
    return out


def loaded(entry: str) -> set[str]:
    """Every module that loading `entry` loads before it runs (dynamic `import()` aside)."""
    seen: set[str] = set()
    todo = [entry]
    while todo:
        for module in imports(todo.pop()) - seen:
            seen.add(module)
            todo.append(module)
    return seen - {entry}


def test_every_page_preloads_the_modules_its_entry_loads() -> None:
    wrong = {}
    for template in sorted(TEMPLATES.glob("*.html")):
        text = template.read_text(encoding="utf-8")
        entry = re.search(r'{%\s*set entry = "([^"]+)"\s*%}', text)
        if not entry:
            continue
        listed = re.search(r"{%\s*set preload = \[(.*?)\]\s*%}", text, re.S)
        preload = re.findall(r'"([^"]+)"', listed.group(1)) if listed else []
        assert len(preload) == len(set(preload)), f"{template.name} preloads a module twice"
        want, listed_set = loaded(entry.group(1)), set(preload)
        if listed_set != want:
            wrong[template.name] = {
                "missing": sorted(want - listed_set),
                "extra": sorted(listed_set - want),
            }
    assert not wrong, f"preload lists that differ from what the entry module loads: {wrong}"
