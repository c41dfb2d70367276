"""Search snippets: Python (``questions.snippets``) against PostgreSQL's ``ts_headline``.

    DATABASE_URL=postgres://inferview:inferview@127.0.0.1:5432/inferview \\
    REDIS_URL=redis://127.0.0.1:6379/12 .venv/bin/python benchmarks/snippets.py --rounds 5

Rebuilds the scratch database ``<name>_bench`` with the shipped content (as
``benchmarks/pages.py`` does; ``--reuse`` keeps one built before), then, in this process,
for each query in ``QUERIES``: ranks its first page of 20 hits as a premium reader (every
guarded text readable, so the answers are in play), and times cutting that page's
snippets both ways, interleaved, ``--rounds`` x 20 times each:

- *ts_headline*: the statement search ran until eb47d15 (``BASELINE_SQL``): one query that
  picks each hit's public or guarded text and lets PostgreSQL cut and mark it;
- *python*: what search runs now, ``search._texts`` (one query for the texts) and
  ``snippets.snippet`` for each hit.

Prints the median milliseconds per page for each, and the ratio python / ts_headline
(below 1 is faster). A last row cuts the 20 longest guarded texts in the content for a
word near their end, the worst case for a scan.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pages import _die, env_for, prepare, recreate_database, scratch_url  # noqa: E402

QUERIES = (
    "kv cache",
    "paged attention",
    "tensor parallel",
    "roofline",
    "speculative decoding",
    "nccl all reduce",
    "quantization",
    "mixture of experts",
)
PER_PAGE = 20

#: The snippet statement of questions/search.py up to eb47d15, kept here as the baseline.
BASELINE_SQL = r"""
    WITH q AS (SELECT to_tsquery('english', %s) AS query,
                      to_tsquery('english', %s) AS any_word),
    page AS (
        SELECT d.kind, d.object_id,
               CASE WHEN d.access = ANY(%s)
                         AND NOT ts_filter(d.public_vector, '{b}') @@ q.any_word
                         AND ts_filter(d.full_vector, '{c}') @@ q.any_word
                    THEN d.guarded_text END AS guarded,
               d.public_text
        FROM q, questions_search_document d
        JOIN unnest(%s::text[], %s::bigint[]) AS p(kind, object_id)
          ON p.kind = d.kind AND p.object_id = d.object_id
    ),
    cut AS (
        SELECT kind, object_id, public_text, guarded,
               (SELECT min(nullif(strpos(lower(guarded), w), 0))
                FROM unnest(%s::text[]) AS w) AS at
        FROM page
    )
    SELECT kind || ':' || object_id, ts_headline('english',
               CASE WHEN guarded IS NULL THEN left(public_text, 4000)
                    WHEN at IS NULL OR at <= 200 THEN left(guarded, 4000)
                    ELSE coalesce(substring(substr(guarded, at - 200, 1200) FROM '^\S*\s(.*)$'),
                                  substr(guarded, at, 1200))
               END,
               q.query, %s)
    FROM cut, q
"""
HEADLINE_OPTIONS = (
    "StartSel=\ue000, StopSel=\ue001, MaxWords=30, MinWords=12, "
    "FragmentDelimiter=' … ', MaxFragments=2"
)


def _median_ms(fn: Callable[[], object], times: int) -> float:
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reuse", action="store_true", help="keep the scratch database")
    args = parser.parse_args()
    db_url = os.environ.get("DATABASE_URL", "")
    if not db_url.startswith("postgres"):
        _die("set DATABASE_URL (PostgreSQL): the baseline is PostgreSQL's ts_headline")
    bench_url = scratch_url(db_url)
    if not args.reuse:
        recreate_database(db_url, urlparse(bench_url).path.lstrip("/"))
        prepare(env_for(bench_url), None)
    os.environ.update(DATABASE_URL=bench_url, DJANGO_SETTINGS_MODULE="benchmarks.settings")
    import django

    django.setup()
    from django.db import connection

    from questions import search, snippets

    levels = ("account", "open", "premium")

    def page_of(text: str) -> tuple[search.Plan, list[search.Row]]:
        plan = search._plan(search.terms(text), search.vocabulary())
        rows = search._matches(plan, levels, search.SearchFilters())
        search._rank(rows, plan, levels, PER_PAGE)
        return plan, search._order(rows, plan)[:PER_PAGE]

    def baseline(plan: search.Plan, rows: list[search.Row]) -> dict[str, str]:
        words = sorted({w for v in plan.variants for t in v for w in t.split()})
        params = [
            search._tsquery(plan),
            search._tsquery_any(plan),
            list(levels),
            [r.kind for r in rows],
            [r.object_id for r in rows],
            words,
            HEADLINE_OPTIONS,
        ]
        with connection.cursor() as cursor:
            cursor.execute(BASELINE_SQL, params)
            return dict(cursor.fetchall())

    def python(plan: search.Plan, rows: list[search.Row]) -> list[str]:
        q = snippets.query(search._content(plan.all_terms))
        return [
            snippets.snippet(p, g, q, start=search.HL_START, stop=search.HL_END)
            for p, g in search._texts(rows, plan, levels).values()
        ]

    print(f"Shipped content; premium reader; {args.rounds} rounds x 20 pages; medians.\n")
    print(f"{'query':24} {'hits':>4} {'ts_headline ms':>15} {'python ms':>10} {'ratio':>6}")
    ratios = []
    for text in QUERIES:
        plan, rows = page_of(text)
        if not rows:
            print(f"{text:24} {0:>4} (no hits)")
            continue
        old, new = [], []
        for _ in range(args.rounds):  # interleaved, so a busy moment hits both alike
            old.append(_median_ms(functools.partial(baseline, plan, rows), 20))
            new.append(_median_ms(functools.partial(python, plan, rows), 20))
        o, n = statistics.median(old), statistics.median(new)
        ratios.append(n / o)
        print(f"{text:24} {len(rows):>4} {o:15.2f} {n:10.2f} {n / o:6.2f}")
    print(f"{'median ratio':24} {'':>4} {'':>15} {'':>10} {statistics.median(ratios):6.2f}")

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT guarded_text FROM questions_search_document "
            "ORDER BY length(guarded_text) DESC LIMIT 20"
        )
        longest = [g for (g,) in cursor.fetchall()]
    last_words = [snippets.query([g.split()[-1].strip(".,;:!?)(`*")]) for g in longest]
    cut_all = lambda: [  # noqa: E731
        snippets.cut(g, q, start="[", stop="]") for g, q in zip(longest, last_words, strict=True)
    ]
    chars = sum(len(g) for g in longest)
    ms = statistics.median(_median_ms(cut_all, 10) for _ in range(args.rounds))
    print(
        f"\nThe 20 longest guarded texts ({chars:,} characters), a word near each end: {ms:.2f} ms"
    )


if __name__ == "__main__":
    main()
