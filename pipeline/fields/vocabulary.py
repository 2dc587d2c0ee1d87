"""One vocabulary per page (issue 21, item 5): the words a field's pictures write, each with one
sentence of definition, and the other names for the same thing a page must not use beside it.

A field's scenes write words of their own ("prefill", "block", "p99", "forward", "全归约") that
no plan chose; a reader meets them in a picture and must find them defined there or before.
`Field.vocabulary` lists them by language (`Term`). The page's glossary is the plan's, with each
field term the plan does not define appended and each other name of one it does added to its
entry as an alias (`page_glossary`), so the first use in prose or in a picture defines it (the
renderer reads the pictures' text too). `avoid` names another word for the same thing: the
validator refuses it in the reader's prose (`avoided_words`), and the prompt says so before the
call (`prompt_lines`), so "allreduce" and "all-reduce", "令牌" and "token" never share a page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.errors import Violation
from pipeline.plan.model import GlossaryEntry
from pipeline.plan.placeholders import PLACEHOLDER

# Latin words match whole words only (as the glossary matches them); CJK anywhere.
WORD_EDGE_BEFORE = r"(?<![A-Za-z0-9-])"
WORD_EDGE_AFTER = r"(?![A-Za-z0-9-])"


@dataclass(frozen=True)
class Term:
    """A word a field's pictures write: its definition (one sentence, <= 160 characters), the
    other forms it appears in, and other words for the same thing the page must not use."""

    term: str
    definition: str
    aliases: tuple[str, ...] = ()
    avoid: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.term, *self.aliases)


def page_glossary(entries: Sequence[GlossaryEntry], terms: Iterable[Term]) -> list[GlossaryEntry]:
    """The plan's glossary completed by the fields' terms: a term the plan already defines
    (under any of its names) lends its other names to that entry as aliases; one it does not
    is appended with the field's definition. The plan's entries keep their positions (their
    ids on the page)."""
    out = list(entries)
    taken = {name.casefold() for g in out for name in (g.term, *g.aliases)}
    for term in terms:
        names = [n for n in term.names if n.strip()]
        fresh = [n for n in names if n.casefold() not in taken]
        if not fresh:
            continue
        owner = _owner(out, {n.casefold() for n in names})
        if owner is None:
            out.append(GlossaryEntry(term=fresh[0], definition=term.definition,
                                     aliases=fresh[1:]))
        else:
            g = out[owner]
            out[owner] = g.model_copy(update={"aliases": [*g.aliases, *fresh]})
        taken |= {n.casefold() for n in fresh}
    return out


def _owner(entries: Sequence[GlossaryEntry], names: set[str]) -> int | None:
    """The plan entry that already defines one of `names`: the one whose term is among them
    first, else the first with such an alias."""
    for i, g in enumerate(entries):
        if g.term.casefold() in names:
            return i
    for i, g in enumerate(entries):
        if any(a.casefold() in names for a in g.aliases):
            return i
    return None


def avoided_words(prose: Iterable[tuple[str, str]], terms: Iterable[Term],
                  glossary: Sequence[GlossaryEntry]) -> list[Violation]:
    """Each other word for a field term that the reader's prose (or a glossary term) uses, once
    per word, at the first path that writes it."""
    out: list[Violation] = []
    texts = [*prose, *((f"glossary[{i}].term", g.term) for i, g in enumerate(glossary))]
    for term in terms:
        for word in term.avoid:
            pattern = _pattern(word)
            for path, text in texts:
                if pattern.search(PLACEHOLDER.sub(" ", text)):
                    out.append(Violation(path, (
                        f"'{word}' is another name for '{term.term}', the word this page's "
                        f"pictures write: use '{term.term}' (one word per thing)")))
                    break
    return out


def prompt_lines(terms: Iterable[Term]) -> list[str]:
    """The system prompt's lines: the words the pictures write (each once), then the words a
    page must not use, each with the word to write instead."""
    chosen: dict[str, Term] = {}
    for term in terms:
        chosen.setdefault(term.term.casefold(), term)
    out = ["- the pictures write: " + ", ".join(t.term for t in chosen.values())]
    out += [f"- never {' or '.join(repr(w) for w in t.avoid)}: write '{t.term}'"
            for t in chosen.values() if t.avoid]
    return out


def _pattern(word: str) -> re.Pattern[str]:
    if re.search(r"[A-Za-z0-9]", word):
        return re.compile(f"{WORD_EDGE_BEFORE}{re.escape(word)}{WORD_EDGE_AFTER}", re.IGNORECASE)
    return re.compile(re.escape(word))
