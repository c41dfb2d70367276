"""Search over tracks, questions, concepts, guides, guide items and lessons: one interface,
two engines.

``run(text, levels=..., filters=..., page=...)`` answers one results page: the hits of that
page (20), the honest total and a count per kind, and a correction when the query looks
misspelt. ``search(text, levels=...)`` is the same ranking as a plain list (the API).

Engines. On PostgreSQL the query runs over the stored, GIN-indexed
``questions_search_document`` (migration ``0006``: tsvectors weighted title A, public text
B, guarded text C; migration ``0015`` adds a stored title vector); on SQLite over the FTS5
table ``questions_search_index`` (migration ``0003``), scored by ``bm25`` with column
weights (title 10, public 4, guarded 2). Both are kept current by triggers on the content
tables, so saves and imports need no extra step.

What a hit shows comes from the *catalogue* (``catalogue()``): every published item with
its access level, title, URL, context and filter fields, built once per process for each
content version. A match is kept only if its item is there at the access level the index
holds (that is what published means to search), so neither the match nor the page needs
a query of the content tables. A search on PostgreSQL is then three statements: the
matches (unranked, with whether the title holds the query), ``ts_rank_cd`` for the
matches that decide the page (``_rank``: the title matches alone when there are enough of
them to fill it), and the page's texts, from which ``questions.snippets`` cuts the snippets
(the same code on both engines).

Ranking, the same on both engines (``_order``): an item whose *title* holds the query
comes first, closest title first (the KV cache concept, titled "The KV cache", is an exact
title match for "kv cache"; a question titled "How big is the KV cache for ..." holds it
too, with more besides); the engine's weighted rank orders the rest and breaks ties.

Spelling (``_plan``), from a vocabulary of the words in published titles and public text
(never guarded text: a suggestion must not quote a locked answer), kept per process for
each content version: adjacent query words whose join is a known word also match it
("paged attention" finds PagedAttention), an unknown word that splits into two known words
also matches the pair ("kvcache" finds KV cache; "kv-cache" is two words already), and an
unknown word close to a known one by edit distance gives a correction: when the query
finds nothing the corrected query is run instead ("Showing results for"), when it finds
little the page offers "Did you mean". On PostgreSQL with ``pg_trgm`` (migration ``0014``
creates it where the role may), a query that still finds nothing falls back to trigram
similarity of titles; without the extension that step is skipped and logged once.

Gating: every item's text is split into *public* text (titles, summaries, a question's
scenario, a lesson's headings) and *guarded* text (a question's answer, a concept's or a
lesson's body). Guarded text is matched and snippeted only for items whose access level is
in ``levels``, the levels the caller's access policy lets this viewer read (content knows
nothing of readers, so the policy's answer comes in as an argument); for the rest the
query runs against public text alone and snippets are cut from public text alone, so a
locked answer's words can neither find an item nor appear in a result.
"""

from __future__ import annotations

import functools
import hashlib
import html
import logging
import math
import re
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache, caches
from django.db import connection
from django.utils.safestring import SafeString, mark_safe

from inferview.prepared import prepared_cursor

from . import content_version, snippets
from .models import Concept, Difficulty, Guide, GuideItem, Kind, Lesson, Question, Track
from .similarity import STOP_WORDS

logger = logging.getLogger(__name__)

# Private-use code points mark highlights inside the engines, then become <mark> after
# the text is escaped, so only our own tags ever reach the page.
HL_START, HL_END = "\ue000", "\ue001"
TYPES = ("question", "concept", "guideitem", "lesson", "guide", "track")
TYPE_LABELS = {
    "question": "Question",
    "concept": "Concept",
    "guideitem": "Guide item",
    "lesson": "Lesson",
    "guide": "Guide",
    "track": "Track",
}
PER_PAGE = 20
MAX_QUERY_LENGTH = 200
MAX_WORDS = 12  # a longer query is cut: each word costs expansions and a vocabulary look-up
SNIPPET_TOKENS = 28
FEW_RESULTS = 5  # at or below this many hits a misspelt query offers "Did you mean"
_WORD = re.compile(r"\w+", re.UNICODE)
_MARKDOWN_NOISE = re.compile(
    r"(\*\*|__|`+|^#+\s*|\{\{.*?(?:\}\}|$)|!?\[([^\]]*)\]\([^)]*\))", re.MULTILINE | re.DOTALL
)


@dataclass
class SearchHit:
    type: str  # one of TYPES
    object_id: int
    title: str
    url: str
    snippet: SafeString
    score: float
    guarded_searched: bool  # False when the viewer may not read the item's guarded text
    context: str = ""  # where it lives: a question's track and number, a guide item's guide
    access: str = "open"
    difficulty: str = ""  # a question's, for its badges
    difficulty_label: str = ""
    published_at: Any = None
    badges: str = ""  # a question's badges as the caller's ``render`` made them

    @property
    def type_label(self) -> str:
        return TYPE_LABELS[self.type]

    def get_difficulty_display(self) -> str:  # a question's badges read it as the model's
        return self.difficulty_label

    @property
    def is_new(self) -> bool:
        return self.type == "question" and Question.is_new(self)  # type: ignore[arg-type]

    @property
    def obj(self) -> Any:
        """The item itself, loaded on first use (the results page needs none: its hits
        carry what they show, from the catalogue)."""
        loaded = self.__dict__.get("_obj")
        if loaded is None:
            loaded = _MODELS[self.type].objects.get(pk=self.object_id)
            self.__dict__["_obj"] = loaded
        return loaded


