"""Search snippets cut in Python, the same on both engines.

A snippet is the stretch of an item's text around the query's words, with each matched
word between highlight markers. The engines still decide *what* matches (PostgreSQL's
full-text search, SQLite's FTS5); this module only decides which words of a hit's text to
quote and mark. Doing it here rather than with ``ts_headline`` or FTS5's ``snippet()``
saves PostgreSQL re-parsing twenty texts per results page (about 4 ms of a computed search
at 300 questions) and makes the two engines quote the same stretch.

Words are compared by their Snowball English stem (PyStemmer), the algorithm behind
PostgreSQL's ``english_stem`` dictionary, so "caches", "cached" and "cache" mark each
other as they match each other in PostgreSQL. A word is letters and digits: "kv_cache"
is two words, as both engines' parsers read it. SQLite's FTS5 stems with the original
Porter algorithm, so there a few words that match ("general" for "generate") are left
unmarked. No Django in here: plain functions over strings, tested on their own
(``tests/questions/test_snippets.py``).
"""

from __future__ import annotations

import bisect
import functools
import heapq
import itertools
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import Stemmer

_WORD = re.compile(r"[^\W_]+")  # letters and digits; "_" separates, as in the engines
_LOCAL = threading.local()  # PyStemmer's stemmers are not thread-safe: one per thread
SCAN_CHARS = 200_000  # a text longer than this is searched for its words in this much only
LEAD_TOKENS = 4  # words shown before the first marked word of the stretch
MAX_FOUND = 512  # matched words read from a text (in order) to pick a stretch from
MAX_WINDOWS = 48  # stretches tried (see ``cut``)
MAX_WORD_CHARS = 40  # a longer word (a hash, a minified line) is quoted cut, never stemmed
MAX_GAP_CHARS = 12  # the text between two quoted words, at most
REGION_SLACK = 160  # characters read past a stretch to re-quote it without Markdown
REGION_MAX = 2_000  # and at most this many in all, however long the gaps between its words
LOOK_BACK = 300  # how far back a word is checked for an open link address or directive

# Markdown and directive syntax, which the index holds as authors wrote it: a snippet
# quotes the words, not "[constrained decoding](/concepts/…" or "*worse*" (``plain``).
# Every repeat is possessive or cannot start inside a run of its own character, so a run
# of "[", "*" or "](" costs a linear scan, not a quadratic one (benchmarks/snippet_scaling.py
# times them; test_snippets checks what they quote).
_LINK = re.compile(r"!?\[([^\[\]\n]*+)\]\([^()\s]*+\)")
_MARKUP = re.compile(
    r"(?P<directive>\{\{[^{}]*+(?:\}\}|\Z))"  # a {{calc}} directive, or its start
    r"|(?P<gap>\]\([^()\s]*+\)"  # the tail of a link whose text the stretch opened inside
    r"|<!--(?:(?!-->).)*+(?:-->|\Z))"  # an HTML comment (a "<!-- quoted -->" marker)
    # *emphasis* and **strong** against a word on one side only: "2**10", "4*8" and
    # "a * b" stay; _emphasis_ likewise, single, so "kv_cache", "__init__", "torch._C" stay
    r"|(?<![\w*])\*{1,3}+(?=[^\W_])|(?<=[^\W_])\*{1,3}+(?![\w*])"
    r"|(?<![\w.])_(?=[^\W_])|(?<=[^\W_])_(?![\w.])"
    r"|`++"
    r"|(?<=\n)[ \t]*+(?:[-+*]|\d+[.)]|#{1,6}|>)[ \t]++",  # list items, headings, quotes
    re.DOTALL,
)
_SYNTAX = re.compile(r"[\[\]*_`{<#>]|\n[ \t]*(?:[-+]|\d+[.)])[ \t]")
_ADDRESS_END = re.compile(r"[)\s]")


def _unmark(m: re.Match[str]) -> str:
    if m.group("directive") is not None:
        return "…"  # an inline figure the page computes: say something was there
    return " " if m.group("gap") is not None else ""


def _link_text(m: re.Match[str]) -> str:
    after = m.string[m.end() : m.end() + 1]
    return m.group(1) + (" " if after.isalnum() or after == "[" else "")


def plain(text: str) -> str:
    """``text`` without its Markdown and directive syntax: links keep their text, markers
    and directives go, every word stays where the text had it."""
    return _MARKUP.sub(_unmark, _LINK.sub(_link_text, text))


def _in_syntax(text: str, at: int) -> bool:
    """Whether the word at ``at`` sits in a link's address, a directive or a comment, all of
    which ``plain`` drops: a stretch is never chosen for such a word."""
    lo = max(0, at - LOOK_BACK)
    k = text.rfind("](", lo, at)
    if k >= 0 and not _ADDRESS_END.search(text, k + 2, at):
        return True
    k = text.rfind("{{", lo, at)
    if k >= 0 and text.find("}}", k, at) < 0:
        return True
    k = text.rfind("<!--", lo, at)
    return k >= 0 and text.find("-->", k, at) < 0


