"""Synthetic rulesets N times the size of a real one, for the build's scaling curve.

Copy 0 is the ruleset as written. Copies 1..N-1 repeat its body (everything
after the `ruleset` header) with every definition and type renamed
consistently: `action_roll` becomes `action_roll_c3` wherever it is a name
(a definition, a reference, a `see:`, a chain, an errata target), never inside
text or comments. Errata IDs get a per-copy tag (`D-WW-1` -> `D-WW-XD-1`).
The result is a valid ruleset whose every copy checks, builds and prints like
the original: the same mix of rolls, tables, lists, tracks and errata.
"""

from __future__ import annotations

import re

KINDS = "roll|table|lookup|bands|formula|list|procedure|track|clock|rule|die|deck|priority"
# Text and comments are copied verbatim; dice (2d6, d20) and numbers are not names.
_TOKEN = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*'
                    r"|\d*[dD]\d+(?![A-Za-z0-9_])|\d+|[A-Za-z_][A-Za-z0-9_]*|.", re.S)
_DEFINED = re.compile(rf"^(?:{KINDS}|type) ([a-z_][a-z0-9_]*)", re.M)
_ERRATA_ID = re.compile(r"^(errata (?:[A-Z]+-)+)(\d+)", re.M)


def defined_names(source: str) -> set[str]:
    """The names a ruleset defines at the top level: its definitions and its types."""
    return set(_DEFINED.findall(source))


def split_header(source: str) -> tuple[str, str]:
    """(everything up to and including the `ruleset` header block, the body after it)."""
    lines = source.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("ruleset "):
            j = i + 1
            while j < len(lines) and (lines[j].startswith((" ", "\t")) or not lines[j].strip()):
                j += 1
            return "".join(lines[:j]), "".join(lines[j:])
    return "", source


def renamed(body: str, names: set[str], copy: int) -> str:
    suffix = f"_c{copy}"
    tag = "".join(chr(ord("A") + int(digit)) for digit in str(copy))

    def name(match: re.Match[str]) -> str:
        token = match.group(0)
        return token + suffix if token in names else token

    out = _TOKEN.sub(name, body)
    return _ERRATA_ID.sub(lambda m: f"{m.group(1)}X{tag}-{m.group(2)}", out)


def multiply(source: str, copies: int) -> str:
    """The ruleset `copies` times over, in one file."""
    head, body = split_header(source)
    names = defined_names(source)
    parts = [head, body]
    for copy in range(1, copies):
        parts.append("\n" + renamed(body, names, copy))
    return "".join(parts)
