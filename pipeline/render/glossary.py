"""First-use definitions (P1): every glossary term is marked where it first appears on the page.

The renderer feeds the page's prose through one `Glossary` in reading order; the first occurrence
of a term (or an alias) becomes a focusable `<dfn>` and its definition is queued as a note for the
block it appeared in. Text is escaped here, so the result is safe HTML. `Annotator` is what the
page sections use: plan text in, `Prose` (the HTML and the notes it introduced) out.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from pipeline.plan.model import GlossaryEntry, Plan

# Latin terms only match whole words ("KV" must not match inside "KVS"); CJK text has no spaces,
# so a term there matches anywhere. The look-arounds only refuse ASCII letters and digits.
WORD_EDGE_BEFORE = r"(?<![A-Za-z0-9])"
WORD_EDGE_AFTER = r"(?![A-Za-z0-9])"
# A drawing's visible words: each <text> element's content, nested <tspan>s included.
TEXT_ELEMENT = re.compile(r"<text\b[^>]*>(.*?)</text>", re.DOTALL)


def term_id(index: int) -> str:
    """The stable id of a glossary entry's defining instance (its position in the plan)."""
    return f"term-{index + 1}"


def note_id(index: int) -> str:
    """The id of the first-use note holding the entry's definition: the page's only copy of it
    (the <dfn>, the pop-up and the footer's term list all point here)."""
    return f"note-{index + 1}"


@dataclass
class Glossary:
    """Tracks which terms the page has defined so far, in reading order."""

    entries: Sequence[GlossaryEntry]
    defined: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        names: list[tuple[str, int]] = []
        for i, entry in enumerate(self.entries):
            for name in [entry.term, *entry.aliases]:
                if name.strip():
                    names.append((name, i))
        # Longest first, so "KV cache" wins over "KV" at the same position.
        names.sort(key=lambda item: (-len(item[0]), item[1]))
        self._index = {name.casefold(): i for name, i in reversed(names)}
        alternatives = "|".join(re.escape(name) for name, _ in names)
        self._pattern = (
            re.compile(f"{WORD_EDGE_BEFORE}(?:{alternatives}){WORD_EDGE_AFTER}", re.IGNORECASE)
            if names
            else None
        )

    def index_of(self, term: str) -> int | None:
        return self._index.get(term.casefold())

    def annotate(self, text: str) -> tuple[Markup, list[int]]:
        """Escape `text`, wrapping each term's first use on the page in a `<dfn>`.

        Returns the HTML and the indexes of the entries defined by this text (for its notes).
        """
        if self._pattern is None:
            return Markup(escape(text)), []
        out: list[str] = []
        new: list[int] = []
        pos = 0
        for match in self._pattern.finditer(text):
            index = self._index[match.group(0).casefold()]
            if index in self.defined:
                continue
            self.defined.append(index)
            new.append(index)
            out.append(str(escape(text[pos : match.start()])))
            out.append(self._dfn(index, match.group(0)))
            pos = match.end()
        out.append(str(escape(text[pos:])))
        return Markup("".join(out)), new

    def force(self, terms: Sequence[str]) -> list[int]:
        """Define `terms` now if the page has not yet (a card introduces a term its prose
        never spells out); returns the indexes newly defined."""
        new = []
        for term in terms:
            index = self.index_of(term)
            if index is not None and index not in self.defined:
                self.defined.append(index)
                new.append(index)
        return new

    def found(self, text: str) -> list[int]:
        """Define every term `text` uses that the page has not yet (text that cannot carry a
        <dfn>, such as a picture's words); returns the indexes newly defined."""
        if self._pattern is None:
            return []
        return self.force([match.group(0) for match in self._pattern.finditer(text)])

    def _dfn(self, index: int, shown: str) -> str:
        # The term's name and definition live in the note; the <dfn> only points at it.
        return (
            f'<dfn class="term" id="{term_id(index)}" tabindex="0" '
            f'aria-describedby="{note_id(index)}">{escape(shown)}</dfn>'
        )


@dataclass(frozen=True)
class Note:
    """A first-use definition shown right after the block that introduced the term."""

    id: str
    note_id: str
    term: str
    definition: str
    marked: bool  # False when the term never appears in prose (the card's notes define it)


@dataclass
class Prose:
    """A piece of plan text, escaped and glossary-annotated, with the notes it introduced."""

    html: Markup
    notes: list[Note] = field(default_factory=list)


class Annotator:
    """Feeds plan text and the pictures' words through the page's one glossary, in reading
    order. `entries` is the page's glossary (`pipeline.fields.page_glossary`: the plan's, then
    the words its fields' pictures write); default the plan's own."""

    def __init__(self, plan: Plan, entries: Sequence[GlossaryEntry] | None = None) -> None:
        self.plan = plan
        self.entries = list(plan.glossary if entries is None else entries)
        self.glossary = Glossary(self.entries)

    def prose(self, text: str) -> Prose:
        html, new = self.glossary.annotate(text)
        return Prose(html, self._notes(new, marked=True))

    def force(self, terms: Sequence[str]) -> list[Note]:
        return self._notes(self.glossary.force(terms), marked=False)

    def picture(self, svg: str) -> list[Note]:
        """The terms a drawing writes that the page has not defined yet, defined now: a reader
        meets "p99" or "block" in a picture before any sentence says it (panel words are SVG
        text and cannot carry a <dfn>)."""
        return self.words(svg_text(svg))

    def words(self, text: str) -> list[Note]:
        """The same for plain text that carries no <dfn> (the cast's roles in the hand font)."""
        return self._notes(self.glossary.found(text), marked=False)

    def index(self) -> list[tuple[str, str, str | None]]:
        """The footer's term list: (term, the note defining it, or None with the definition
        when the page never used the term). A field's word the page never used is left out:
        the plan did not choose it."""
        defined = set(self.glossary.defined)
        planned = len(self.plan.glossary)
        return [
            (g.term, note_id(i), None) if i in defined else (g.term, "", g.definition)
            for i, g in enumerate(self.entries)
            if i in defined or i < planned
        ]

    def _notes(self, indexes: Sequence[int], *, marked: bool) -> list[Note]:
        return [
            Note(term_id(i), note_id(i), self.entries[i].term, self.entries[i].definition, marked)
            for i in indexes
        ]


def svg_text(svg: str) -> str:
    """The words an SVG drawing shows (its <text> and <tspan> content, one line per element;
    the <title> and <desc> are for screen readers and say the same)."""
    lines = [html.unescape(re.sub(r"<[^>]+>", "", m)) for m in TEXT_ELEMENT.findall(svg)]
    return "\n".join(line for line in lines if line.strip())
