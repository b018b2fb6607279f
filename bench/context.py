"""What the sections share: the mode, the repository, loaded rulesets and generated modules."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .timing import Settings

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ("dice_ladder", "errant", "everrain", "tides_of_gold", "wyrd_wolds")


def compile_error_text(problem: BaseException) -> str:
    """A CompileError's first error as `CODE: message` (anything else as `Type: message`)."""
    report = getattr(problem, "report", None)
    errors = [d for d in getattr(report, "diagnostics", []) if d.severity == "error"]
    if errors:
        return f"{errors[0].code}: {errors[0].message}"
    return f"{type(problem).__name__}: {problem}"


def progress(message: str) -> None:
    """A line on stderr, so a long run shows where it is (the report itself goes to stdout)."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


@dataclass
class Context:
    quick: bool
    settings: Settings
    rulesets: tuple[str, ...]
    shared: dict[str, Any] = field(default_factory=dict)  # numbers one section passes to another
    _loaded: dict[str, Any] = field(default_factory=dict)
    _modules: dict[str, ModuleType] = field(default_factory=dict)

    @classmethod
    def make(cls, quick: bool) -> Context:
        if quick:
            settings = Settings(min_time=0.01, repeats=5, min_repeats=2, budget=0.6, slow_call=0.5)
            return cls(True, settings, ("tides_of_gold",))
        return cls(False, Settings(min_time=0.02), RULESETS)

    def loaded(self, ruleset: str) -> Any:
        """`compiler.api.load(ruleset)`, once per run (loading is timed in the build section, not here)."""
        if ruleset not in self._loaded:
            from compiler import api

            self._loaded[ruleset] = api.load(ruleset)
        return self._loaded[ruleset]

    def module(self, ruleset: str) -> ModuleType:
        """The compiled resolver module output/python/<ruleset>.py, imported from its file."""
        if ruleset not in self._modules:
            path = ROOT / "output" / "python" / f"{ruleset}.py"
            name = f"bench_generated_{ruleset}"
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot import {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # dataclasses look their module up while the class is built
            spec.loader.exec_module(module)
            self._modules[ruleset] = module
        return self._modules[ruleset]


# Modules whose functools caches are not odds: the Jinja environment, paths, the parser and its messages.
_KEEP_CACHES = ("compiler.render", "compiler.resources", "compiler.build", "compiler.syntax",
                "compiler.syntax_examples", "compiler.watch")


def compiler_caches() -> list[str]:
    """The compiler's cache hooks: every functools cache (`cache_clear`) of its odds-side modules, and a
    module's own `forget()` (compiler.odds has one: "benchmarks time the work from cold")."""
    found = []
    for name, module in sorted(sys.modules.items()):
        if not (name == "compiler" or name.startswith("compiler.")) or name in _KEEP_CACHES or module is None:
            continue
        for attr, value in vars(module).items():
            if getattr(value, "__module__", None) != name:
                continue
            if callable(getattr(value, "cache_clear", None)) or (attr == "forget" and callable(value)):
                found.append(f"{name}.{attr}")
    return found


def clear_compiler_caches() -> None:
    """Empty those caches, so that a repeat of an exact-odds computation starts cold."""
    for dotted in compiler_caches():
        module_name, attr = dotted.rsplit(".", 1)
        hook = getattr(sys.modules[module_name], attr)
        clear = getattr(hook, "cache_clear", None)
        (clear if callable(clear) else hook)()