@dataclass(frozen=True)
class SearchFilters:
    type: str | None = None
    track: str | None = None  # track slug
    difficulty: str | None = None
    kind: str | None = None  # question kind

    @classmethod
    def from_params(cls, params: Any) -> SearchFilters:
        """Filters from a query string; an unknown type, difficulty or kind is ignored."""

        def pick(name: str, allowed: Any) -> str | None:
            value = params.get(name)
            return value if value in allowed else None

        return cls(
            type=pick("type", TYPES),
            track=params.get("track") or None,
            difficulty=pick("difficulty", Difficulty.values),
            kind=pick("kind", Kind.values),
        )

    @property
    def questions_only(self) -> bool:
        return bool(self.track or self.difficulty or self.kind)

    def wants(self, kind: str) -> bool:
        if self.questions_only and kind != "question":
            return False
        return self.type in (None, "", kind)


@dataclass
class SearchResults:
    """One page of results. ``total`` counts every match of the shown kind(s); ``counts``
    gives each kind's total whatever the type filter, for the kind links."""

    query: str  # the query the hits answer (the corrected one when ``corrected_from``)
    hits: list[SearchHit] = field(default_factory=list)
    total: int = 0
    page: int = 1
    per_page: int = PER_PAGE
    counts: dict[str, int] = field(default_factory=dict)
    suggestion: str | None = None  # "Did you mean ..."
    corrected_from: str | None = None  # the query as typed, when it found nothing
    html: str = ""  # the hits as the caller's ``render`` made them, kept with the page

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total / self.per_page))

    @property
    def first(self) -> int:
        return (self.page - 1) * self.per_page + 1 if self.total else 0

    @property
    def last(self) -> int:
        return min(self.total, self.page * self.per_page)

    @property
    def all_count(self) -> int:
        return sum(self.counts.values())


def terms(text: str) -> list[str]:
    return _WORD.findall((text or "")[:MAX_QUERY_LENGTH].lower())[:MAX_WORDS]


def render_snippet(raw: str) -> SafeString:
    """Engine snippet (with HL markers) to safe HTML: Markdown noise dropped, escaped."""
    text = _MARKDOWN_NOISE.sub(lambda m: m.group(2) if m.group(2) is not None else "", raw or "")
    text = " ".join(text.split())
    escaped = html.escape(text)
    if escaped.count(HL_START) != escaped.count(HL_END):
        escaped = escaped.replace(HL_START, "").replace(HL_END, "")
    return mark_safe(escaped.replace(HL_START, "<mark>").replace(HL_END, "</mark>"))


# --- Public entry points --------------------------------------------------------------------


def search(
    text: str,
    *,
    levels: Collection[str],
    filters: SearchFilters | None = None,
    limit: int = 50,
) -> list[SearchHit]:
    """The first ``limit`` hits for ``text``, best first (no correction is applied)."""
    return run(text, levels=levels, filters=filters, per_page=limit, correct=False).hits


def run(
    text: str,
    *,
    levels: Collection[str],
    filters: SearchFilters | None = None,
    page: int = 1,
    per_page: int = PER_PAGE,
    correct: bool = True,
    render: Callable[[SearchResults], str] | None = None,
    render_name: str = "",
) -> SearchResults:
    """One page of ranked hits; guarded text is searched only at ``levels``.

    ``render`` (named by ``render_name``, part of the key) turns the page into HTML once,
    kept as ``html`` in place of ``hits``: it may depend only on the hits and the levels,
    never on a reader.

    The page is computed once per query, readable levels, filters and page for each content
    version and shared by every reader with that key (``content_version.cached``): a part
    for one set of levels only ever goes to readers of those levels, the paywall rule of
    the page caches. A publish, edit or import moves the version and retires it.
    """
    levels = tuple(sorted(set(levels)))
    filters = filters or SearchFilters()
    text = " ".join((text or "").replace("\x00", " ").split())[:MAX_QUERY_LENGTH]
    if filters.track and "\x00" in filters.track:
        # no slug holds NUL, and PostgreSQL refuses it as a parameter (a 500)
        return SearchResults(query=text, per_page=per_page)
    if not terms(text):
        return SearchResults(query=text, per_page=per_page)
    key = repr((text.lower(), levels, filters, max(1, page), per_page, correct, render_name))
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]

    def compute() -> SearchResults:
        results = _run(text, levels, filters, page, per_page, correct)
        if render is not None and results.hits:
            results.html = render(results)
            results.hits = []  # in the HTML now: the cached page need not carry the objects
        return results

    return content_version.cached(f"search:v2:{connection.alias}:{digest}", compute)


def _run(
    text: str,
    levels: tuple[str, ...],
    filters: SearchFilters,
    page: int,
    per_page: int,
    correct: bool,
) -> SearchResults:
    results = SearchResults(query=text, per_page=per_page)
    words = terms(text)
    vocab = vocabulary()
    plan = _plan(words, vocab)
    rows = _matches(plan, levels, filters)
    correction = _correct(words, vocab) if correct else None
    if correction and not rows:
        corrected = _plan(terms(correction), vocab)
        rows = _matches(corrected, levels, filters)
        if rows:
            plan, results.query, results.corrected_from = corrected, correction, text
    elif correction and len(rows) <= FEW_RESULTS:
        results.suggestion = correction
    if not rows and correct and connection.vendor == "postgresql":
        rows = _trigram_matches(text, levels, filters)
    results.counts = dict(Counter(r.kind for r in rows))
    shown = [r for r in rows if filters.type in (None, "", r.kind)]
    results.total = len(shown)
    results.page = min(max(1, page), results.pages)
    _rank(shown, plan, levels, results.page * per_page)
    shown = _order(shown, plan)
    start = (results.page - 1) * per_page
    results.hits = _materialise(shown[start : start + per_page], plan, levels)
    return results


