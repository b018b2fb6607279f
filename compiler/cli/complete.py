"""Shell completion: `rulecraft completion bash|zsh|fish` prints a script, and the script calls back
`rulecraft __complete SHELL ...` (hidden) for the candidates of the word being typed.

The candidates come from the argparse parser itself (subcommands, options, `choices`), so a new subcommand
or option completes with no change to the scripts; positional arguments complete by their name: a ruleset
(the project's ids, then `.rules` files), a roll of that ruleset, its `key=value` inputs. The callback never
writes to stderr and always exits 0: a completion must never spam the terminal. It imports the compiler
(Lark, the checker) only to read a ruleset's rolls, and never the backends (Jinja, WeasyPrint).

The callback answers one candidate a line, `value<TAB>description` for zsh and fish (bare values for bash),
after a first line of what the shell adds itself: `rules` (.rules files and folders), `dirs`, `files`, or
`-` (nothing), and `nospace` when the candidates end in `=` (an input's name, its value still to come).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..resources import FORMATS
from .targets import UsageError, write_verbatim

SHELLS = ("bash", "zsh", "fish")
CALLBACK = "__complete"
# Positional arguments complete by their `dest`: a ruleset, a roll or table of it, its inputs, a folder.
RULESETS = frozenset({"ruleset", "paths", "old", "new"})
# Options whose value is a comma-separated list of these names (`build --format python,html`).
LISTS = {"format": FORMATS}
DIRS = frozenset({"output", "templates"})
NO_DECKS = frozenset({"simulate", "fill"})  # commands that refuse a deck (its draws depend on the cards drawn)
MAX_NUMBERS = 25  # a whole-number input completes its values when it has at most this many
# The command's parser for the words typed (main.build_parser, passed in: this module never imports main)
MakeParser = Callable[[Sequence[str]], argparse.ArgumentParser]


@dataclass
class Found:
    """The candidates for one word: (value, description) pairs, and what the shell adds itself."""

    items: list[tuple[str, str]] = field(default_factory=list)
    fallback: str = "-"  # "rules", "dirs", "files" or "-"


# ---------------------------------------------------------------- the scripts

BASH = r'''# bash completion for rulecraft. Install: add this line to ~/.bashrc
#     eval "$(rulecraft completion bash)"
# or save it where bash-completion finds it:
#     rulecraft completion bash > ~/.local/share/bash-completion/completions/rulecraft
_rulecraft_complete() {
    local cur="${COMP_WORDS[COMP_CWORD]}" mode="" line
    local -a found=()
    COMPREPLY=()
    while IFS= read -r line; do
        if [[ -z $mode ]]; then mode=" $line "; else found+=("$line"); fi
    done < <(command "${1:-rulecraft}" __complete bash "$COMP_WORDBREAKS" "${COMP_LINE:0:COMP_POINT}" 2>/dev/null)
    COMPREPLY=("${found[@]}")
    [[ $mode == *" nospace "* ]] && compopt -o nospace 2>/dev/null
    if [[ $mode == *" rules "* || $mode == *" dirs "* || $mode == *" files "* ]]; then
        compopt -o filenames 2>/dev/null
        while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -d -- "$cur")
        if [[ $mode == *" rules "* ]]; then
            while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -X '!*.rules' -- "$cur")
        elif [[ $mode == *" files "* ]]; then
            while IFS= read -r line; do [[ -d $line ]] || COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
        fi
    fi
    return 0
}
complete -F _rulecraft_complete rulecraft
'''

ZSH = r'''#compdef rulecraft
# zsh completion for rulecraft. Install: add this line to ~/.zshrc, after `compinit`
#     eval "$(rulecraft completion zsh)"
# or save it as _rulecraft in a folder of your $fpath:
#     rulecraft completion zsh > "${fpath[1]}/_rulecraft"
_rulecraft() {
    local -a lines described extra
    local mode line value description ret=1
    lines=("${(@f)$(command ${words[1]} __complete zsh "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    mode=" ${lines[1]} "
    for line in "${(@)lines[2,-1]}"; do
        [[ -z $line ]] && continue
        value=${line%%$'\t'*}
        description=""
        [[ $line == *$'\t'* ]] && description=${line#*$'\t'}
        described+=("${value//:/\\:}${description:+:$description}")
    done
    [[ $mode == *" nospace "* ]] && extra=(-S '')
    (( ${#described} )) && _describe -t values 'rulecraft' described "${extra[@]}" && ret=0
    case $mode in
        *" rules "*) _files -g '*.rules' && ret=0 ;;
        *" dirs "*) _files -/ && ret=0 ;;
        *" files "*) _files && ret=0 ;;
    esac
    return ret
}
if [[ "${funcstack[1]}" == "_rulecraft" ]]; then
    _rulecraft "$@"
else
    compdef _rulecraft rulecraft
fi
'''

FISH = r'''# fish completion for rulecraft. Install:
#     rulecraft completion fish > ~/.config/fish/completions/rulecraft.fish
function __rulecraft_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l lines (command $tokens[1] __complete fish $tokens[2..-1] "$current" 2>/dev/null)
    set -l mode " $lines[1] "
    for line in $lines[2..-1]
        echo $line
    end
    switch $mode
        case '* rules *'
            __fish_complete_suffix .rules
        case '* dirs *'
            __fish_complete_directories "$current"
        case '* files *'
            __fish_complete_path "$current"
    end
end
complete -c rulecraft -f -a '(__rulecraft_complete)'
'''

SCRIPTS = {"bash": BASH, "zsh": ZSH, "fish": FISH}


def print_script(shell: str) -> int:
    """`rulecraft completion SHELL`: the script on stdout; an unknown shell is one line naming the shells."""
    if shell not in SCRIPTS:
        raise UsageError(f"completion: unknown shell {shell!r}; the shells are: {', '.join(SHELLS)}")
    write_verbatim(SCRIPTS[shell])
    return 0


# ---------------------------------------------------------------- the callback


def callback(argv: Sequence[str], make_parser: MakeParser) -> int:
    """`rulecraft __complete SHELL ...`: the candidates on stdout. Never a word on stderr, always exit 0."""
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            text = answer(list(argv), make_parser)
    except BaseException:  # a completion must never spam the terminal, whatever went wrong
        return 0
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.write(text)
    return 0


def answer(argv: list[str], make_parser: MakeParser) -> str:
    """The callback's output for `argv` (the shell, then its words: see the scripts)."""
    if not argv or argv[0] not in SHELLS:
        return ""
    shell, rest = argv[0], argv[1:]
    breaks = ""
    if shell == "bash":  # COMP_WORDBREAKS, then the line up to the cursor
        if len(rest) != 2:
            return ""
        breaks, line = rest
        words = split_line(line)[1:]
    else:  # the words after the command, as typed, the last one the word being completed
        words = [unquote(word) for word in rest]
    words = words or [""]
    found = complete(make_parser(words[:-1]), words[:-1], words[-1])
    current = words[-1]
    items = [(value, description) for value, description in found.items if value.startswith(current)]
    # ids first: the shell's files join them once a word is begun (an empty word lists the ids alone)
    mode = ["-" if found.fallback == "rules" and items and not current else found.fallback]
    if items and all(value.endswith("=") for value, _ in items):
        mode.append("nospace")
    if shell == "bash":  # readline replaces only what follows the last word-break character (`=`, `:`)
        cut = max((current.rfind(c) for c in "=:" if c in breaks), default=-1) + 1
        items = [(value[cut:], "") for value, _ in items]
    lines = [" ".join(mode)] + [f"{value}\t{description}" if description else value for value, description in items]
    return "\n".join(lines) + "\n"


