"""The player's sheet: what of the export a player reads at the table.

The export (render.export_data) holds everything the compiler knows about each definition: its inputs, the
values it works out, the data on each band, the citations. The designer's proof prints all of it. The player's
sheet (and the core sheet) prints the document's words and the odds, and of the rest only what the words do not
already say; this module makes that choice, on the export's plain data, before the templates see it:

- `said_once`: a text is printed once, where it is said in full; a card whose words another card holds says
  "As <that card> says", and a band's or step's words (or a track's words for when it is full) that its card's
  text already holds are left off;
- `plain`: the resolver's machinery is left off: its inputs (the dice words, the band keys and the chart's axis
  name them), the values no printed words use (words, not the expressions behind them), a lookup's key that is
  one of its inputs where the rows name it, what the designer worded "" (the rule text says it), and the data
  of a band, entry or card whose words say it;
- `shared_outcomes`: rolls that share one set of outcomes and odds print them once, the later ones pointing
  to the first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from .words import humanize


def player_cards(definitions: list[dict[str, Any]], main: dict[str, Any] | None = None,
                 core: bool = False) -> list[dict[str, Any]]:
    """The definitions as the player's sheet prints them, in order (`main`, the main roll, first if given), or
    the core sheet (`core`), which prints a roll's words only where it has no table."""
    cards = [plain(d, core) for d in said_once(shared_outcomes(definitions), main)]
    return [card if main is not None and index == 0 else run_in(card) for index, card in enumerate(cards)]


def run_in(card: dict[str, Any]) -> dict[str, Any]:
    """A card whose words open with its name, as a glossary's do ("Burning = 1D6 damage / Initiative Turn on
    fire.", "Bribes: Pay your Wealth ..."), is headed by those words, as written, and its words go on from them
    on the heading's line (`run_in`, `run_in_rest`): the name is not said twice. The main roll keeps its
    heading: it opens the sheet."""
    text = (card["text"] or "").strip()
    # the name, as written (in bold or not), with the stop that follows it ("Bribes:"), then a space
    lead = re.match(rf"(\*\*)?({re.escape(card['label'])})(?(1)\*\*)([:,;.]?)(?=\s)", text, flags=re.IGNORECASE)
    if not lead:
        return card
    return dict(card, run_in=lead.group(2) + lead.group(3), run_in_rest=text[lead.end():])


def _one_outcome(definition: dict[str, Any]) -> bool:
    """Whether a card is a roll with one outcome, which leads to no other roll: every roll gives it."""
    bands = definition.get("bands") or []
    return definition["kind"] == "roll" and len(bands) == 1 and not bands[0].get("next")


def _said(text: object) -> str:
    return " ".join(str(text).split()).casefold()


SAID_WORDS = 4  # a text this short is a name ("STR", "Hostile"), said again wherever it names something


def _holds(seen: str, words: str, least: int = SAID_WORDS) -> bool:
    """Whether `seen` says `words`, whole words ("wil" is not in "will"), if they are `least` words or more (a
    shorter text counts as said only where it is all of `seen`)."""
    if len(words.split()) < least:
        return seen == words
    # most texts are not in most others: a plain search first, the whole-word pattern only where it is
    return words in seen and re.search(rf"(?<!\w){re.escape(words)}(?!\w)", seen) is not None


def _texts(definition: dict[str, Any]) -> list[str]:
    """Every text a card prints: its own, its bands', its entries' (and theirs), its prose details."""
    def entries(items: list[dict[str, Any]]) -> list[str]:
        return [text for e in items for text in (e["text"], *entries(e.get("children", []))) if text]
    return [text for text in (definition["text"], *(b["text"] for b in definition.get("bands", ())),
                              *entries(definition.get("entries", [])), *_prose(definition).values()) if text]


def _prose(definition: dict[str, Any]) -> dict[str, str]:
    """The details a sheet prints as rules text: the document's sentences kept as data (`recover: "..."`)."""
    return {name: value for name, value in definition.get("details", {}).items()
            if isinstance(value, str) and len(value.split()) > 3}


