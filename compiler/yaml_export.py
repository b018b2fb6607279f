"""The YAML export: libyaml's emitter (ruamel.yaml.clib) fed events made straight from the plain data.

`ruamel_dump` is ruamel.yaml's own dump with the export's settings: its representer builds a node for
every value (each with a fresh tag object whose text it decodes character by character), its resolver
is asked twice per scalar, and the C serializer walks the nodes calling back into Python for both;
libyaml's emitter, which decides quoting and folding and writes the text, is a small part of its time.
`event_dump` makes the very events that serializer hands libyaml: the same tags, the same implicit
flags (asked of the same resolver), the same styles, keys in the same sorted order, to the same
emitter built with the same arguments. The bytes are libyaml's either way, so they are the same.

It mirrors ruamel only for the export's closed set of types: dicts with str keys, lists, tuples,
str, int, float, bool and None, each container met once. Anything else (another type, a key that is
no str, one list or dict in two places, which ruamel writes as an anchor and alias, or settings it
does not mirror) goes to `ruamel_dump`, so `dump` always writes what ruamel writes.
"""

from __future__ import annotations

import io
from typing import Any

import ruamel.yaml.main
from ruamel.yaml import YAML
from ruamel.yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from ruamel.yaml.representer import SafeRepresenter
from ruamel.yaml.resolver import Resolver

WIDTH = 100

# libyaml's emitter as ruamel.yaml.clib wraps it, the one `YAML(pure=False)` uses; None without ruamel.yaml.clib.
C_EMITTER: Any = getattr(ruamel.yaml.main, "CEmitter", None)

STR_TAG = "tag:yaml.org,2002:str"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
BOOL_TAG = "tag:yaml.org,2002:bool"
NULL_TAG = "tag:yaml.org,2002:null"
SEQ_TAG = "tag:yaml.org,2002:seq"
MAP_TAG = "tag:yaml.org,2002:map"


def configured() -> YAML:
    """The export's YAML settings: block style, unicode as itself, lines folded at 100 columns."""
    yaml = YAML(typ="safe", pure=False)  # pure=False: libyaml's emitter, whose line breaks the outputs have
    yaml.default_flow_style = False
    yaml.allow_unicode = True
    yaml.width = WIDTH
    return yaml


def ruamel_dump(data: Any) -> str:
    """ruamel.yaml's own dump with the export's settings: the reference `event_dump` writes the bytes of."""
    stream = io.StringIO()
    configured().dump(data, stream)
    return stream.getvalue()


def dump(data: Any) -> str:
    """The export's YAML text: `event_dump`, or ruamel's own dump for data it does not mirror."""
    try:
        return event_dump(data)
    except Unsupported:
        return ruamel_dump(data)


class Unsupported(Exception):
    """Data (or settings) whose events `event_dump` does not make as ruamel would."""


def float_text(value: float) -> str:
    """A float as SafeRepresenter.represent_float writes it (no YAML 1.1 version is set)."""
    if value != value or (value == 0.0 and value == 1.0):
        return ".nan"
    if value == SafeRepresenter.inf_value:
        return ".inf"
    if value == -SafeRepresenter.inf_value:
        return "-.inf"
    return repr(value).lower()


def plain_tag_mirrors_resolve() -> bool:
    """Whether `plain_tag` answers as Resolver.resolve and `event_dump` may take its shortcuts: no path
    resolvers, none listed for every first character, no tag text to decode, str the default."""
    table = Resolver.yaml_implicit_resolvers
    return (not Resolver.yaml_path_resolvers and None not in table and str(Resolver.DEFAULT_SCALAR_TAG) == STR_TAG
            and all("%" not in str(tag) for resolvers in table.values() for tag, _ in resolvers))


def plain_tag(text: str) -> str:
    """The tag of `text` read as a plain scalar: `str(Resolver().resolve(ScalarNode, text, (True, False)))`.

    resolve() tries the implicit resolvers listed under the text's first character (under "" for the empty
    text) and returns a new Tag of the first whose pattern matches, else the default str tag; the C serializer
    compares that Tag with the node's tag by its text. This reads the same table the same way without making
    a Tag (whose text is decoded character by character) per scalar. Valid while `plain_tag_mirrors_resolve()`.
    """
    for tag, pattern in Resolver.yaml_implicit_resolvers.get(text[:1], ()):
        if pattern.match(text):
            return str(tag)
    return str(Resolver.DEFAULT_SCALAR_TAG)