def split_line(line: str) -> list[str]:
    """A command line as the shell splits it, tolerant of an unfinished quote; an empty last word when the line
    ends in a space (a new word begins)."""
    for closing in ("", '"', "'"):
        try:
            words = shlex.split(line + closing)
        except ValueError:
            continue
        if not closing and line[-1:].isspace() and not line.endswith("\\" + line[-1:]):
            words.append("")
        return words
    return line.split()


def unquote(word: str) -> str:
    found = split_line(word)
    return found[0] if found else ""


def one_line(text: str | None, width: int = 70) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[:width - 1] + "…"


def complete(parser: argparse.ArgumentParser, done: list[str], current: str) -> Found:
    """The candidates for `current`, after the words `done` (what follows `rulecraft`), from `parser`."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    index = next((i for i, word in enumerate(done) if not word.startswith("-")), None)
    if index is None:  # no subcommand yet
        if current.startswith("-"):
            return options(parser, set())
        shown = {choice.dest: choice.help or "" for choice in commands._choices_actions}
        return Found([(name, one_line(help)) for name, help in shown.items()])
    command = done[index]
    sub = commands.choices.get(command)
    if not isinstance(sub, argparse.ArgumentParser):
        return Found()
    given: list[str] = []
    used: set[argparse.Action] = set()
    expecting: argparse.Action | None = None
    ended = False  # after `--`, every word is a positional argument
    for word in done[index + 1:]:
        if expecting is not None:
            expecting = None
        elif word == "--" and not ended:
            ended = True
        elif word.startswith("-") and word != "-" and not ended:
            action, attached = option_of(sub, word)
            if action is not None:
                used.add(action)
                if action.nargs != 0 and not attached:
                    expecting = action
        else:
            given.append(word)
    if expecting is not None:
        return values_of(expecting, current, "")
    if current.startswith("-") and current != "-" and not ended:
        if current.startswith("--") and "=" in current:
            action, _ = option_of(sub, current)
            return values_of(action, current, current.partition("=")[0] + "=") if action else Found()
        return options(sub, used)
    return positional(command, sub, given, current)


def option_of(parser: argparse.ArgumentParser, word: str) -> tuple[argparse.Action | None, bool]:
    """The option `word` names (a unique prefix of a long one, as argparse takes it; `-n5`, `--seed=3`), and
    whether its value is attached."""
    name, eq, _ = word.partition("=")
    found = parser._option_string_actions
    if name in found:
        return found[name], bool(eq)
    if not word.startswith("--") and len(word) > 2 and word[:2] in found:
        return found[word[:2]], True
    if word.startswith("--"):
        matches = {found[option] for option in found if option.startswith(name)}
        if len(matches) == 1:
            return matches.pop(), bool(eq)
    return None, False


def options(parser: argparse.ArgumentParser, used: set[argparse.Action]) -> Found:
    """The options of `parser` not given yet (the long form of each, its help as the description)."""
    items: list[tuple[str, str]] = []
    for action in parser._actions:
        if not action.option_strings or action.help == argparse.SUPPRESS:
            continue
        if action in used and not isinstance(action, (argparse._AppendAction, argparse._CountAction)):
            continue
        longs = [option for option in action.option_strings if option.startswith("--")]
        items.extend((option, one_line(action.help)) for option in longs or action.option_strings[:1])
    return Found(items)


def values_of(action: argparse.Action, current: str, prefix: str) -> Found:
    """The values of an option: its `choices`, a comma list (`--format python,ht`), a folder; else none."""
    typed = current[len(prefix):]
    if action.choices is not None:
        return Found([(f"{prefix}{choice}", "") for choice in action.choices])
    if action.dest in LISTS:
        names = LISTS[action.dest]
        head, _, _ = typed.rpartition(",")
        listed = set(head.split(",")) if head else set()
        start = f"{prefix}{head}," if head else prefix
        return Found([(f"{start}{name}", "") for name in names if name not in listed])
    if action.dest in DIRS or action.metavar == "DIR":
        return Found(fallback="dirs")
    return Found()


def positional(command: str, parser: argparse.ArgumentParser, given: list[str], current: str) -> Found:
    """The candidates for the next positional argument of `parser`, after the positional words `given`."""
    values: dict[str, list[str]] = {}
    target: argparse.Action | None = None
    left = list(given)
    for action in (a for a in parser._actions if not a.option_strings):
        many = action.nargs in ("*", "+", argparse.REMAINDER)
        count = 1 if action.nargs in (None, "?") else action.nargs if isinstance(action.nargs, int) else 0
        if many or len(left) < count:
            target = action
            values[action.dest] = left
            break
        values[action.dest], left = left[:count], left[count:]
    if target is None:
        return Found()
    dest = target.dest
    if dest in RULESETS:
        return ruleset_ids()
    if dest == "name" and values.get("ruleset"):
        return roll_names(values["ruleset"][0], decks=command not in NO_DECKS)
    if dest == "inputs" and values.get("ruleset") and values.get("name"):
        return inputs_of(values["ruleset"][0], values["name"][0], values["inputs"], current)
    if dest == "shell":
        return Found([(shell, "") for shell in SHELLS])
    if dest == "folder":
        return Found(fallback="dirs")
    if target.choices is not None:
        return Found([(str(choice), "") for choice in target.choices])
    return Found(fallback="files")


TITLE = re.compile(r'^ruleset[ \t]+"([^"\n]*)"', re.MULTILINE)


def ruleset_ids() -> Found:
    """The project's ruleset ids (those the CLI resolves to a file of its rulesets folder), with their titles;
    then the shell's own `.rules` files and folders."""
    from ..project import ProjectError, find_project, ruleset_path

    items: list[tuple[str, str]] = []
    try:
        folder = find_project().rulesets
        files = sorted(folder.glob("*.rules")) if folder.is_dir() else []
    except (ProjectError, OSError):
        files = []
    for path in files:
        if ruleset_path(path.stem) != path or not path.is_file():
            continue  # the id would name something else (a file of that name here)
        try:
            with path.open(encoding="utf-8", errors="replace") as handle:
                title = TITLE.search(handle.read(4096))
        except OSError:
            title = None
        items.append((path.stem, one_line(title.group(1)) if title else ""))
    return Found(items, fallback="rules")


