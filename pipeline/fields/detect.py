"""Which fields a folder's articles are about: a documented scorer over each field's terms.

Each field lists terms with weights (`Field.terms`: English words matched as whole words,
case-insensitive; Chinese terms as substrings). A field's score is its weighted term count per
thousand words of the corpus (two Chinese characters count as a word). The page is drawn with every
field whose score is at least `MIN_SCORE` and at least `RELATIVE_FLOOR` of the best field's, so
a training folder that mentions inference once is not drawn as a serving page; the general field
is always offered, and a folder about no registered field gets only it. `page.toml`'s `field`
overrides the detection. `tujie fields --json SRC` shows the scores.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from pipeline.artifacts.sources import Corpus

MIN_SCORE = 4.0  # weighted term hits per 1,000 words
RELATIVE_FLOOR = 0.3  # of the best field's score
GENERAL = "general"
CJK = re.compile(r"[\u3400-\u9fff]")
CJK_CHARS_PER_WORD = 2
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]*")


@dataclass(frozen=True)
class Detection:
    """The scores of every field with terms, and the fields chosen from them."""

    scores: Mapping[str, float]
    chosen: tuple[str, ...]
    words: int
    overridden: bool = False


def corpus_words(corpus: Corpus) -> tuple[str, int]:
    text = "\n".join(p.text for s in corpus.sources for p in s.paragraphs)
    # about two Chinese characters make a word
    return text, len(CJK.findall(text)) // CJK_CHARS_PER_WORD + len(LATIN_WORD.findall(text))


@cache
def _pattern(term: str) -> re.Pattern[str]:
    if CJK.search(term):
        return re.compile(re.escape(term))
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(term) + r"(?![A-Za-z0-9])", re.IGNORECASE)


def score(text: str, words: int, terms: Mapping[str, float]) -> float:
    hits = sum(weight * len(_pattern(term).findall(text)) for term, weight in terms.items())
    return round(hits * 1000 / max(words, 1), 2)


def detect(
    corpus: Corpus, terms_by_field: Mapping[str, Mapping[str, float]], order: Iterable[str]
) -> Detection:
    """Score every field that has terms and choose the page's fields (general always last)."""
    text, words = corpus_words(corpus)
    scores = {fid: score(text, words, terms) for fid, terms in terms_by_field.items() if terms}
    best = max(scores.values(), default=0.0)
    chosen = [
        fid
        for fid in order
        if fid in scores and scores[fid] >= MIN_SCORE and scores[fid] >= RELATIVE_FLOOR * best
    ]
    return Detection(scores, (*chosen, GENERAL), words)
