"""Search over tracks, questions, concepts, guides and lessons: one interface, two engines.

``search(text, levels=...)`` runs PostgreSQL full-text search over the stored, GIN-indexed
``questions_search_document`` (migration ``0006``) when the database is PostgreSQL, and
the SQLite FTS5 table ``questions_search_index`` (migration ``0003``) otherwise; both are
kept current by triggers on the content tables, so saves and imports need no extra step.

Gating: every item's text is split into *public* text (titles, summaries, a question's
scenario) and *guarded* text (a question's answer, a concept's body). Guarded text is
matched and snippeted only for items whose access level is in ``levels``, the levels
the caller's access policy lets this viewer read (content knows nothing of readers, so
the policy's answer comes in as an argument); for the rest the query runs against public text alone and snippets are cut from public text
alone, so a locked answer's words can neither find an item nor appear in a result.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.utils.safestring import SafeString, mark_safe

from .models import Concept, Difficulty, Guide, GuideItem, Kind, Lesson, Track
from .selectors import published_questions
from .similarity import STOP_WORDS

# Private-use code points mark highlights inside the engines, then become <mark> after
# the text is escaped, so only our own tags ever reach the page.
HL_START, HL_END = "\ue000", "\ue001"
TYPES = ("question", "concept", "track", "guide", "lesson")
MAX_QUERY_LENGTH = 200
SNIPPET_TOKENS = 28
_WORD = re.compile(r"\w+", re.UNICODE)
_MARKDOWN_NOISE = re.compile(
    r"(\*\*|__|`+|^#+\s*|\{\{.*?(?:\}\}|$)|!?\[([^\]]*)\]\([^)]*\))", re.MULTILINE | re.DOTALL
)


@dataclass
class SearchHit:
    type: str  # question, concept, track or guide
    obj: Any
    title: str
    url: str
    snippet: SafeString
    score: float
    guarded_searched: bool  # False when the viewer may not read the item's guarded text

    @property
    def type_label(self) -> str:
        return {
            "question": "Question",
            "concept": "Concept",
            "track": "Track",
            "guide": "Guide",
            "lesson": "Lesson",
        }[self.type]


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


def terms(text: str) -> list[str]:
    return _WORD.findall((text or "")[:MAX_QUERY_LENGTH].lower())


def render_snippet(raw: str) -> SafeString:
    """Engine snippet (with HL markers) to safe HTML: Markdown noise dropped, escaped."""
    text = _MARKDOWN_NOISE.sub(lambda m: m.group(2) if m.group(2) is not None else "", raw or "")
    text = " ".join(text.split())
    escaped = html.escape(text)
    if escaped.count(HL_START) != escaped.count(HL_END):
        escaped = escaped.replace(HL_START, "").replace(HL_END, "")
    return mark_safe(escaped.replace(HL_START, "<mark>").replace(HL_END, "</mark>"))


def search(
    text: str,
    *,
    levels: Collection[str],
    filters: SearchFilters | None = None,
    limit: int = 50,
) -> list[SearchHit]:
    """Ranked hits for ``text``, best first; guarded text is searched only at ``levels``."""
    levels = tuple(levels)
    filters = filters or SearchFilters()
    if filters.track and "\x00" in filters.track:
        return []  # no slug holds NUL, and PostgreSQL refuses it as a parameter (a 500)
    text = (text or "").replace("\x00", " ")
    words = terms(text)
    if not words:
        return []
    if connection.vendor == "postgresql":
        hits = _search_postgres(text[:MAX_QUERY_LENGTH], levels, filters)
    else:
        hits = _search_sqlite(words, levels, filters)
    hits.sort(key=lambda h: -h.score)
    return hits[:limit]


# --- SQLite FTS5 ---------------------------------------------------------------------------

# Column order of questions_search_index: kind, object_id, access, title, public_text, guarded_text
_PUBLIC_COLUMN = 4
_BM25 = "bm25(questions_search_index, 0, 0, 0, 10.0, 4.0, 2.0)"


def _fts_query(words: list[str], *, public_only: bool) -> str:
    """All the (non-stop) words, or the exact phrase, which bm25 then scores higher.

    Every term is quoted, so no user input is read as FTS5 syntax.
    """
    content = [w for w in words if w not in STOP_WORDS] or words
    expr = " ".join(f'"{w}"' for w in content)
    if len(words) > 1:
        phrase = " ".join(words)
        expr = f'"{phrase}" OR ({expr})'
    return f"{{title public_text}} : ({expr})" if public_only else expr


def _fts_rows(
    words: list[str], kinds: list[str], levels: tuple[str, ...], readable: bool
) -> list[tuple]:
    if not kinds:
        return []
    snippet_column = -1 if readable else _PUBLIC_COLUMN
    level_marks = ", ".join(["%s"] * len(levels))
    kind_marks = ", ".join(["%s"] * len(kinds))
    where_access = f"access IN ({level_marks})" if readable else f"access NOT IN ({level_marks})"
    sql = (
        f"SELECT kind, object_id, {_BM25}, "
        f"snippet(questions_search_index, {snippet_column}, %s, %s, '…', {SNIPPET_TOKENS}), access "
        "FROM questions_search_index WHERE questions_search_index MATCH %s "
        f"AND kind IN ({kind_marks}) AND {where_access}"
    )
    params = [HL_START, HL_END, _fts_query(words, public_only=not readable), *kinds, *levels]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _search_sqlite(
    words: list[str], levels: tuple[str, ...], filters: SearchFilters
) -> list[SearchHit]:
    kinds = [k for k in TYPES if filters.wants(k)]
    if "guide" in kinds:
        kinds.append("guideitem")
    rows = _fts_rows(words, kinds, levels, True) + _fts_rows(words, kinds, levels, False)
    found: dict[str, dict[int, tuple[float, str, str]]] = {}
    for kind, object_id, bm25, snip, access in rows:
        found.setdefault(kind, {})[int(object_id)] = (-float(bm25), snip, access)
    return _materialise(found, levels, filters)


def _materialise(
    found: dict[str, dict[int, tuple[float, str, str]]],
    levels: tuple[str, ...],
    filters: SearchFilters,
) -> list[SearchHit]:
    """Load the matched objects through the ORM, keeping only published, filtered items.

    The access level recorded in the index must match the object's; a row that disagrees
    is dropped rather than trusted.
    """

    def hit(kind: str, obj: Any, score: float, snip: str, readable: bool) -> SearchHit:
        return SearchHit(
            kind, obj, obj.title, obj.get_absolute_url(), render_snippet(snip), score, readable
        )

    hits: list[SearchHit] = []
    gated: list[tuple[str, Any]] = []
    if found.get("question"):
        qs = published_questions().filter(pk__in=found["question"]).select_related("track")
        if filters.track:
            qs = qs.filter(track__slug=filters.track)
        if filters.difficulty:
            qs = qs.filter(difficulty=filters.difficulty)
        if filters.kind:
            qs = qs.filter(kind=filters.kind)
        gated.append(("question", qs))
    if found.get("concept"):
        gated.append(("concept", Concept.objects.published().filter(pk__in=found["concept"])))
    if found.get("lesson"):
        # a lesson's public text is its summary and headings; its body is guarded
        lessons = Lesson.objects.published().filter(part__published=True, pk__in=found["lesson"])
        gated.append(("lesson", lessons.select_related("part")))
    for kind, queryset in gated:
        for obj in queryset:
            score, snip, access = found[kind][obj.pk]
            if access != obj.access:
                continue
            hits.append(hit(kind, obj, score, snip, obj.access in levels))
    if found.get("track"):
        for t in Track.objects.published().filter(pk__in=found["track"]):
            score, snip, _ = found["track"][t.pk]
            hits.append(hit("track", t, score, snip, True))
    guide_scores: dict[int, tuple[float, str]] = {}
    for gid, (score, snip, _) in found.get("guide", {}).items():
        guide_scores[gid] = (score, snip)
    if found.get("guideitem"):
        items = GuideItem.objects.filter(pk__in=found["guideitem"]).values_list(
            "pk", "section__guide_id"
        )
        for item_id, gid in items:
            score, snip, _ = found["guideitem"][item_id]
            if gid not in guide_scores or guide_scores[gid][0] < score:
                guide_scores[gid] = (score, snip)
    if guide_scores:
        for g in Guide.objects.published().filter(pk__in=guide_scores):
            score, snip = guide_scores[g.pk]
            hits.append(hit("guide", g, score, snip, True))
    return hits


# --- PostgreSQL -----------------------------------------------------------------------------


_PG_HEADLINE = (
    "StartSel={start}, StopSel={stop}, MaxWords=30, MinWords=12, "
    "FragmentDelimiter=' … ', MaxFragments=2"
)
_PG_CANDIDATES = 50  # the results page shows at most 50: headlines only for those
_PG_HEADLINE_CHARS = 4000  # ts_headline re-parses its text; bound the cost per result


def _search_postgres(text: str, levels: tuple[str, ...], filters: SearchFilters) -> list[SearchHit]:
    """One query over ``questions_search_document`` (migration 0006): rank on the indexed
    vector this viewer may search (full text at the readable ``levels``, public text
    otherwise), then cut headlines from the same text for the best
    candidates only."""
    kinds = [k for k in TYPES if filters.wants(k)]
    if "guide" in kinds:
        kinds.append("guideitem")
    if not kinds:
        return []
    options = _PG_HEADLINE.format(start=HL_START, stop=HL_END)
    sql = """
        WITH q AS (SELECT websearch_to_tsquery('english', %s) AS query),
        ranked AS (
            SELECT d.kind, d.object_id, d.access, d.title, d.public_text, d.guarded_text,
                   d.access = ANY(%s) AS readable,
                   ts_rank_cd(CASE WHEN d.access = ANY(%s) THEN d.full_vector
                                   ELSE d.public_vector END, q.query) AS rank
            FROM questions_search_document d, q
            WHERE d.kind = ANY(%s)
              AND ((d.access = ANY(%s) AND d.full_vector @@ q.query)
                   OR (NOT d.access = ANY(%s) AND d.public_vector @@ q.query))
            ORDER BY rank DESC
            LIMIT %s
        )
        SELECT r.kind, r.object_id, r.rank,
               ts_headline('english', left(
                   r.title || ' ' || r.public_text
                       || CASE WHEN r.readable THEN ' ' || r.guarded_text ELSE '' END, %s),
                   q.query, %s),
               r.access
        FROM ranked r, q
    """
    # A list, not the tuple: psycopg sends a tuple as a record, which ANY() cannot take.
    arr = list(levels)
    params = [
        text, arr, arr, kinds, arr, arr, _PG_CANDIDATES, _PG_HEADLINE_CHARS, options
    ]  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    found: dict[str, dict[int, tuple[float, str, str]]] = {}
    for kind, object_id, rank, headline, access in rows:
        found.setdefault(kind, {})[int(object_id)] = (float(rank), headline, access)
    return _materialise(found, levels, filters)


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
    return True