# --- Query plan: variants, joins, splits, corrections ---------------------------------------


@dataclass(frozen=True)
class Plan:
    """What to match: any of ``variants`` (each a list of terms, a term of two words is a
    phrase), with ``words`` as typed for the title comparison."""

    words: tuple[str, ...]
    variants: tuple[tuple[str, ...], ...]

    @property
    def all_terms(self) -> set[str]:
        return {w for v in self.variants for t in v for w in t.split()} | {
            t.replace(" ", "") for v in self.variants for t in v
        }


def _content(words: Iterable[str]) -> list[str]:
    words = list(words)
    return [w for w in words if w not in STOP_WORDS] or words


def _plan(words: list[str], vocab: Vocabulary) -> Plan:
    base = tuple(_content(words))
    variants = [base]
    for i in range(len(base) - 1):  # "paged attention" also as "pagedattention"
        joined = base[i] + base[i + 1]
        if joined in vocab.known:
            variants.append(base[:i] + (joined,) + base[i + 2 :])
    for i, word in enumerate(base):
        spelled = vocab.acronyms.get(word)  # "moe" also as "mixture of experts"
        if spelled:
            variants.append(base[:i] + (spelled,) + base[i + 1 :])
        camel = vocab.camel.get(word)  # "pagedattention" also as "paged attention"
        if camel:
            variants.append(base[:i] + (camel,) + base[i + 1 :])
        other = _other_spelling(word)  # "quantisation" also as "quantization"
        if other and other in vocab.known:
            variants.append(base[:i] + (other,) + base[i + 1 :])
        if word in vocab.known:
            continue
        split = vocab.split(word)  # "kvcache" also as the phrase "kv cache"
        if split:
            variants.append(base[:i] + (split,) + base[i + 1 :])
    return Plan(tuple(words), tuple(variants[:6]))


_BRITISH = re.compile(r"(?<=[a-z]{3})is(ation|ations|e|es|ed|ing|er|ers)$")
_AMERICAN = re.compile(r"(?<=[a-z]{3})iz(ation|ations|e|es|ed|ing|er|ers)$")


def _other_spelling(word: str) -> str | None:
    """The other side of -ise/-ize: "quantisation" and "quantization", "optimiser" and
    "optimizer" (the content mixes both)."""
    if _BRITISH.search(word):
        return _BRITISH.sub(r"iz\1", word)
    if _AMERICAN.search(word):
        return _AMERICAN.sub(r"is\1", word)
    return None


def _correct(words: list[str], vocab: Vocabulary) -> str | None:
    """The query with each unknown word replaced by the closest known word, or None."""
    out, changed = [], False
    for word in words:
        fixed = None
        if word not in vocab.known and word not in STOP_WORDS and not word.isdigit():
            if not vocab.split(word):
                fixed = vocab.closest(word)
        out.append(fixed or word)
        changed = changed or bool(fixed)
    return " ".join(out) if changed else None


def _edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance (a swap of neighbours counts one), or limit + 1."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


class Vocabulary:
    """Words of published titles (``titles``, with how many titles hold each) and of all
    public text (``known``). Titles and names are what a learner types and misspells."""

    def __init__(
        self, titles: Counter[str], known: set[str], acronyms: dict[str, str] | None = None
    ) -> None:
        self.titles = titles
        self.acronyms = acronyms or {}
        self.camel: dict[str, str] = {}  # "pagedattention": "paged attention"
        self.known = known | set(titles)
        self._by_length: dict[int, list[str]] = {}
        for word in self.known:
            if len(word) > 1 and not word.isdigit():
                self._by_length.setdefault(len(word), []).append(word)

    def split(self, word: str) -> str | None:
        """ "kvcache" -> "kv cache" when both halves are title words (known words for
        longer halves), the most even split first."""
        best = None
        for cut in range(2, len(word) - 1):
            left, right = word[:cut], word[cut:]
            if left in self.titles and right in self.titles:
                score = (2, -abs(len(left) - len(right)))
            elif left in self.known and right in self.known and min(len(left), len(right)) > 2:
                score = (1, -abs(len(left) - len(right)))
            else:
                continue
            if best is None or score > best[0]:
                best = (score, f"{left} {right}")
        return best[1] if best else None

    def closest(self, word: str) -> str | None:
        """The known word nearest by edit distance (1 for words up to 5 letters, else 2);
        title words first, then the commoner. A typo in the first letter is not looked for
        (rare, and checking only words that share it keeps a miss to a few milliseconds)."""
        if len(word) < 3:
            return None
        limit = 1 if len(word) <= 5 else 2
        letters = set(word)
        best: tuple[tuple[int, int, int], str] | None = None
        for length in range(len(word) - limit, len(word) + limit + 1):
            for candidate in self._by_length.get(length, ()):
                # cheap bounds first: a first letter kept (or swapped with the second), and
                # no more letters in or out than the edits allowed could account for
                if candidate[0] != word[0] and candidate[:2] != word[1::-1]:
                    continue
                if len(letters.symmetric_difference(candidate)) > 2 * limit:
                    continue
                d = _edit_distance(word, candidate, limit)
                if d <= limit:
                    key = (d, -self.titles.get(candidate, 0), len(candidate))
                    if best is None or key < best[0]:
                        best = (key, candidate)
        return best[1] if best else None


_VOCAB_LOCK = threading.Lock()
_vocab_cache: dict[str, Any] = {}