# A ruleset's rolls and inputs, as the completion offers them: {"names": [[name, description, is a deck], ...],
# "inputs": {name: [[input, description, [[value, description], ...]], ...]}}.
Summary = dict[str, Any]
CACHE_KEEP = 64  # summaries of this many ruleset texts stay in the cache folder


def summary(ruleset: str) -> Summary | None:
    """What completion needs of a ruleset, from the cache folder when this very text (and version of Rulecraft)
    was read before; else loaded through `rulecraft.api` (checking a big ruleset takes a good half second), and
    kept. None when it does not load: no diagnostics printed, ever."""
    import hashlib
    import json
    import os

    from .. import __version__
    from ..project import ruleset_path
    from ..resources import cache_dir, prune_cache

    path = ruleset_path(ruleset)
    try:  # a regular file only, never a pipe that would block, nor a file too big to be a ruleset
        if not path.is_file() or path.stat().st_size > 1_000_000:  # syntax.parse.MAX_SOURCE_BYTES (it imports Lark)
            return None
        data = path.read_bytes()
    except (OSError, ValueError):
        return None
    digest = hashlib.sha256(__version__.encode() + b"\0" + data).hexdigest()
    folder = cache_dir()
    kept = folder / "completion" / f"{digest}.json" if folder is not None else None
    if kept is not None:
        try:
            found = json.loads(kept.read_text(encoding="utf-8"))
            if isinstance(found, dict) and isinstance(found.get("names"), list) and \
                    isinstance(found.get("inputs"), dict):
                return found
        except (OSError, ValueError):
            pass
    made = summarize(ruleset)
    if made is not None and kept is not None:
        with contextlib.suppress(OSError):
            kept.parent.mkdir(parents=True, exist_ok=True)
            temporary = kept.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(made), encoding="utf-8")
            os.replace(temporary, kept)
            prune_cache(kept.parent, "*.json", CACHE_KEEP)
    return made


