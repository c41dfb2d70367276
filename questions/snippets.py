"""Search snippets cut in Python, the same on both engines.

A snippet is the stretch of an item's text around the query's words, with each matched
word between highlight markers. The engines still decide *what* matches (PostgreSQL's
full-text search, SQLite's FTS5); this module only decides which words of a hit's text to
quote and mark. Doing it here rather than with ``ts_headline`` or FTS5's ``snippet()``
saves PostgreSQL re-parsing twenty texts per results page (about 4 ms of a computed search
at 300 questions) and makes the two engines quote the same stretch.

Words are compared by their Snowball English stem (PyStemmer), the algorithm behind
PostgreSQL's ``english_stem`` dictionary, so "caches", "cached" and "cache" mark each
other as they match each other in PostgreSQL. No Django in here: plain functions over
strings, tested on their own (``tests/questions/test_snippets.py``).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable

import Stemmer

_WORD = re.compile(r"\w+", re.UNICODE)
_STEMMER = Stemmer.Stemmer("english")
SCAN_CHARS = 50_000  # a text longer than this is searched for its words in this much only
LEAD_TOKENS = 4  # words shown before the first marked word of the window
MAX_WINDOWS = 64  # windows tried (one per match, in order): the richest is kept
WORD_CHARS = 7  # a word and the space after it, on average in the content: sizes a stretch


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of a lower-cased word (the vocabulary is bounded, so the
    cache settles to a dictionary look-up)."""
    return str(_STEMMER.stemWord(word))


def stems(words: Iterable[str]) -> frozenset[str]:
    """The stems of the query's words, as ``cut`` compares them."""
    return frozenset(stem(w.lower()) for w in words if w)


@functools.lru_cache(maxsize=1024)
def _candidates(wanted: frozenset[str]) -> re.Pattern[str]:
    """Words that may stem to a wanted stem: a stem keeps the start of its word (Snowball
    rewrites suffixes only, "capability" to "capabl", "fly" to "fli"), so a word is a
    candidate when it starts with the stem's first three letters, and ``stem`` decides."""
    heads = sorted({w[:3] for w in wanted if w}, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, heads)) + r")\w*", re.IGNORECASE)


def cut(
    text: str, wanted: frozenset[str], *, start: str, stop: str, tokens: int = 28
) -> str | None:
    """The ``tokens``-word stretch of ``text`` holding the most distinct ``wanted`` stems,
    each matched word wrapped in ``start``/``stop``, with "…" where text was left out;
    None when no word of the text is wanted (the caller then tries other text).

    The wanted words are found by one regular-expression scan (``_candidates``), so a long
    answer costs a scan rather than a stem per word; only the chosen stretch is split into
    words."""
    if not text or not wanted:
        return None
    found = [
        (m.start(), key)
        for m in _candidates(wanted).finditer(text, 0, min(len(text), SCAN_CHARS))
        if (key := stem(m.group().lower())) in wanted
    ]
    if not found:
        return None
    reach = tokens * WORD_CHARS
    anchor, best = found[0][0], 0
    for n, (pos, _) in enumerate(found[:MAX_WINDOWS]):  # the richest stretch, first if tied
        count = len({k for p, k in found[n : n + tokens] if p < pos + reach})
        if count > best:
            anchor, best = pos, count
            if count == len(wanted):
                break
    # the stretch: LEAD_TOKENS words before the anchor, then up to ``tokens`` in all
    lead_from = max(0, anchor - LEAD_TOKENS * WORD_CHARS * 2)
    before = list(_WORD.finditer(text, lead_from, anchor))
    if lead_from > 0:
        before = before[1:]  # the first may be the tail of a word
    if len(before) >= LEAD_TOKENS:
        first = before[-LEAD_TOKENS].start()
    elif lead_from == 0:
        first = 0
    else:
        first = before[0].start() if before else anchor
    words = list(itertools.islice(_WORD.finditer(text, first), tokens))
    out: list[str] = ["…"] if _WORD.search(text, 0, first) else []
    pos = words[0].start()
    for m in words:
        out.append(text[pos : m.start()])
        word = m.group()
        out.append(f"{start}{word}{stop}" if stem(word.lower()) in wanted else word)
        pos = m.end()
    if _WORD.search(text, pos):
        out.append(" …")
    return "".join(out)


def opening(text: str, *, tokens: int = 28) -> str:
    """The first ``tokens`` words of ``text``, unmarked: the snippet of a hit whose words
    are only in its title (which the hit shows anyway) or in text the viewer may not read."""
    spans = [m.span() for m in itertools.islice(_WORD.finditer(text or ""), tokens + 1)]
    if len(spans) <= tokens:
        return text or ""
    return text[: spans[tokens - 1][1]] + " …"


def snippet(
    public: str,
    guarded: str | None,
    wanted: frozenset[str],
    *,
    start: str,
    stop: str,
    tokens: int = 28,
) -> str:
    """A hit's snippet: from its public text when that holds a wanted word, else from its
    guarded text when the caller passes it (only for a viewer who may read it) and it holds
    one, else the opening of the public text. Guarded text is never quoted unless given."""
    for text in (public, guarded):
        found = cut(text or "", wanted, start=start, stop=stop, tokens=tokens)
        if found is not None:
            return found
    return opening(public, tokens=tokens)
