"""What the command line and `rulecraft watch` share: the error for a bad command-line value, and which
rulesets a command works on. Light to import: the commands that only roll never load the compiler."""

from __future__ import annotations

from collections.abc import Sequence


class UsageError(Exception):
    """A bad command-line value: printed as one line, exit 1."""


def targets(paths: Sequence[str]) -> list[str]:
    """The rulesets named on the command line, else every ruleset in rulesets/ (none there is a UsageError)."""
    from compiler.api import available

    if paths:
        return list(paths)
    found = available()
    if not found:
        raise UsageError("no rulesets found (looked for rulesets/*.rules)")
    return found