def summarize(ruleset: str) -> Summary | None:
    """The ruleset's summary, loaded and checked now; None when it does not load."""
    from .. import model as m
    from ..api import load

    try:
        checked = load(ruleset).checked
    except Exception:  # a ruleset with errors, or no ruleset at all: offer nothing
        return None
    names: list[list[object]] = []
    inputs: dict[str, list[list[object]]] = {}
    for definition in checked.definitions:
        if isinstance(definition, m.Resolver):
            names.append([definition.name, one_line(f"{definition.kind}: {definition.label}"), False])
            inputs[definition.name] = [input_summary(one) for one in definition.inputs]
        elif isinstance(definition, m.Deck):
            names.append([definition.name, one_line(f"deck: {definition.label}"), True])
            piles = dict.fromkeys(str(card.pile) for card in definition.cards if card.pile is not None)
            inputs[definition.name] = [[definition.piles, "the pile in play", [[pile, ""] for pile in piles]]] \
                if definition.piles else []
    return {"names": names, "inputs": inputs}


def input_summary(one: Any) -> list[object]:
    """[name, description, [[value, description], ...]]: the values when they are a finite set (options,
    yes/no, whole numbers in a short range)."""
    from .. import model as m

    kind = one.type
    if isinstance(kind, m.Flag):
        values, shown = [["yes", ""], ["no", ""]], "yes/no"
    elif isinstance(kind, m.Choice):
        values = [[option.name, "" if option.label == option.name else one_line(option.label)]
                  for option in kind.options]
        shown = "|".join(option.name for option in kind.options)
    else:
        numbers = range(kind.low, kind.high + 1)
        values = [[str(n), ""] for n in numbers] if len(numbers) <= MAX_NUMBERS else []
        shown = f"{kind.low}..{kind.high}"
    return [one.name, one_line(f"{one.doc}: {shown}" if one.doc else shown), values]


def roll_names(ruleset: str, decks: bool) -> Found:
    """What `roll` / `odds` take: the ruleset's rolls, tables, lookups and formulas (and decks, to draw)."""
    found = summary(ruleset)
    if found is None:
        return Found()
    return Found([(name, description) for name, description, deck in found["names"] if decks or not deck])


def inputs_of(ruleset: str, name: str, given: list[str], current: str) -> Found:
    """`key=` for each input of the roll not given yet; after `key=`, its values when they are a finite set."""
    found = summary(ruleset)
    specs = found["inputs"].get(name, []) if found is not None else []
    key, eq, _ = current.partition("=")
    if eq:
        return Found([(f"{key}={value}", label) for spec in specs if spec[0] == key for value, label in spec[2]])
    named = {pair.partition("=")[0] for pair in given}
    return Found([(f"{spec[0]}=", spec[1]) for spec in specs if spec[0] not in named])