def event_dump(data: Any) -> str:
    """What `ruamel_dump` writes, by events to libyaml's emitter. Raises Unsupported for what it does not mirror."""
    yaml = configured()
    emitter_class: Any = yaml.Emitter
    if (C_EMITTER is None or emitter_class is not C_EMITTER or yaml.default_flow_style is not False
            or yaml.default_style is not None or yaml.version is not None or yaml.tags
            or yaml.explicit_start or yaml.explicit_end or not plain_tag_mirrors_resolve()):
        raise Unsupported("settings or an environment the events do not mirror")

    # The two questions ruamel's C serializer asks its resolver per scalar: would the text, written plain, read
    # back with the node's tag (plain_tag), and written quoted (for a str yes, for any other tag no).
    resolved: dict[str, str] = {}

    def implicit(tag: str, text: str) -> tuple[bool, bool]:
        answer = resolved.get(text)
        if answer is None:
            answer = resolved[text] = plain_tag(text)
        return answer == tag, tag == STR_TAG

    # Most text starts with a character no implicit type starts with: plain_tag would say str without a look.
    firsts = Resolver.yaml_implicit_resolvers
    both = (True, True)

    def other(event: Any, tag: str, text: str) -> Any:
        event.value = text
        event.implicit = implicit(tag, text)
        return event

    stream = io.StringIO()
    # Built as ruamel's C dumper builds it (ruamel.yaml.main, get_serializer_representer_emitter).
    emitter: Any = emitter_class(
        stream, canonical=yaml.canonical, indent=yaml.old_indent, width=yaml.width, encoding=yaml.encoding,
        allow_unicode=yaml.allow_unicode, line_break=yaml.line_break, explicit_start=yaml.explicit_start,
        explicit_end=yaml.explicit_end, version=yaml.version, tags=yaml.tags)
    emit = emitter.emit
    # emit() copies an event's fields into libyaml's own event before it returns, so one event object per
    # kind is reused with new fields, instead of one object per value.
    scalar = ScalarEvent(None, STR_TAG, both, "")
    int_scalar = ScalarEvent(None, INT_TAG, None, "")
    float_scalar = ScalarEvent(None, FLOAT_TAG, None, "")
    null = other(ScalarEvent(None, NULL_TAG, None, ""), NULL_TAG, "null")
    true = other(ScalarEvent(None, BOOL_TAG, None, ""), BOOL_TAG, "true")
    false = other(ScalarEvent(None, BOOL_TAG, None, ""), BOOL_TAG, "false")
    mapping_start = MappingStartEvent(None, MAP_TAG, True, flow_style=False)
    mapping_end = MappingEndEvent()
    sequence_start = SequenceStartEvent(None, SEQ_TAG, True, flow_style=False)
    sequence_end = SequenceEndEvent()
    seen: set[int] = set()  # containers met: ruamel writes one met twice as an anchor and an alias

    def node(value: Any) -> None:
        kind = type(value)
        if kind is str:
            scalar.value = value
            scalar.implicit = both if value and value[0] not in firsts else implicit(STR_TAG, value)
            emit(scalar)
        elif kind is dict:
            if id(value) in seen:
                raise Unsupported("a mapping in two places")
            seen.add(id(value))
            try:
                keys = sorted(value)  # ruamel sorts a dict's items; with str keys, that is by key
            except TypeError:
                raise Unsupported("keys of several types") from None
            emit(mapping_start)
            for key in keys:
                if type(key) is not str:
                    raise Unsupported("a key that is no str")
                scalar.value = key
                scalar.implicit = both if key and key[0] not in firsts else implicit(STR_TAG, key)
                emit(scalar)
                node(value[key])
            emit(mapping_end)
        elif kind is list or kind is tuple:
            if kind is list or value:  # SafeRepresenter never aliases the empty tuple
                if id(value) in seen:
                    raise Unsupported("a sequence in two places")
                seen.add(id(value))
            emit(sequence_start)
            for item in value:
                node(item)
            emit(sequence_end)
        elif value is None:
            emit(null)
        elif kind is bool:
            emit(true if value else false)
        elif kind is int:
            emit(other(int_scalar, INT_TAG, str(value)))
        elif kind is float:
            emit(other(float_scalar, FLOAT_TAG, float_text(value)))
        else:
            raise Unsupported(f"a {kind.__name__}")

    emitter.open()
    emit(DocumentStartEvent(explicit=yaml.explicit_start, version=yaml.version, tags=yaml.tags))
    node(data)
    emit(DocumentEndEvent(explicit=yaml.explicit_end))
    emitter.close()
    emitter.dispose()
    return stream.getvalue()