def vocabulary() -> Vocabulary:
    """This process's vocabulary for the current content version (rebuilt after a change;
    every minute when the shared cache, and so the version, cannot be read)."""
    import time

    version = content_version.recent()
    key = (
        connection.alias,
        connection.settings_dict.get("NAME"),
        version or int(time.time() // 60),
    )
    with _VOCAB_LOCK:
        if _vocab_cache.get("key") == key:
            return _vocab_cache["vocab"]
    vocab = _build_vocabulary()
    with _VOCAB_LOCK:
        _vocab_cache.update(key=key, vocab=vocab)
    return vocab


def forget_vocabulary() -> None:
    """Drop this process's vocabulary and catalogue (tests change content without moving
    the version)."""
    with _VOCAB_LOCK:
        _vocab_cache.clear()
    forget_catalogue()


def _build_vocabulary() -> Vocabulary:
    table = _table()
    visible, params = _visible_sql(SearchFilters(), TYPES)
    sql = (
        f"SELECT d.kind, d.title, d.public_text FROM {table} d JOIN ({visible}) v "
        "ON v.kind = d.kind AND v.object_id = d.object_id"
    )
    titles: Counter[str] = Counter()
    known: set[str] = set()
    acronyms: dict[str, str] = {}
    camel: dict[str, str] = {}
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for kind, title, public in cursor.fetchall():
            if kind in ("concept", "lesson"):
                # a concept or lesson named in three or more words answers to its initials
                name = _WORD.findall(re.split(r"[:(]", (title or "").lower())[0])
                if name and name[0] == "the":
                    name = name[1:]
                if len(name) >= 3 and all(w.isalpha() for w in name):
                    acronyms.setdefault("".join(w[0] for w in name), " ".join(name))
            title_words = _WORD.findall((title or "").lower())
            titles.update(set(title_words))
            known.update(_WORD.findall((public or "").lower()))
            # "PagedAttention" is one word to the engines, two to a reader: "paged attention"
            for token in _WORD.findall(title or ""):
                parts = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", token)
                if len(parts) == 2 and all(len(p) > 2 for p in parts):
                    camel["".join(parts).lower()] = " ".join(parts).lower()
                known.update(p.lower() for p in parts)
    vocab = Vocabulary(titles, known, acronyms)
    vocab.camel = camel
    return vocab


# --- Catalogue: what a hit shows, per content version ---------------------------------------

_MODELS: dict[str, Any] = {
    "question": Question,
    "concept": Concept,
    "guideitem": GuideItem,
    "lesson": Lesson,
    "guide": Guide,
    "track": Track,
}


@dataclass(frozen=True)
class Card:
    """One published item as a hit shows it, and what the filters test."""

    kind: str
    object_id: int
    access: str
    title: str
    url: str
    context: str = ""
    track: str = ""  # a question's track slug (a track's own), difficulty and kind
    difficulty: str = ""
    difficulty_label: str = ""
    question_kind: str = ""
    published_at: Any = None

    def kept_by(self, filters: SearchFilters) -> bool:
        return (
            (not filters.track or self.track == filters.track)
            and (not filters.difficulty or self.difficulty == filters.difficulty)
            and (not filters.kind or self.question_kind == filters.kind)
        )


_CATALOGUE_LOCK = threading.Lock()
_catalogue_cache: dict[str, Any] = {}


def catalogue() -> dict[tuple[str, int], Card]:
    """Every published item search may show, by (kind, id): its title, URL, context and
    filter fields, built once per process for each content version (every publish, edit,
    reorder or import moves the version). A match is kept only if its item is here with
    the access level the index holds, which is what publishing means to search; the page
    then needs no query to show its hits. When the version cannot be read (the shared
    cache is away) it is built for each search rather than risk showing a withdrawn item.

    The version alone does not name the content: it starts again from 1 when the shared
    cache is emptied (a Redis restart), and a process may hold a catalogue from before
    that reached the same number. So the catalogue is also keyed by a token kept in the
    shared cache beside the version, which an emptied cache no longer holds.
    """
    version = content_version.recent()
    token = _catalogue_token(version) if version else None
    key = (connection.alias, connection.settings_dict.get("NAME"), version, token)
    if token:
        with _CATALOGUE_LOCK:
            if _catalogue_cache.get("key") == key:
                return _catalogue_cache["cards"]
    cards = _build_catalogue()
    if token:
        with _CATALOGUE_LOCK:
            _catalogue_cache.update(key=key, cards=cards)
    return cards


def _catalogue_token(version: int) -> str | None:
    """The shared cache's token for this version's catalogue (made by the first process to
    ask), or None when the cache cannot be reached.

    Held in the process's ``local`` cache as long as ``content_version.recent`` holds the
    version itself: a page that asks for the catalogue more than once (the matches, the
    hits, the track filter) reads the shared token once, and an emptied shared cache is
    noticed within the same second as a moved version is."""
    key = f"derived:{version}:search:catalogue-token"
    local = caches["local"]
    token = local.get(key)
    if token is not None:
        return str(token)
    try:
        token = cache.get_or_set(key, lambda: uuid.uuid4().hex, content_version.DERIVED_TIMEOUT)
    except Exception:
        logger.warning("search catalogue token unavailable: building per search", exc_info=True)
        return None
    if token:
        local.set(key, token, content_version.LOCAL_SECONDS)
    return token


def track_choices() -> list[tuple[str, str]]:
    """(slug, title) of each published track, in the tracks' order, for the track filter."""
    return [(c.track, c.title) for c in catalogue().values() if c.kind == "track"]


def forget_catalogue() -> None:
    """Drop this process's catalogue (tests change content without moving the version)."""
    with _CATALOGUE_LOCK:
        _catalogue_cache.clear()


def _build_catalogue() -> dict[tuple[str, int], Card]:
    """The published items, as ``_visible_sql`` defines them (a question in a published
    track, a lesson in a published part, a guide item in a published guide). Plain rows
    and one ``reverse`` per kind of URL: this runs once per process and content version,
    and a site of thousands of items should not wait on model instances for it."""
    from django.urls import reverse

    slot, number = "zzslotzz", 987654321  # fit the URL patterns' slug and int converters

    def route(name: str, count: int) -> str:
        return reverse(name, args=[f"{slot}{i}" for i in range(count)])

    def fill(pattern: str, *values: Any) -> str:
        for i, value in enumerate(values):
            pattern = pattern.replace(f"{slot}{i}", str(value), 1)
        return pattern

    question_url = reverse("questions:detail", args=[f"{slot}0", number, f"{slot}1"])
    labels = dict(Difficulty.choices)
    cards: dict[tuple[str, int], Card] = {}
    for pk, access, title, qslug, num, difficulty, qkind, published_at, tslug, ttitle in (
        Question.objects.filter(published=True, track__published=True)
        .order_by()
        .values_list(
            "id", "access", "title", "slug", "number", "difficulty", "kind", "published_at",
            "track__slug", "track__title",
        )
    ):  # fmt: skip
        path = question_url.replace(f"{slot}0", tslug, 1).replace(str(number), str(num), 1)
        cards[("question", pk)] = Card(
            "question",
            pk,
            access,
            title,
            path.replace(f"{slot}1", qslug, 1),
            f"{ttitle} / {num}",
            track=tslug,
            difficulty=difficulty,
            difficulty_label=str(labels.get(difficulty, difficulty)),
            question_kind=qkind,
            published_at=published_at,
        )
    concept, track, guide = (route(f"questions:{n}", 1) for n in ("concept", "track", "guide"))
    for pk, access, title, slug in (
        Concept.objects.filter(published=True)
        .order_by()
        .values_list("id", "access", "title", "slug")
    ):
        cards[("concept", pk)] = Card("concept", pk, access, title, fill(concept, slug))
    for pk, title, slug in Track.objects.filter(published=True).values_list("id", "title", "slug"):
        cards[("track", pk)] = Card("track", pk, "open", title, fill(track, slug), track=slug)
    for pk, title, slug in Guide.objects.filter(published=True).values_list("id", "title", "slug"):
        cards[("guide", pk)] = Card("guide", pk, "open", title, fill(guide, slug))
    lesson = route("questions:lesson", 2)
    for pk, access, title, slug, pslug, ptitle in (
        Lesson.objects.filter(published=True, part__published=True)
        .order_by()
        .values_list("id", "access", "title", "slug", "part__slug", "part__title")
    ):
        cards[("lesson", pk)] = Card("lesson", pk, access, title, fill(lesson, pslug, slug), ptitle)
    for pk, title, sslug, stitle, gslug, gtitle in (
        GuideItem.objects.filter(section__guide__published=True)
        .order_by()
        .values_list(
            "id", "title", "section__slug", "section__title", "section__guide__slug",
            "section__guide__title",
        )
    ):  # fmt: skip
        cards[("guideitem", pk)] = Card(
            "guideitem", pk, "open", title, f"{fill(guide, gslug)}#{sslug}", f"{gtitle}: {stitle}"
        )
    return cards


# --- Matching ------------------------------------------------------------------------------


@dataclass(slots=True)  # thousands per search on a large site: slots make them cheaper
class Row:
    kind: str
    object_id: int
    access: str
    rank: float
    title: str | None  # set when the title matched (from the catalogue, by ``_matches``)
    ref: Any = None  # the engine's handle for the snippet query (SQLite rowid)
    titled: bool = False  # the engine found the query in the title
    ranked: bool = True  # False until PostgreSQL's rank is asked for (``_rank``)


def _table() -> str:
    return (
        "questions_search_document"
        if connection.vendor == "postgresql"
        else "questions_search_index"
    )


def _visible_sql(filters: SearchFilters, kinds: Iterable[str]) -> tuple[str, list[Any]]:
    """(kind, object_id, access) of every published item of ``kinds`` the filters keep:
    the index carries no publishing state, so a match is joined with this."""
    kinds = set(kinds)
    parts: list[str] = []
    params: list[Any] = []
    if "question" in kinds:
        sql = (
            "SELECT 'question' AS kind, q.id AS object_id, q.access AS access "
            "FROM questions_question q JOIN questions_track t ON t.id = q.track_id "
            "WHERE q.published = %s AND t.published = %s"
        )
        params += [True, True]
        for column, value in (
            ("t.slug", filters.track),
            ("q.difficulty", filters.difficulty),
            ("q.kind", filters.kind),
        ):
            if value:
                sql += f" AND {column} = %s"
                params.append(value)
        parts.append(sql)
    simple = {
        "concept": "SELECT 'concept', c.id, c.access FROM questions_concept c WHERE c.published = %s",
        "track": "SELECT 'track', t.id, 'open' FROM questions_track t WHERE t.published = %s",
        "guide": "SELECT 'guide', g.id, 'open' FROM questions_guide g WHERE g.published = %s",
    }
    for kind, sql in simple.items():
        if kind in kinds:
            parts.append(sql)
            params.append(True)
    if "lesson" in kinds:
        parts.append(
            "SELECT 'lesson', l.id, l.access FROM questions_lesson l "
            "JOIN questions_part p ON p.id = l.part_id WHERE l.published = %s AND p.published = %s"
        )
        params += [True, True]
    if "guideitem" in kinds:
        parts.append(
            "SELECT 'guideitem', i.id, 'open' FROM questions_guideitem i "
            "JOIN questions_guidesection s ON s.id = i.section_id "
            "JOIN questions_guide g ON g.id = s.guide_id WHERE g.published = %s"
        )
        params.append(True)
    if not parts:
        return "SELECT 'none' AS kind, 0 AS object_id, 'none' AS access WHERE 1 = 0", []
    return " UNION ALL ".join(parts), params


def _kinds(filters: SearchFilters) -> list[str]:
    """Kinds to match: every kind the non-type filters allow (the type filter picks the
    shown kind afterwards, so the other kinds can still be counted)."""
    return [k for k in TYPES if not filters.questions_only or k == "question"]


def _matches(plan: Plan, levels: tuple[str, ...], filters: SearchFilters) -> list[Row]:
    """The engine's matches of the items the catalogue holds (published, at the access
    level the index has for them) and the filters keep."""
    kinds = _kinds(filters)
    if connection.vendor == "postgresql":
        found = _pg_matches(plan, levels, kinds)
    else:
        found = _sqlite_matches(plan, levels, kinds)
    cards = catalogue()
    check = filters.questions_only
    rows = []
    for row in found:
        card = cards.get((row.kind, row.object_id))
        if card is None or card.access != row.access or (check and not card.kept_by(filters)):
            continue
        if row.titled:
            row.title = card.title
        rows.append(row)
    return rows


def _order(rows: list[Row], plan: Plan) -> list[Row]:
    """Title matches first, the closest title first; then the engine's rank."""
    query_words = set(_content(plan.words)) | plan.all_terms
    joined = "".join(_content(plan.words))
    same: dict[str, bool] = {}  # titles share most of their words: each is compared once

    def key(row: Row) -> tuple[float, float]:
        tier = 0.0
        if row.title is not None:
            title_words = _title_words(row.title)
            if "".join(title_words) == joined:
                tier = 3.0  # the title is the query (maybe joined or with "The")
            else:
                covered = 0
                for w in title_words:
                    if w not in same:
                        same[w] = _same_word(w, query_words)
                    covered += same[w]
                tier = 1.0 + covered / max(1, len(title_words))
        return (-tier, -row.rank)

    # rows left unranked (``_rank``) are never on the page: they follow, unsorted
    return sorted((r for r in rows if r.ranked), key=key) + [r for r in rows if not r.ranked]


@functools.lru_cache(maxsize=8192)
def _title_words(title: str) -> tuple[str, ...]:
    return tuple(_content(_WORD.findall(title.lower())))


def _same_word(word: str, query_words: set[str]) -> bool:
    """The word, or one a short suffix away ("parallel" and "parallelism", "cache" and
    "caches"): titles are compared without a stemmer."""
    if word in query_words:
        return True
    return any(
        len(q) >= 4
        and len(word) >= 4
        and (word.startswith(q) or q.startswith(word))
        and abs(len(word) - len(q)) <= 4
        for q in query_words
    )


# --- SQLite FTS5 ---------------------------------------------------------------------------

_BM25 = "bm25(questions_search_index, 0, 0, 0, 10.0, 4.0, 2.0)"


def _fts_term(term: str) -> str:
    return f'"{term}"'  # quoted: no user input is read as FTS5 syntax (words are \w+)


def _fts_query(plan: Plan, *, columns: str | None = None) -> str:
    """Any variant: all its terms, or (for several words) the exact phrase, which bm25 then
    scores higher."""
    alternatives = []
    for i, variant in enumerate(plan.variants):
        expr = " ".join(_fts_term(t) for t in variant)
        phrase = plan.words if i == 0 else variant  # as typed, stop words and all
        if len(phrase) > 1:
            expr = f'"{" ".join(phrase)}" OR ({expr})'
        alternatives.append(f"({expr})")
    expr = " OR ".join(alternatives)
    return f"{{{columns}}} : ({expr})" if columns else expr


def _sqlite_matches(plan: Plan, levels: tuple[str, ...], kinds: list[str]) -> list[Row]:
    marks = ", ".join(["%s"] * len(levels)) or "NULL"
    kind_marks = ", ".join(["%s"] * len(kinds))
    sql = f"""
        SELECT kind, object_id, access, -{_BM25} AS rank, rowid AS rid
        FROM questions_search_index
        WHERE questions_search_index MATCH %s AND access IN ({marks}) AND kind IN ({kind_marks})
        UNION ALL
        SELECT kind, object_id, access, -{_BM25} AS rank, rowid AS rid
        FROM questions_search_index
        WHERE questions_search_index MATCH %s AND access NOT IN ({marks})
          AND kind IN ({kind_marks})
    """
    params = [
        _fts_query(plan),
        *levels,
        *kinds,
        _fts_query(plan, columns="title public_text"),
        *levels,
        *kinds,
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = [Row(k, int(o), a, float(r), None, rid) for k, o, a, r, rid in cursor.fetchall()]
        if rows:
            cursor.execute(
                "SELECT rowid FROM questions_search_index WHERE questions_search_index MATCH %s",
                [_fts_query(plan, columns="title")],
            )
            titled = {rowid for (rowid,) in cursor.fetchall()}
            for row in rows:
                row.titled = row.ref in titled
    return rows


# --- PostgreSQL -----------------------------------------------------------------------------


def _tsquery(plan: Plan) -> str:
    """A ``to_tsquery`` string: any variant, each all its terms; quoted terms, so the words
    (\\w+ only) are normalised by the configuration and never read as operators."""
    alternatives = []
    for variant in plan.variants:
        parts = [" <-> ".join(f"'{w}'" for w in t.split()) for t in variant]
        alternatives.append("(" + " & ".join(f"({p})" for p in parts) + ")")
    return " | ".join(alternatives)


def _pg_matches(plan: Plan, levels: tuple[str, ...], kinds: list[str]) -> list[Row]:
    """The vector this viewer may search (full text at the readable ``levels``, public
    text otherwise), ranked, with whether the title (weight A of the small public vector)
    holds the query (``title_vector``, migration 0015): two index scans, one per side of
    the gate."""
    sql = """
        WITH q AS (SELECT to_tsquery('english', %s::text) AS query)
        SELECT d.kind, d.object_id, d.access, d.title_vector @@ q.query
        FROM questions_search_document d, q
        WHERE d.full_vector @@ q.query AND d.access = ANY(%s::text[]) AND d.kind = ANY(%s::text[])
        UNION ALL
        SELECT d.kind, d.object_id, d.access, d.title_vector @@ q.query
        FROM questions_search_document d, q
        WHERE d.public_vector @@ q.query AND NOT d.access = ANY(%s::text[]) AND d.kind = ANY(%s::text[])
    """
    arr = list(levels)  # a list: psycopg sends a tuple as a record, which ANY() cannot take
    with prepared_cursor() as cursor:
        cursor.execute(sql, [_tsquery(plan), arr, kinds, arr, kinds])
        return [
            Row(k, int(o), a, 0.0, None, titled=bool(t), ranked=False)
            for k, o, a, t in cursor.fetchall()
        ]


def _rank(rows: list[Row], plan: Plan, levels: tuple[str, ...], needed: int) -> None:
    """PostgreSQL's weighted rank (``ts_rank_cd`` over the vector each row was matched in)
    for the rows that decide the first ``needed`` places, and only those: title matches
    come first whatever their rank, so when there are at least ``needed`` of them the
    rest (often most of the matches) are never ranked. Unranked rows then sit after the
    title matches, beyond the page. A no-op for rows an engine ranked already."""
    if all(r.ranked for r in rows):
        return
    titled = [r for r in rows if r.title is not None]
    _rank_rows(
        [r for r in (titled if len(titled) >= needed else rows) if not r.ranked], plan, levels
    )


def _rank_rows(todo: list[Row], plan: Plan, levels: tuple[str, ...]) -> None:
    if not todo:
        return
    sql = """
        WITH q AS (SELECT to_tsquery('english', %s::text) AS query)
        SELECT d.kind, d.object_id, ts_rank_cd(
                   CASE WHEN d.access = ANY(%s::text[]) THEN d.full_vector ELSE d.public_vector END,
                   q.query, 1)
        FROM q, questions_search_document d
        JOIN unnest(%s::text[], %s::bigint[]) AS page(kind, object_id)
          ON page.kind = d.kind AND page.object_id = d.object_id
    """
    params: list[Any] = [
        _tsquery(plan),
        list(levels),
        [r.kind for r in todo],
        [r.object_id for r in todo],
    ]
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        ranks = {(k, int(o)): float(r) for k, o, r in cursor.fetchall()}
    for row in todo:
        row.rank = ranks.get((row.kind, row.object_id), 0.0)
        row.ranked = True


_trigram: dict[str, bool] = {}


def trigram_available() -> bool:
    """Whether pg_trgm is installed in this database (migration 0014 creates it where the
    role may); checked once per process and database."""
    name = str(connection.settings_dict.get("NAME"))
    if name not in _trigram:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
            _trigram[name] = cursor.fetchone() is not None
        if not _trigram[name]:
            logger.warning("pg_trgm is not installed: search has no trigram fallback for typos")
    return _trigram[name]


def _trigram_matches(text: str, levels: tuple[str, ...], filters: SearchFilters) -> list[Row]:
    """Titles similar to the query by trigrams, as a whole (``%``, for short titles) or
    within (``<%``, for long ones), at pg_trgm's default thresholds (titles are public:
    no gating needed). Both operators use the index of migration 0014."""
    if connection.vendor != "postgresql" or not trigram_available():
        return []
    visible, visible_params = _visible_sql(filters, _kinds(filters))
    sql = f"""
        SELECT d.kind, d.object_id, d.access,
               greatest(word_similarity(%s, lower(d.title)), similarity(%s, lower(d.title))),
               d.title
        FROM questions_search_document d JOIN ({visible}) v
          ON v.kind = d.kind AND v.object_id = d.object_id AND v.access = d.access
        WHERE %s <%% lower(d.title) OR %s %% lower(d.title)
        ORDER BY 4 DESC LIMIT 50
    """
    text = text.lower()
    with connection.cursor() as cursor:
        cursor.execute(sql, [text, text, *visible_params, text, text])
        # ranked as matches of the body, not the title: the title only looks like the query
        return [Row(k, int(o), a, float(s), None) for k, o, a, s, _ in cursor.fetchall()]


# --- One page of hits ------------------------------------------------------------------------


def _texts(
    rows: list[Row], plan: Plan, levels: tuple[str, ...]
) -> dict[tuple[str, int], tuple[str, Any]]:
    """(public text, guarded text or None) of each row, from the engine's index. The
    guarded text only for a row at a level this viewer may read, so a locked answer never
    leaves the database for a snippet; on PostgreSQL only when the public text lacks the
    query's words too (an answer runs to thousands of characters, and the snippet is cut
    from the public text whenever it can be)."""
    if connection.vendor == "postgresql":
        sql = """
            SELECT d.kind, d.object_id, d.public_text,
                   CASE WHEN d.access = ANY(%s::text[])
                             AND NOT ts_filter(d.public_vector, '{b}')
                                     @@ to_tsquery('english', %s::text)
                        THEN d.guarded_text END
            FROM questions_search_document d
            JOIN unnest(%s::text[], %s::bigint[]) AS p(kind, object_id)
              ON p.kind = d.kind AND p.object_id = d.object_id
        """
        params: list[Any] = [
            list(levels),
            _tsquery_any(plan),
            [r.kind for r in rows],
            [r.object_id for r in rows],
        ]
    else:  # FTS5 finds rows fast by rowid only (``ref``, set by ``_sqlite_matches``)
        marks = ", ".join(["%s"] * len(levels)) or "NULL"
        sql = f"""
            SELECT kind, object_id, public_text,
                   CASE WHEN access IN ({marks}) THEN guarded_text END
            FROM questions_search_index WHERE rowid IN ({", ".join(["%s"] * len(rows))})
        """
        params = [*levels, *(r.ref for r in rows)]
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        return {(k, int(o)): (p, g) for k, o, p, g in cursor.fetchall()}


def _tsquery_any(plan: Plan) -> str:
    """A ``to_tsquery`` string matching any one word of the plan."""
    return " | ".join(sorted({f"'{w}'" for v in plan.variants for t in v for w in t.split()}))


def _materialise(rows: list[Row], plan: Plan, levels: tuple[str, ...]) -> list[SearchHit]:
    """The page's hits from the catalogue, with their snippets (``questions.snippets``, cut
    from the page's texts: one query for the page's rows only)."""
    if not rows:
        return []
    texts = _texts(rows, plan, levels)
    wanted = snippets.query(_content(plan.all_terms))
    snip = {
        key: snippets.snippet(
            public, guarded, wanted, start=HL_START, stop=HL_END, tokens=SNIPPET_TOKENS
        )
        for key, (public, guarded) in texts.items()
    }
    cards = catalogue()
    hits = []
    for r in rows:
        card = cards.get((r.kind, r.object_id))
        if card is None:
            continue  # withdrawn since the match (a new version's catalogue)
        hits.append(
            SearchHit(
                r.kind,
                r.object_id,
                card.title,
                card.url,
                render_snippet(snip.get((r.kind, r.object_id), "")),
                r.rank,
                r.access in levels,
                card.context,
                access=card.access,
                difficulty=card.difficulty,
                difficulty_label=card.difficulty_label,
                published_at=card.published_at,
            )
        )
    return hits


# --- Keeping the SQLite index whole ---------------------------------------------------------

# (kind, table, title, public text, guarded text, access), as in migrations 0003 and 0013.
_SOURCES = [
    (
        "question",
        "questions_question",
        "{r}.title",
        "{r}.summary || ' ' || {r}.body",
        "{r}.answer",
        "{r}.access",
    ),
    ("concept", "questions_concept", "{r}.title", "{r}.summary", "{r}.body", "{r}.access"),
    (
        "track",
        "questions_track",
        "{r}.title",
        "{r}.summary || ' ' || {r}.description",
        "''",
        "'open'",
    ),
    ("guide", "questions_guide", "{r}.title", "{r}.summary || ' ' || {r}.intro", "''", "'open'"),
    ("guideitem", "questions_guideitem", "{r}.title", "{r}.body", "''", "'open'"),
    (
        "lesson",
        "questions_lesson",
        "{r}.title",
        "{r}.summary || ' ' || {r}.contents",
        "{r}.body",
        "{r}.access",
    ),
]
_COLUMNS = "kind, object_id, access, title, public_text, guarded_text"


def _values(kind: str, title: str, public: str, guarded: str, access: str, r: str) -> str:
    return ", ".join(
        [
            f"'{kind}'",
            f"{r}.id",
            access.format(r=r),
            title.format(r=r),
            public.format(r=r),
            guarded.format(r=r),
        ]
    )


def ensure_sqlite_index(using: str = "default", **kwargs: Any) -> bool:
    """Recreate missing triggers (and refill the index) after ``migrate``.

    SQLite rebuilds a table for many schema changes (Django's ``ALTER`` emulation copies
    it and drops the old one), and dropping a table drops its triggers; without this a
    later migration on a content table would silently freeze the index. Returns whether
    anything had to be repaired. Connected to ``post_migrate`` in ``questions.apps``.
    """
    from django.db import connections

    conn = connections[using]
    if conn.vendor != "sqlite":
        return False
    with conn.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")
        existing = {row[0] for row in cursor.fetchall()}
        if "questions_search_index" not in existing or "questions_question" not in existing:
            return False  # before migration 0003, or a partial test schema
        wanted = {f"{table}_search_{s}" for _, table, *_ in _SOURCES for s in ("ai", "au", "ad")}
        if wanted <= existing:
            return False
        for kind, table, title, public, guarded, access in _SOURCES:
            delete = (
                f"DELETE FROM questions_search_index WHERE kind = '{kind}' AND object_id = old.id;"
            )
            insert = f"INSERT INTO questions_search_index({_COLUMNS}) VALUES ({_values(kind, title, public, guarded, access, 'new')});"
            cursor.execute(
                f"CREATE TRIGGER IF NOT EXISTS {table}_search_ai AFTER INSERT ON {table} BEGIN {insert} END"
            )
            cursor.execute(
                f"CREATE TRIGGER IF NOT EXISTS {table}_search_au AFTER UPDATE ON {table} BEGIN {delete} {insert} END"
            )
            cursor.execute(
                f"CREATE TRIGGER IF NOT EXISTS {table}_search_ad AFTER DELETE ON {table} BEGIN {delete} END"
            )
        cursor.execute("DELETE FROM questions_search_index")
        for kind, table, title, public, guarded, access in _SOURCES:
            cursor.execute(
                f"INSERT INTO questions_search_index({_COLUMNS}) SELECT {_values(kind, title, public, guarded, access, 't')} FROM {table} t"
            )
    content_version.bump()  # results computed from the frozen index are stale
    return True
