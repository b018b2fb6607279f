"""What the sections share: the mode, the repository, the generated modules, the compiler's caches."""

from __future__ import annotations

import atexit
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .timing import Settings

CPU = time.process_time

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
    shared: dict[str, Any] = field(default_factory=dict)  # numbers one section passes to another
    _modules: dict[str, ModuleType] = field(default_factory=dict)

    @classmethod
    def make(cls, quick: bool) -> Context:
        """In-process sections time this process's CPU time: the cores are shared, and a call that another
        process preempts would count the other's time on the wall clock (a 1.6 ms call then reads 5.7 ms: one
        time slice). Sections that time whole processes set the wall clock themselves."""
        if quick:
            settings = Settings(min_time=0.01, repeats=5, min_repeats=2, budget=0.6, slow_call=0.5, clock=CPU)
            return cls(True, settings)
        return cls(False, Settings(min_time=0.02, clock=CPU))

    def module(self, ruleset: str) -> ModuleType:
        """The resolver module the compiler generates for `ruleset` now (not the committed output/python, which
        may be older than the compiler), imported from its file. The modules are built once per run by the
        command a user runs, `rulecraft build --format python`, into a temporary folder."""
        if ruleset not in self._modules:
            path = self._generated() / "python" / f"{ruleset}.py"
            name = f"bench_generated_{ruleset}"
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot import {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # dataclasses look their module up while the class is built
            spec.loader.exec_module(module)
            self._modules[ruleset] = module
        return self._modules[ruleset]

    def _generated(self) -> Path:
        folder = self.shared.get("generated")
        if isinstance(folder, Path):
            return folder
        made = Path(tempfile.mkdtemp(prefix="rulecraft-bench-"))
        atexit.register(shutil.rmtree, made, True)
        progress(f"building the Python modules of {', '.join(RULESETS)} into {made}")
        done = subprocess.run([*rulecraft_command(), "build", "--format", "python", "-o", str(made), *RULESETS],
                              cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"rulecraft build --format python failed: {(done.stderr or done.stdout)[-2000:]}")
        self.shared["generated"] = made
        return made


def rulecraft_command() -> list[str]:
    """How to run `rulecraft`: the project's .venv if it has one (what `make` builds), else this Python."""
    script = ROOT / ".venv" / "bin" / "rulecraft"
    return [str(script)] if script.exists() else [sys.executable, "-m", "rulecraft"]


# Modules whose functools caches are not odds: the Jinja environment, paths, the parser and its messages.
_KEEP_CACHES = ("rulecraft.backends.render", "rulecraft.resources", "rulecraft.backends.build",
                "rulecraft.syntax.parse", "rulecraft.syntax.mistakes", "rulecraft.cli.watch")


def compiler_caches() -> list[str]:
    """The compiler's cache hooks: every functools cache (`cache_clear`) of its odds-side modules, and a
    module's own `forget()` (rulecraft.semantics.odds has one: "benchmarks time the work from cold")."""
    found = []
    for name, module in sorted(sys.modules.items()):
        if not (name == "rulecraft" or name.startswith("rulecraft.")) or name in _KEEP_CACHES or module is None:
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