def _region_end(text: str, first: int, last: int) -> int:
    """Where the plain re-quote of a stretch stops reading: ``REGION_SLACK`` past its last
    word, at most ``REGION_MAX`` from its first, never inside a word."""
    end = min(last + REGION_SLACK, first + REGION_MAX, len(text))
    m = _WORD.match(text, end) if end < len(text) and end > 0 and text[end - 1].isalnum() else None
    return m.end() if m is not None else end


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of a lower-cased word (the vocabulary is bounded, so the
    cache settles to a dictionary look-up)."""
    return str(_stemmer().stemWord(word))


def _stemmer() -> Stemmer.Stemmer:
    """This thread's English stemmer (PyStemmer documents its ``Stemmer`` objects as not
    safe to share between threads; a threaded server calls ``stem`` from many)."""
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        stemmer = _LOCAL.stemmer = Stemmer.Stemmer("english")
    return stemmer


@dataclass(frozen=True)
class Query:
    """What a snippet marks: the stems of the query's words, and the first letters a text
    word must start with to be worth stemming (``heads``)."""

    stems: frozenset[str]
    heads: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.stems)


def query(words: Iterable[str]) -> Query:
    """The query's words as ``cut`` looks for them. A stem keeps the start of its word
    except where Snowball turns a final "y" into "i" or a word is on its exception list
    ("fly" and "flies" stem to "fli", "dying" to "die", "skies" to "sky"), so the heads
    are the first three letters of each word as typed *and* of its stem: every form that
    shares a stem with a query word starts with one of them, with each "i" also read as "y"
    ("tries" finds "try")."""
    typed = [part.lower() for w in words for part in _WORD.findall(w or "")]
    stemmed = {stem(w) for w in typed}
    heads = set()
    for head in {w[:3] for w in typed} | {s[:3] for s in stemmed if s}:
        heads |= _spellings(head)
    for s in stemmed:  # Snowball's exceptions: "dying", "lying", "tying"
        if len(s) == 3 and s.endswith("ie"):
            heads.add(s[0] + "yi")
    return Query(frozenset(stemmed), tuple(sorted(heads, key=len, reverse=True)))


def _spellings(head: str) -> set[str]:
    """``head`` with each "i" also as "y": "tri" also as "try" ("tries" and "try" share a
    stem), "ani" also as "any"."""
    out = {""}
    for ch in head:
        out = {o + c for o in out for c in ((ch, "y") if ch == "i" else (ch,))}
    return out


@functools.lru_cache(maxsize=1024)
def _candidates(heads: tuple[str, ...]) -> re.Pattern[str]:
    # a word (no letter or digit just before it) that starts with a head
    alternatives = "|".join(map(re.escape, heads))
    return re.compile(r"(?<![^\W_])(?:" + alternatives + r")[^\W_]*", re.IGNORECASE)


def _key(word: str) -> str:
    return stem(word.lower()) if len(word) <= MAX_WORD_CHARS else ""


def _found(text: str, q: Query) -> Iterator[tuple[int, int, str]]:
    """(start, end, stem) of each word of ``text`` that ``q`` wants, in order.

    Candidates are found with ``str.find`` of each head in the lower-cased text (a
    regular expression with a look-behind costs about 30 times as much on a long answer);
    a text whose lower-casing changes its length (a few Unicode letters) takes the
    regular expression instead."""
    end = min(len(text), SCAN_CHARS)
    lowered = text[:end].lower()
    if len(lowered) != end:
        for m in _candidates(q.heads).finditer(text, 0, end):
            key = _key(m.group())
            if key in q.stems:
                yield m.start(), m.end(), key
        return
    per_head = [_finds(lowered, head) for head in q.heads]
    last = -1
    for at in heapq.merge(*per_head):
        if at == last or (at > 0 and text[at - 1].isalnum()):
            continue  # found by two heads, or inside a word
        last = at
        m = _WORD.match(text, at, end)
        if m is not None and (key := _key(m.group())) in q.stems:
            yield at, m.end(), key


def _finds(lowered: str, head: str) -> Iterator[int]:
    at = lowered.find(head)
    while at >= 0:
        yield at
        at = lowered.find(head, at + 1)


def cut(text: str, q: Query, *, start: str, stop: str, tokens: int = 28) -> str | None:
    """The ``tokens``-word stretch of ``text`` showing the most distinct wanted words,
    each wrapped in ``start``/``stop``, with "…" where text was left out; None when no
    word of the text is wanted (the caller then tries other text).

    One regular-expression scan finds the wanted words (``_candidates``; the first
    ``MAX_FOUND``), so a long answer costs a scan rather than a stem per word. A stretch
    opens ``LEAD_TOKENS`` words before the first match, and before each match that follows
    a match of another word (a word repeated a hundred times cannot hide a rarer one after
    it); each is scored on the distinct words it will show, and the first best is kept."""
    if not text or not q:
        return None
    found = list(itertools.islice(_found(text, q), MAX_FOUND))
    if "](" in text or "{{" in text or "<!--" in text:
        found = [f for f in found if not _in_syntax(text, f[0])]
    if not found:
        return None
    starts = [s for s, _, _ in found]
    present = len({k for _, _, k in found})
    lead = min(LEAD_TOKENS, max(0, tokens - 1) // 2)
    anchors = [at for i, (at, _, k) in enumerate(found) if i == 0 or found[i - 1][2] != k]
    best: tuple[int, list[re.Match[str]]] = (-1, [])
    for at in anchors[:MAX_WINDOWS]:
        opens = _opening_before(text, at, lead)
        words = list(itertools.islice(_WORD.finditer(text, opens), tokens))
        lo, hi = bisect.bisect_left(starts, opens), bisect.bisect_left(starts, words[-1].end())
        count = len({found[j][2] for j in range(lo, hi)})
        if count > best[0]:
            best = (count, words)
            if count == present:
                break
    words = best[1]
    region_end = _region_end(text, words[0].start(), words[-1].end())
    region = text[words[0].start() : region_end]
    if not _SYNTAX.search(region):
        return _quote(text, words, set(starts), start=start, stop=stop)
    # Quote the stretch again from its plain text: the syntax's words (a link's address)
    # must not take a quoted word's place, and its marks must not show.
    clean = plain(region)
    shown = list(itertools.islice(_WORD.finditer(clean), tokens))
    if not shown:
        return _quote(text, words, set(starts), start=start, stop=stop)
    marked = {s for s, _, _ in _found(clean, q)}
    before = bool(_WORD.search(text, 0, words[0].start()))
    after = bool(_WORD.search(clean, shown[-1].end())) or bool(_WORD.search(text, region_end))
    return _quote(clean, shown, marked, start=start, stop=stop, before=before, after=after)


def _opening_before(text: str, at: int, lead: int) -> int:
    """Where a stretch opens that shows ``lead`` words before the word at ``at``."""
    if lead == 0:
        return at
    look_from = max(0, at - lead * (MAX_WORD_CHARS + MAX_GAP_CHARS))
    before = list(_WORD.finditer(text, look_from, at))
    if look_from > 0:
        before = before[1:]  # the first may be the tail of a word
    if len(before) >= lead:
        return before[-lead].start()
    if look_from == 0:
        return 0
    return before[0].start() if before else at


def _quote(
    text: str,
    words: list[re.Match[str]],
    marked: set[int],
    *,
    start: str,
    stop: str,
    before: bool | None = None,
    after: bool | None = None,
) -> str:
    """``words`` (consecutive words of ``text``) as quoted text, each word starting at a
    position in ``marked`` wrapped in ``start``/``stop``; "…" where ``text`` has words
    before or after them (or where ``before``/``after`` say the text they came from has)."""
    if before is None:
        before = bool(_WORD.search(text, 0, words[0].start()))
    out: list[str] = ["…"] if before else []
    pos = words[0].start()
    for m in words:
        gap = text[pos : m.start()]
        out.append(gap if len(gap) <= MAX_GAP_CHARS else gap[:MAX_GAP_CHARS] + " ")
        word = m.group()
        shown = word if len(word) <= MAX_WORD_CHARS else word[:MAX_WORD_CHARS] + "…"
        out.append(f"{start}{shown}{stop}" if m.start() in marked else shown)
        pos = m.end()
    if after if after is not None else _WORD.search(text, pos):
        out.append(" …")
    return "".join(out)


def opening(text: str, *, tokens: int = 28) -> str:
    """The first ``tokens`` words of ``text``, unmarked: the snippet of a hit whose words
    are only in its title (which the hit shows anyway) or in text the viewer may not read."""
    text = text or ""
    if not _WORD.search(text):
        return text[: MAX_WORD_CHARS * 2]
    words = list(itertools.islice(_WORD.finditer(text), tokens))
    region_end = _region_end(text, 0, words[-1].end())
    if _SYNTAX.search("\n" + text[:region_end]):  # as ``cut``: the words, not the syntax
        clean = plain("\n" + text[:region_end])[1:]  # the text starts a line
        shown = list(itertools.islice(_WORD.finditer(clean), tokens))
        if shown:
            after = bool(_WORD.search(clean, shown[-1].end()) or _WORD.search(text, region_end))
            return _quote(clean, shown, set(), start="", stop="", after=after)
    return _quote(text, words, set(), start="", stop="")


def snippet(
    public: str,
    guarded: str | None,
    q: Query,
    *,
    start: str,
    stop: str,
    tokens: int = 28,
) -> str:
    """A hit's snippet: from its public text when that holds a wanted word, else from its
    guarded text when the caller passes it (only for a viewer who may read it) and it holds
    one, else the opening of the public text. Guarded text is never quoted unless given."""
    for text in (public, guarded):
        found = cut(text or "", q, start=start, stop=stop, tokens=tokens)
        if found is not None:
            return found
    return opening(public, tokens=tokens)