def said_once(definitions: list[dict[str, Any]], main: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Each thing said once, in the sheet's order:

    - a card's text that another card's longer text holds (before or after it) is left off, and the card names
      the one that says it (`said_in`); a text said word for word before is left off where it comes again;
    - a band's, an entry's or a prose detail's text that an earlier text, or its own card's text, holds;
    - an input's description after its first card;
    - a yes/no or number tag that the band's own words already say ("Complication" on "face a complication");
    - a track's words for when it is full that its own text or an earlier text holds.

    The main roll (`main`) keeps its words: it opens the sheet. The designer's proof keeps everything."""
    said: list[tuple[str, dict[str, Any]]] = []  # (words, the card that printed them)
    whole = [(_said(text), d) for d in definitions for text in _texts(d)]  # a card's words, its rows' and entries'

    def holder(text: object, definition: dict[str, Any]) -> dict[str, Any] | None:
        words = _said(text)
        if not words or definition is main:
            return None
        earlier = next((card for seen, card in said if _holds(seen, words)), None)
        longer = [(len(seen), -index, card) for index, (seen, card) in enumerate(whole)
                  if card is not definition and len(seen) > len(words) and _holds(seen, words)]
        # the longest text that holds these words says them (it is held by none longer); else the first to say them
        return max(longer, key=lambda entry: entry[:2])[2] if longer else earlier

    def heard(text: object) -> bool:
        words = _said(text)
        return bool(words) and any(_holds(seen, words) for seen, _ in said)

    rows: list[str] = []  # the words of a card's rows so far: "Lose" need not say "Whoever has ..." after "Win"

    def heard_here(text: object) -> bool:
        return heard(text) or _said(text) in rows

    docs: set[tuple[str, str]] = set()
    out = []
    for definition in definitions:
        d = dict(definition)
        source = holder(d["text"], definition)
        if source is not None:
            d["text"], d["said_in"] = None, {"name": source["name"], "label": source["label"]}
            if _dice_said(definition, source["text"]):  # "After, 1D6 damage per Initiative Turn." says the d6
                d["wording"] = dict(d.get("wording", {}), roll="")
        if definition["text"]:
            said.append((_said(definition["text"]), definition))
        if d.get("inputs"):
            d["inputs"] = [dict(i, doc=None) if (i["name"], i["doc"] or "") in docs else i for i in d["inputs"]]
            docs.update((i["name"], i["doc"] or "") for i in definition["inputs"])
        if d.get("bands"):
            rows.clear()
            bands = []
            for band in d["bands"]:
                bands.append(dict(band, **_once(band["text"], heard_here, _named(band)),
                                  values={name: value for name, value in band["values"].items()
                                          if not _tag_said(name, value, _said(" ".join(
                                              [band["label"], band["text"] or "",
                                               *(e["words"] for e in band.get("effects", ()))])))
                                          and not _named_by_number(band, value)
                                          and not _formula_said(name, value, definition["text"])}))
                rows.append(_said(band["text"] or ""))
            d["bands"] = bands
        if d.get("entries"):
            d["entries"] = [_entry_said(entry, heard) for entry in d["entries"]]
        if d.get("on_full") and (heard(d["on_full"]) or _holds(_said(definition["text"] or ""), _said(d["on_full"]))):
            d["on_full"] = None  # "When full: Once out of HP, ..." where the track's text says it
        prose = _prose(definition)
        if prose:
            d["details"] = {name: None if name in prose and heard(value) else value
                            for name, value in d["details"].items()}
        said.extend((_said(text), definition) for text in _texts(definition)[1 if definition["text"] else 0:])
        out.append(d)
    return out


def _dice_said(definition: dict[str, Any], text: str | None) -> bool:
    """Whether a text says a roll's dice: one line of dice, with no condition, whose words it holds ("d6" in
    "1D6 damage per Initiative Turn")."""
    dice = definition.get("dice") or []
    if len(dice) != 1 or dice[0].get("when") or not text or "roll" in definition.get("wording", {}):
        return False
    return _holds(_one_die(_said(text)), _one_die(_said(dice[0].get("words", dice[0]["roll"]))), 1)


def _one_die(words: str) -> str:
    """Words with one die written as a die ("1D6 × 1D4" says `d6 × d4`); `words` as `_said` gives them."""
    return re.sub(r"(?<!\w)1d(?=\d)", "d", words)


def _once(text: str | None, heard: Callable[[object], bool], named: bool) -> dict[str, str | None]:
    """A band's or entry's `text`, or, where it was said before, `said`: the words, which its row then leaves
    off (they still count as its own when deciding what else the row need not say). Only a sentence is left
    off, and only on a row `named` by more than a number or its words ("Pass", "Moving quickly"): a row that
    another table has too ("Encounter" on a 1) is its own table's, which would otherwise be left blank."""
    sentence = named and len(str(text or "").split()) >= SENTENCE_WORDS
    return {"text": None, "said": text} if sentence and heard(text) else {"text": text, "said": None}


def _named(band: dict[str, Any]) -> bool:
    """Whether a band's row names it by more than a number: a name of its own, or an option ("Moving quickly")."""
    return bool(band["label"] != band["key"] or band["key_kind"] == "option")


def _entry_said(entry: dict[str, Any], heard: Callable[[object], bool]) -> dict[str, Any]:
    return dict(entry, **_once(entry["text"], heard, bool(entry["label"]) and entry["label"] != entry["text"]),
                children=[_entry_said(child, heard) for child in entry.get("children", [])])


COUNTS = ("number", "count")  # a datum's name that says no more than its number


MULTIPLES = {2: "doubles?|doubled|twice", 3: "triples?|tripled|thrice"}  # a number its words say as a multiple


def _tag_said(name: str, value: object, words: str) -> bool:
    """Whether a band's words already say its datum: a yes whose name they hold; a number they hold beside
    its name's first word, singular or plural ("segments: 2" in "2 segments", "segments: 1" in "1 segment",
    "segments: 0" in "no segments", "dv: -2" in "DV -2"); a name or a choice they hold ("monster: Tier II" in
    "Tier II Monster"); a value that is only its own name, or the total its name names ("Damage", `damage:
    total`); a die's sides its name says ("d4", `sides: 4`; "1", `sides: 1`); a two or a three said as a
    multiple ("debt multiplier: 2" in "debt doubles")."""
    named = humanize(name).casefold()
    if value is True:  # "passed" on "Pass", "lowered" on "lower the attribute", "cant get lost" on "Can’t get lost"
        past = named.endswith("ed") and len(named) > 5 and re.search(rf"\b{re.escape(named[:-2])}", words)
        return named in re.sub(r"[’']", "", words) or bool(past)
    if isinstance(value, int) and not isinstance(value, bool):
        stems = [word[:-1] if word.endswith("s") and len(word) > 3 else word for word in named.split()]
        stem = stems[0]
        if value == 0 and any(re.search(rf"\bno {re.escape(word)}", words) for word in stems):
            return True  # "initiative turns: 0" on "No turns"
        if name == "sides" and re.search(rf"(?<!\w)d{value}(?!\w)" if value != 1 else r"(?<!\w)1(?!\w)", words):
            return True  # "sides: 4" on a d4; "sides: 1" on a "1", a die with one face (Errant's lowest rung)
        number = rf"[-−]{-value}" if value < 0 else rf"(?<![-−]){value}"
        if value in MULTIPLES:  # "debt multiplier: 2" on "Company debt doubles"
            number = rf"(?:{number}|{MULTIPLES[value]})"
        # a datum named only "number" or "count" ("17 Enemy miniatures", `number: 17`) is said by the number
        return re.search(rf"(?<!\w){number}(?!\w)", words) is not None and (stem in words or named in COUNTS)
    if isinstance(value, dict) and "expr" in value:
        value = value.get("words", value["expr"])
        if _said(humanize(str(value))) == named:  # `tested: tested`, the value worked out under its own name
            return True
        if value == "total" and _holds(words, named, 1):  # "Distance", `distance: total`: the roll gives it
            return True
    if not isinstance(value, str):
        return False
    return _holds(_one_die(words), _said(value), 1)


def _named_by_number(band: dict[str, Any], value: object) -> bool:
    """Whether a row is named by the number a datum of it is ("1" — Minor Advantage, `size: 1`)."""
    return isinstance(value, int) and not isinstance(value, bool) and band["label"] == str(value)


def _formula_said(name: str, value: object, text: str | None) -> bool:
    """Whether a card's words state a row's worked-out datum as "<name> = <expression>" ("Hold breath #
    Initiative Turns = phys - 10" states `initiative_turns: phys - 10`)."""
    if not (isinstance(value, dict) and "expr" in value and text):
        return False
    words = _said(text).replace("−", "-")
    expression = _said(str(value.get("words", value["expr"]))).replace("−", "-")
    return _holds(words, f"{humanize(name).casefold()} = {expression}", 1)


SENTENCE_WORDS = 6  # a row's words this long are a sentence, which a row named otherwise need not say twice


ORDINALS = ("priority", "order", "rank", "step")  # data an entry's number in a numbered list says
LINKS = ("see",)  # data that is a reference to another card: kept as a link wherever it is


def plain(definition: dict[str, Any], core: bool = False) -> dict[str, Any]:
    """A card without the resolver's machinery, which a player does not read:

    - its inputs: the dice words, the band keys and the chart's axis name them (the proof lists them);
    - what the designer worded "" (`words:`, the rule text says it): a let, the key (`by ...`), the value, a
      band's key, a flag's condition (its name and odds stay); the dice line (`roll: ""`, or dice the words
      say: `_dice_said`) is left off by the template;
    - a worked-out value (`let`) that none of the card's printed words names, as a whole word ("adv" is not named
      by "advantage"; the words, not the expressions behind them: a let named only by worded dice is not printed);
    - the key of a lookup that is one of its inputs ("by roll with"), where its rows are keyed by that input's
      options or say when they apply: the rows name it;
    - a band's or an entry's data where it has words of its own, which say it ("additional dice: 1" beside "roll
      an additional die"), and the card's data (`count: 4`, `step size: 1`) where the card has words; references
      (`see:`) stay, as links;
    - an entry's place in a numbered list (`priority: 2` on the second);
    - words that are the card's title ("Loyalty decreases by 1 when:") are its title alone;
    - a condition's `forbids: all` reads "Forbids every roll";
    - a roll with one outcome (`_one_outcome`) has no table, nor has a lookup whose words list its rows
      (`_listed`);
    - a pointer to a card its words name is a link on the name (`_pointers_in_words`), where the words are
      printed (not on a `core` sheet's card with a table)."""
    d = dict(definition)
    has_words = bool(definition["text"] or d.get("said_in") or d.get("entries"))
    if d["text"] and _said(d["text"]).rstrip(":.") == _said(d["label"]).rstrip(":."):
        d["text"] = None  # "Loyalty decreases by 1 when:" under its title "Loyalty decreases by 1 when"
    if d.get("inputs"):
        d["inputs"] = []
    if _dice_said(definition, d["text"]):  # "Roll a d6 for the distance.": no "d6" under it
        d["wording"] = dict(d.get("wording", {}), roll="")
    said = {name for name, text in d.get("wording", {}).items() if not text}  # `words:` "": the rule text says it
    for name in ("key", "value"):
        if name in said:
            d[f"{name}_words"] = ""
    if d.get("flags"):
        d["flags"] = [dict(flag, words="") if flag["name"] in said else flag for flag in d["flags"]]
    bare_key = d.get("key") in {i["name"] for i in definition.get("inputs", ())}
    if bare_key and d.get("bands") and all(b["key_kind"] in ("option", "when", "otherwise") for b in d["bands"]):
        d["key_words"] = ""  # "by roll with": the rows name its options, or say when they apply
    if d.get("lets"):
        d["lets"] = [let for let in d["lets"] if let["name"] not in said]
        printed = _printed(d).casefold()
        kept = [let for let in d["lets"] if _holds(printed, humanize(let["name"]).casefold(), 1)]
        while True:  # a value another kept value's words name is kept too
            named = " ".join(let["words"] for let in kept).casefold()
            more = [let for let in d["lets"] if let not in kept and _holds(named, humanize(let["name"]).casefold(), 1)]
            if not more:
                break
            kept += more
        d["lets"] = [let for let in d["lets"] if let in kept]
    if _one_outcome(d):
        # no table: its one row says nothing but that it is what the roll gives ("1+ Damage"); its sentence, if
        # it has one not said before, goes on from the card's words ("... a luck die. Higher is better. ...")
        words = d["bands"][0]["text"] or ""
        words = words if len(words.split()) >= SENTENCE_WORDS else ""
        d["text"], d["bands"], d["odds"] = f"{d['text'] or ''} {words}".strip() or None, [], None
    if d.get("bands"):
        options = next((i.get("choice_labels") or {} for i in definition.get("inputs", ())
                        if i["name"] == d.get("key")), {})
        plain_rows = [_plain_band(band, d.get("wording", {}), options) for band in d["bands"]]
        # a row's sentence says its data, but not a short text it does not hold: Errant's pace "x/+1" beside "+1
        # positive Event Die.", which goes in the column of a datum most rows carry
        unsaid = [{name: value for name, value in band["values"].items() if isinstance(value, str)
                   and len(value.split()) < SENTENCE_WORDS and name not in row["values"]
                   and not _holds(_said(band["text"] or band.get("said") or ""), _said(value), 1)}
                  for band, row in zip(d["bands"], plain_rows, strict=True)]
        carried = [dict(row, values={**more, **row["values"]}) for row, more in zip(plain_rows, unsaid, strict=True)]
        columns = tag_columns(carried) if not d.get("columns") else []
        d["bands"] = [dict(row, values={**{name: more[name] for name in columns if name in more}, **row["values"]})
                      for row, more in zip(plain_rows, unsaid, strict=True)]
        if all(band.get("key_words") == "" for band in d["bands"] if band["key_kind"] != "otherwise"):
            # "otherwise" of rows keyed by nothing but their words: its own words or name say it
            d["bands"] = [dict(band, key_words="") if band["key_kind"] == "otherwise" else band for band in d["bands"]]
        d["tag_columns"] = columns
        track, values = set_column(d["bands"]) if not d.get("columns") else (None, [])
        if track:  # "→ NPC's reaction to 1", "... to 2", ... on every row: one column headed by the track
            d["set_column"] = track
            d["bands"] = [dict(band, effects=[], set_to=value) for band, value in zip(d["bands"], values, strict=True)]
    if d.get("odds_as") and all(_name_only(band) for band in d.get("bands", ())):
        d["bands"] = []  # "Success", "Failure" with no chart: the chart the card points to names them
    if d["kind"] in ("lookup", "formula") and d.get("bands"):
        d["bands"] = [band for band in d["bands"] if not _nothing_else(band)]  # "otherwise: Neither"
        if all(_said_by_card(band) for band in d["bands"]):
            d["bands"] = []  # "Within", "Over", "Never": names of what the card's words say, and when
    if d["kind"] == "lookup" and not d.get("columns") and _listed(d):
        # no table: its words list the rows; the sentences of the others go on from them
        rows = [band["text"] for band in d["bands"] if len(str(band["text"]).split()) >= SENTENCE_WORDS]
        d["text"], d["bands"], d["key_words"] = ("\n" if "\n" in d["text"] else " ").join([d["text"], *rows]), [], ""
    if d.get("entries"):
        d["entries"] = [_plain_entry(entry) for entry in d["entries"]]
        if d["kind"] in ("priority", "procedure"):  # "priority: 2" on the second of a numbered list: its number
            d["entries"] = [dict(entry, values={name: value for name, value in entry["values"].items()
                                                if not (name in ORDINALS and value == number)})
                            for number, entry in enumerate(d["entries"], start=1)]
        seen: set[str] = set()
        for entry in d["entries"]:  # a card a list points to again and again is named at its first entry
            see = entry["values"].get("see")
            if isinstance(see, dict) and "expr" in see:
                if see["expr"] in seen:
                    entry["values"] = _without(entry["values"], "see")
                seen.add(see["expr"])
    if d.get("details") and has_words:
        prose = _prose(definition)
        d["details"] = {name: value for name, value in d["details"].items() if name in LINKS or name in prose}
    if d.get("said_in") and (d.get("details", {}).get("see") or {}).get("expr") == d["said_in"]["name"]:
        d["details"] = _without(d["details"], "see")  # "See X" says it
    if not (core and d.get("bands")):
        d = _pointers_in_words(d)
    forbids = d.get("details", {}).get("forbids")
    if d["kind"] == "condition" and isinstance(forbids, dict) and forbids.get("expr") == "all":
        d["details"] = dict(d["details"], forbids=dict(forbids, words="every roll"))  # "Forbids every roll"
    return d


def _bare(band: dict[str, Any]) -> bool:
    """Whether a row has nothing but its name, its key and its words: no data, effects or roll to go on to."""
    return not (band["values"] or band["effects"] or band.get("next"))


def _name_only(band: dict[str, Any]) -> bool:
    """Whether a row says nothing but its name: no key (the designer worded it "", or the words say when),
    no words, no data the sheet prints (a no is not printed: `success: no` on "Failure"), nothing else."""
    return (band.get("key_words") == "" and not (band["text"] or band.get("said") or band["effects"]
                                                  or band.get("next"))
            and all(value is False or value is None for value in band["values"].values()))


def _nothing_else(band: dict[str, Any]) -> bool:
    """Whether a lookup's row is the `otherwise` of the others that says nothing but its name ("Neither"): what
    the other rows do not say does not happen."""
    return band["key_kind"] == "otherwise" and _bare(band) and not (band["text"] or band.get("said"))


def _said_by_card(band: dict[str, Any]) -> bool:
    """Whether a lookup's row is a name for words its card says, and for when: no key of its own ("" where the
    designer worded it), its words said (`said`), nothing else."""
    return band.get("key_words") == "" and band["text"] is None and bool(band.get("said")) and _bare(band)


LISTED_ROWS = 3  # a lookup's words that name this many of its rows in order list them


def _listed(card: dict[str, Any]) -> bool:
    """Whether a lookup's words list its rows ("move up or down the rungs of the dice ladder: d4 → d6 → d8 → d10
    → d12"): LISTED_ROWS or more rows whose only words are a name the text holds, in the rows' order, the others
    sentences (which go on from the text) or said elsewhere. A row with data, effects or a roll to go on to has
    more to say than its name."""
    text = _said(card["text"] or "")
    at = listed = 0
    for band in card["bands"]:
        if not _bare(band):
            return False
        words = _said(band["text"] or (band["label"] if band["label"] != band["key"] else ""))
        if (band["text"] is None and band.get("said")) or len(words.split()) >= SENTENCE_WORDS:
            continue
        found = re.compile(rf"(?<!\w){re.escape(words)}(?!\w)").search(text, at) if words else None
        if found is None:
            return False
        at, listed = found.end(), listed + 1
    return listed >= LISTED_ROWS


def _pointers_in_words(card: dict[str, Any]) -> dict[str, Any]:
    """A card whose words name the card it points to (`see: contest`, outcomes or odds as for Contest) makes the
    name in its words the link (`text_links`: "they may turn your test into a **contest**", "roll a DEX
    **contest**", "you must roll a WIL **test**"), not a line of its own ("See Contest", "Outcomes and odds: see
    Contest", "Odds by DN: as for Test"): the reader meets the word before any pointer, and it names the card it
    means."""
    words = card["text"] or ""  # as printed: a name broken over two lines is not a link (`render.linked`)
    see = card.get("details", {}).get("see")
    pointers = [("outcomes_as", card.get("outcomes_as") or {}), ("odds_as", card.get("odds_as") or {}),
                ("see", {"name": see.get("expr"), "label": see.get("words")} if isinstance(see, dict) else {})]
    links: list[dict[str, Any]] = []
    for kind, target in pointers:
        named = target.get("label") or ""
        if named and not _holds(_said(card["label"]), _said(named), 1) and re.search(  # not "Group stealth"
                rf"(?<!\w){re.escape(named)}(?!\w)", words, flags=re.IGNORECASE):
            if all(link["name"] != target["name"] for link in links):
                links.append({"name": target["name"], "words": target["label"]})
            card = dict(card, details=_without(card["details"], "see")) if kind == "see" else _without(card, kind)
    return dict(card, text_links=links) if links else card


def _without(values: dict[str, Any], name: str) -> dict[str, Any]:
    """A card's, row's or entry's data without one datum (a `see:` said another way)."""
    return {key: value for key, value in values.items() if key != name}


TAG_COLUMN_ROWS = 3  # a table this long whose rows all carry the same data sets it in columns


def tag_columns(bands: list[dict[str, Any]]) -> list[str]:
    """The names of the data most of a table's rows carry (a lock's sequence and state; the pace of nine of
    Errant's twelve Pace rows), which the sheet sets as columns under one heading each rather than naming them
    on every row, a row without one leaving its cell empty; none for a datum that is a yes or no (a tag:
    "Advantage token") or a link (`see:`), nor in a short table."""
    names = list(dict.fromkeys(name for band in bands for name in band["values"]))

    def column(name: str) -> bool:
        values = [band["values"][name] for band in bands if name in band["values"]]
        return (len(values) >= TAG_COLUMN_ROWS and 2 * len(values) > len(bands) and name not in LINKS
                and not any(isinstance(value, bool) or value is None for value in values))
    return [name for name in names if column(name)] if len(bands) >= TAG_COLUMN_ROWS else []


def set_column(bands: list[dict[str, Any]]) -> tuple[str | None, list[str]]:
    """The name of the track or clock every one of a table's rows sets, each to its own value ("→ NPC's
    reaction to 1" on Hostile, "to 2" on Wary, ...), and those values, which the sheet sets as a column under
    that name rather than saying on every row; no name where a row does more or other, or where the table is
    short."""
    said = [re.fullmatch(r"(.+) to (\S+)", band["effects"][0]["words"])
            if len(band["effects"]) == 1 and band["effects"][0]["verb"] == "set" else None for band in bands]
    names = {found.group(1) if found else None for found in said}
    if len(bands) < TAG_COLUMN_ROWS or len(names) != 1 or None in names:
        return None, []
    return names.pop(), [found.group(2) for found in said if found]


def _printed(card: dict[str, Any]) -> str:
    """The words the sheet prints for a roll's machinery (its dice, flags, key, value, bands and chart), not the
    expressions behind them: a let is printed where these name it."""
    wording = card.get("wording", {})
    dice = [wording["roll"]] if "roll" in wording else [
        f"{r.get('when_words', '')} {r.get('words', r['roll'])}" for r in card.get("dice", ())]
    parts = [card["text"] or "", *dice, *(g["words"] for g in card.get("groups", ())),
             card.get("zero_dice_words") or "", *(f["words"] for f in card.get("flags", ())),
             *(r.get("when_words", "") for r in card.get("rerolls", ())),
             card.get("key_words") or "", card.get("value_words") or "", card.get("column_by_words") or "",
             (card.get("odds") or {}).get("axis") or "",
             *(json.dumps([b.get("key_words", b["key"]), b["label"], b["text"], b["values"], b.get("next_words")],
                          ensure_ascii=False) for b in card.get("bands", ())),
             json.dumps(card.get("details", {}), ensure_ascii=False)]
    return " ".join(parts)


_CONDITIONAL = re.compile(r"\b(if|when|whenever|unless|otherwise|on a)\b")


def _plain_band(band: dict[str, Any], worded: dict[str, str], options: dict[str, str]) -> dict[str, Any]:
    """A band's row, each thing said once: its words, else its name (the template shows a name that is not the
    key), else its key.

    - Words that are its name ("Hostile", from `- 1-3: hostile "Hostile"`) are said once, and words that start
      with its name as written, in bold or not ("**Calm seas** - If at least 1 Crew ...", "Success: disposition
      +1.", but not "failure, face a complication"), need no name before them (`label_said`): the name they
      start with is set in bold.
    - Words that say when the band applies ("If you meet or exceed the difficulty number, the test passes") are
      not keyed again in words ("when total is at least dn"), nor is an option its words hold ("slowly" on
      "Moving slowly"), unless the designer worded the key.
    - A band whose words are a sentence ("With advantage, roll an additional die and keep the higher result")
      does not list its data or its effects again ("additional dice: 1", "keep: higher"; "If you fail, lower the
      attribute one step", "→ spend 2 STR"), only a sentence of the document kept as data that they do not hold,
      and the roll it leads to (a link), unless they name it. A band said elsewhere on the sheet (`said`, by
      said_once) counts its words as its own.
    - A key the designer worded "" is an empty cell: the card's rule text says when each band applies.
    - An option's key is its name (`options`: "10’", not `ft10`), said once where the row's name beside it is
      the same (a row named by its option alone keeps its key: "Peregrinate")."""
    row = dict(band)
    if band["key_kind"] == "option" and options.get(band["key"]) and "key_words" not in band:
        row["key_words"] = options[band["key"]]
    words = band["text"] or band.get("said") or ""
    name = band["label"] if band["label"] != band["key"] else None
    if name and band["text"] and _said(band["text"]) == _said(name):
        row["text"] = None
    elif name and band["text"] and re.match(rf"(\*\*)?{re.escape(name)}\b", band["text"].strip()):
        row["label_said"] = True  # "**Calm seas** - If at least 1 Crew ...", "Success: disposition +1.": named
        if not band["text"].strip().startswith("**"):  # the name in bold, as a row's name is
            row["text"] = f"**{name}**{band['text'].strip()[len(name):]}"
    if len(words.split()) >= SAID_WORDS:
        # the document's sentences kept as data go on from its words ("... about ten seconds. PCs act first ...")
        kept = _unsaid_sentences(band["values"], _said(words)).values()
        row["text"] = " ".join([row["text"] or "", *kept]).strip() or None
        row["values"], row["effects"] = {}, []
        if band.get("next") and _holds(_said(words), _said(band["next_words"].removeprefix("roll ")), 1):
            row["next"] = None  # "If you win, roll your WIL to see what the surviving enemies do"
    shown = _said(f"{name or ''} {row['text'] or ''}")
    if worded.get(band["id"]) == "" or (band["id"] not in worded and (
            (band["key_kind"] == "option" and ((name and _said(options.get(band["key"], "")) == _said(name))
                                               or _holds(shown, _said(humanize(band["key"])), 1)))
            or (band["key_kind"] in ("when", "otherwise") and _CONDITIONAL.search(_said(words))))):
        row["key_words"] = ""
    return row


def _unsaid_sentences(values: dict[str, Any], words: str) -> dict[str, Any]:
    """The data of a row with words of its own that those words do not say: the document's sentences kept as
    data ("order: PCs act first and as a group ..." on the encounter round)."""
    return {name: value for name, value in values.items() if isinstance(value, str)
            and len(value.split()) >= SENTENCE_WORDS and not _holds(words, _said(value))}


LEAD_WORDS = 8  # a row's or entry's text that names it within its first words needs no name before it


def _leads(text: str, name: str) -> bool:
    """Whether `text` names `name` within its first words."""
    return _holds(_said(" ".join(text.split()[:LEAD_WORDS])), _said(name), 1)


def _plain_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry without data its words say, and without a name its words start with ("Game board – The stage
    where ...", not "Game board — Game board – The stage where ..."); `see_named` where its name or first words
    name the card it points to."""
    words = entry["text"] or entry.get("said") or ""
    said = _said(f"{entry['label'] or ''} {words}")
    values = {k: v for k, v in entry["values"].items() if k in LINKS} if len(words.split()) >= SAID_WORDS \
        else {k: v for k, v in entry["values"].items() if k in LINKS or not _tag_said(k, v, said)}
    label = entry["label"]
    if label and entry["text"] and _leads(entry["text"], label):
        label = None
    see = values.get("see")
    # the card it points to is the one its name or first words name ("Loyalty track This is used ...", "see:
    # Loyalty track"; "Attack", "see: Attack die"): the name is the link, not a "see:" after the words
    named = isinstance(see, dict) and bool(see.get("words")) and (
        (bool(entry["label"]) and _leads(str(see["words"]), entry["label"])) or _leads(words, str(see["words"])))
    children = [_plain_entry(child) for child in entry.get("children", [])]
    return dict(entry, label=label, values=values, children=children, see_named=named)


def shared_outcomes(definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rolls with the same outcomes (the same keys and words: `outcomes: contest_results`, or written out twice)
    and the same odds print the table and chart once: a later one names the first (`outcomes_as`). A roll whose
    chances at each value of its input are those of a chart drawn earlier at that value (`_chances`: a spell
    cast as a WIL test, by DN, and the test; a saving throw by threat, whose DV the threat is, and the check by
    DV) draws none: it keeps its table and names the first for its odds (`odds_as`). A `bands` card whose
    outcomes a roll prints keeps only its words. A table read off one die by its faces (`_read_off_the_die`)
    prints no odds: its rows say them."""
    first: dict[str, dict[str, Any]] = {}
    drawn: list[tuple[dict[str, tuple[str, ...]], dict[str, Any]]] = []
    grids: list[tuple[dict[str, Fraction], dict[str, Any]]] = []  # each line of a grid drawn, and its roll
    printed = {d["bands_from"] for d in definitions if d.get("bands_from")}
    out = []
    for definition in definitions:
        d = definition
        if d.get("bands") and d.get("odds") and not _one_outcome(d):
            odds = d["odds"]
            key = json.dumps([[(b["key"], b["label"], b["text"]) for b in d["bands"]], odds["axis"],
                              [row["outcomes"] for row in odds["rows"]]], ensure_ascii=False)
            if key in first and d["kind"] == "roll":
                d = dict(d, bands=[], odds=None, outcomes_as={"name": first[key]["name"], "label": first[key]["label"]})
            else:
                first.setdefault(key, d)
                read_off = _read_off_the_die(d)  # its rows say its odds: it shares its outcomes, not a chart
                chances = _chances(d) if not read_off else {}
                d = dict(d, odds=None) if read_off else d
                earlier = next((e for seen, e in drawn if chances.items() <= seen.items()), None) if chances else None
                wins = _success_chances(d) if chances and not earlier else {}
                earlier = earlier or next((g for line, g in grids if wins and wins.items() <= line.items()), None)
                if earlier:
                    d = dict(d, odds=None, odds_as={"name": earlier["name"], "label": earlier["label"],
                                                    "axis": odds["axis"]})
                elif chances:
                    drawn.append((chances, d))
                    grids += [(line, d) for line in _grid_lines(d)]
        elif d["kind"] == "bands" and d["name"] in printed:
            d = dict(d, entries=[])
        out.append(d)
    return out


def _read_off_the_die(definition: dict[str, Any]) -> bool:
    """Whether a table is read off one plain die by ranges of its faces ("1-3 Hostile" on your WIL die): its
    odds are the faces of each range over the die's, at any size of the die, which its rows say; the sheet
    draws no chart of them (a custom die's faces, modifiers, several dice or rows on conditions are charted)."""
    dice, bands = definition.get("dice") or [], definition.get("bands") or []
    if len(dice) != 1 or dice[0].get("when") or definition.get("rerolls") or definition.get("zero_dice"):
        return False
    terms = dice[0].get("terms") or []
    plain_die = (len(terms) == 1 and terms[0]["text"] == dice[0]["roll"] and terms[0]["count"] == 1
                 and not terms[0]["ops"] and terms[0]["die"] is None)
    return plain_die and bool(bands) and all(band["key_kind"] == "ranges" for band in bands)


CHART_ROWS = 7  # bars a chart draws at most: a longer range shows a few representative rows


def chart(odds: dict[str, Any] | None) -> dict[str, Any] | None:
    """The chart a card draws of its odds, or None where one would say nothing: a single row (the table gives
    its percentages), the same odds on every row, every row certain of one outcome (a lookup, not a chance), or
    every row even shares (a d6 table whose input moves which row a face reads, not how likely a row is).
    Neighbouring rows with the same odds are one bar ("3–7"); a range still longer than CHART_ROWS shows
    evenly spaced rows, its first and last among them."""
    if not odds or len(odds["rows"]) < 2:
        return None
    if odds.get("grid"):
        return grid_chart(odds)
    rows = odds["rows"]
    shares = [tuple((o["id"], o["probability"]) for o in row["outcomes"]) for row in rows]
    if len(set(shares)) == 1 or all(any(o["probability"] == "1" for o in row["outcomes"]) for row in rows):
        return None
    if all(len({o["probability"] for o in row["outcomes"] if o["probability"] != "0"}) == 1 for row in rows):
        return None  # every row a fair die's even shares: the table's die says it, and the bars would all look alike
    bars: list[dict[str, Any]] = []
    for row, share in zip(rows, shares, strict=True):
        if bars and bars[-1]["share"] == share:
            bars[-1]["last"] = row["value"]
        else:
            bars.append({"share": share, "first": row["value"], "last": row["value"], "outcomes": row["outcomes"]})
    bars = _representative(bars, CHART_ROWS)
    for bar in bars:
        bar["value"] = _span_text(bar["first"], bar["last"])
    return {"axis": odds["axis"], "fixed": odds["fixed"], "rows": bars}


GRID_ROWS = 5  # rows and columns a grid of the chance of success shows at most: a few representative values


def grid_chart(odds: dict[str, Any]) -> dict[str, Any]:
    """The grid a roll charted by two inputs draws (`chart:` with `columns:`): its chance of success at a few
    values of each. A row or a column the same certainty all along (DV below 0: always; DV 19 and up: never)
    is left out, the table's rows say it; neighbouring values with the same chances are one ("1–2"), and a
    longer run shows GRID_ROWS evenly spaced values, its first and last among them."""
    grid = odds["grid"]
    cells = [[Fraction(cell) for cell in row] for row in grid["cells"]]
    row_values = [row["value"] for row in odds["rows"]]
    kept_rows = [i for i, row in enumerate(cells) if len(set(row)) > 1 or row[0] not in (0, 1)]
    kept_columns = [j for j in range(len(grid["values"]))
                    if len({cells[i][j] for i in kept_rows}) > 1 or cells[kept_rows[0]][j] not in (0, 1)] \
        if kept_rows else []

    def runs(indices: list[int], values: list[Any], line: Callable[[int], tuple[Fraction, ...]]) -> list[list[Any]]:
        out: list[list[Any]] = []  # [first value, last value, index]
        for index in indices:
            if out and line(out[-1][2]) == line(index):
                out[-1][1] = values[index]
            else:
                out.append([values[index], values[index], index])
        return _representative(out, GRID_ROWS)

    rows = runs(kept_rows, row_values, lambda i: tuple(cells[i][j] for j in kept_columns))
    columns = runs(kept_columns, grid["values"], lambda j: tuple(cells[i][j] for i in kept_rows))
    return {"grid": True, "axis": odds["axis"], "columns_axis": grid["axis"], "outcomes": grid["outcomes"],
            "columns": [_span_text(first, last) for first, last, _ in columns],
            "rows": [{"value": _span_text(first, last), "cells": [percent_text(cells[i][j]) for _, _, j in columns]}
                     for first, last, i in rows]}


def _representative(items: list[Any], most: int) -> list[Any]:
    """At most `most` of a run, evenly spaced, its first and last among them."""
    if len(items) <= most:
        return items
    step = (len(items) - 1) / (most - 1)
    return [items[round(index * step)] for index in range(most)]


def _span_text(first: Any, last: Any) -> Any:
    """A run of whole numbers as a range, with minus signs ("−10–−1"); one value as itself."""
    return first if first == last or not isinstance(first, int) else f"{first}–{last}".replace("-", "−")


def percent_text(chance: Fraction) -> str:
    """A chance as a whole percent, as the bars print it; never 0% or 100% for what may or may not happen."""
    if 0 < chance < Fraction(1, 200):
        return "<1%"
    if Fraction(199, 200) <= chance < 1:
        return ">99%"
    return f"{round(chance * 100)}%"


def _success_chances(roll: dict[str, Any]) -> dict[str, Fraction]:
    """A roll's chance of success at each value of its chart's input, where each of its outcomes succeeds or
    fails (toned success or critical, or failure); none otherwise, or where it draws no chart."""
    tones = {band["id"]: band["tone"] for band in roll.get("bands") or []}
    if not tones or not set(tones.values()) <= {"success", "critical", "failure"} or chart(roll["odds"]) is None:
        return {}
    return {json.dumps(row["value"]): sum((Fraction(o["probability"]) for o in row["outcomes"]
                                           if tones.get(o["id"]) in ("success", "critical")), Fraction(0))
            for row in roll["odds"]["rows"]}


def _grid_lines(roll: dict[str, Any]) -> list[dict[str, Fraction]]:
    """Each row and each column of a roll's grid, as a roll charted along that line would give its chance of
    success at each value: a Stealth check by skill at DV 0 is the grid's row DV 0."""
    grid = (roll.get("odds") or {}).get("grid")
    if not grid:
        return []
    cells = [[Fraction(cell) for cell in row] for row in grid["cells"]]
    row_keys = [json.dumps(row["value"]) for row in roll["odds"]["rows"]]
    column_keys = [json.dumps(value) for value in grid["values"]]
    lines = [dict(zip(column_keys, row, strict=True)) for row in cells]
    lines += [{key: cells[i][j] for i, key in enumerate(row_keys)} for j in range(len(column_keys))]
    return lines


def _chances(roll: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """A roll's chances at each value of its chart's input ("d8", or 4), in the order of its outcomes, leaving out
    those that cannot happen; none where it draws no chart. Neither the input's name nor the outcomes' are in
    it: a WIL contest has the chances of a contest by "your die", and a saving throw by PHYS those of a PHYS
    check to force a door, where what the first outcome is called differs, not its chance."""
    if chart(roll["odds"]) is None:
        return {}
    return {json.dumps(row["value"]): tuple(o["probability"] for o in row["outcomes"] if o["probability"] != "0")
            for row in roll["odds"]["rows"]}


def within_section(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A section's cards without their pointers to one another, which a reader of the section has in front of
    them: a card whose words another card of the section says does not say "See <it>" ("See Morale" under
    Morale), and a `see:` to a card of the section is not printed ("→ Travel Turn Quick Reference" on a step
    of that section's procedure), unless it is the name of the entry that makes it (a link, not a word more)."""
    names = {card["name"] for card in cards}

    def far(values: dict[str, Any], named: bool = False) -> dict[str, Any]:
        see = values.get("see")
        if named or not (isinstance(see, dict) and see.get("expr") in names):
            return values
        return _without(values, "see")

    def entry(item: dict[str, Any]) -> dict[str, Any]:
        see = item["values"].get("see")
        named = isinstance(see, dict) and (see.get("words") == item["label"] or bool(item.get("see_named")))
        return dict(item, values=far(item["values"], named), children=[entry(c) for c in item.get("children", [])])

    out = []
    for card in cards:
        d = dict(card)
        if (d.get("said_in") or {}).get("name") in names:
            d["said_in"] = None
        if d.get("details"):
            d["details"] = far(d["details"])
        if d.get("entries"):
            d["entries"] = [entry(item) for item in d["entries"]]
        if d.get("bands"):
            d["bands"] = [dict(band, values=far(band["values"])) for band in d["bands"]]
        out.append(d)
    return out


def main_roll(definitions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The game's main roll, which opens the player's sheet: the first roll marked `core: yes`, else the first
    roll with outcomes."""
    rolls = [d for d in definitions if d["kind"] == "roll" and d["bands"]]
    return next((d for d in rolls if d.get("core")), rolls[0] if rolls else None)


def says_something(definition: dict[str, Any]) -> bool:
    """Whether a card gives a player anything to read beyond its title and a pointer to the card that says its
    words (`said_in`): not a rule whose text the document leaves out (`text: unknown`) with nothing else known,
    nor a clock with no size, words or levels (an effect's words name it where it is marked), nor a value or
    dice whose words the rule text says (`words: ""`), nor a lookup whose rows other cards say
    (`_rows_said_elsewhere`); a roll that points to another's outcomes and odds says
    that much ("Navigation Check: outcomes and odds: see Check"). The designer's proof shows every definition."""
    if definition["text"]:
        return True
    kind = definition["kind"]
    if kind in ("track", "clock"):
        return bool(definition["size"] or definition["levels"] or definition["markers"] or definition["on_full"]
                    or definition["full_effects"] or definition["marked_effects"])
    if kind in ("die", "deck"):
        return True
    if kind == "lookup" and _rows_said_elsewhere(definition):
        return False
    details = any(value is not None for value in definition.get("details", {}).values())
    unworded = ("dice",) if definition.get("wording", {}).get("roll") == "" else ()  # `roll: ""`: the text says them
    printed = (definition.get(name) for name in ("entries", "bands", "dice", "lets", "flags", "guards", "rerolls")
               if name not in unworded)
    key = definition.get("key") and definition.get("key_words", definition.get("key"))
    value = definition.get("value") and definition.get("value_words", definition.get("value"))
    return bool(details or any(printed) or key or value or definition.get("outcomes_as"))


def _rows_said_elsewhere(lookup: dict[str, Any]) -> bool:
    """Whether a lookup's rows are words other cards say, left with nothing but their names: Errant's "Take watch"
    by watchers, whose two rows are the Travel Turn action's own sentence, and whose third (1 watcher, added by
    an erratum) the document says nothing of. A row with words, data, effects or a roll to go on to says more."""
    bands = lookup.get("bands") or []
    return (not lookup.get("columns") and any(band.get("said") for band in bands)
            and all(band["text"] is None and _bare(band) for band in bands))
