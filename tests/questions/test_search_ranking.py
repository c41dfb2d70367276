"""Search ranking over the shipped content, on whichever engine the suite runs (SQLite FTS5
by default, PostgreSQL full-text search when DATABASE_URL names one).

The table is what a learner types, as typed (variants, joined words, typos, initials), with
the item that must come first or in the top three. The content is imported once for the
module with ``import_content``, as a deploy does.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from inferview.access import policy
from questions import search as site_search
from questions.models import Question

ANONYMOUS_LEVELS = ("open",)

# (query, kind, title of the item, it must be within this many of the first hits)
TABLE = [
    ("kv cache", "concept", "The KV cache", 1),
    ("KV Cache", "concept", "The KV cache", 1),
    ("kv-cache", "concept", "The KV cache", 1),
    ("kvcache", "concept", "The KV cache", 1),
    ("paged attention", "concept", "PagedAttention", 1),
    ("pagedattention", "concept", "PagedAttention", 1),
    ("speculativ decoding", "concept", "Speculative decoding", 1),
    ("roofline modle", "concept", "The roofline model", 1),
    ("tensr cores", "concept", "Tensor cores", 1),
    ("disagregated serving", "concept", "Disaggregated prefill and decode serving", 1),
    ("flash attention", "concept", "FlashAttention", 1),
    ("mig", "concept", "MIG partitioning", 1),
    ("nccl all reduce", "guideitem", "Ring or tree all-reduce: when does NCCL use which?", 3),
    ("fp8", "concept", "FP8 scaling and accumulation precision", 3),
    ("moe", "concept", "Mixture of experts", 1),
    ("mla", "concept", "Multi-head latent attention (MLA)", 1),
    ("tensor parallel", "concept", "Tensor and pipeline parallelism", 3),
    ("continuous batching", "concept", "Continuous batching", 1),
    ("prefill and decode", "concept", "Prefill and decode", 1),
    ("little's law", "concept", "Little's law and queueing delay", 1),
    ("cuda graphs", "concept", "CUDA graphs", 1),
    ("kv cache quantization", "concept", "KV cache quantization", 1),
    ("radix attention", "concept", "RadixAttention and prefix caching", 1),
    ("memory coalescing", "concept", "Memory coalescing", 1),
    ("quantisation", "concept", "Quantization formats", 3),
    # lesson titles
    ("inside a gpu", "lesson", "Inside a GPU: SMs, warps and tensor cores", 1),
    (
        "mixture of experts: total versus active parameters",
        "lesson",
        "Mixture of experts: total versus active parameters",
        1,
    ),
    ("sharing a gpu mig mps", "lesson", "Sharing a GPU: MIG, MPS and time slicing", 3),
    # guide items
    (
        "little's law capacity",
        "guideitem",
        "How does Little's law help in LLM capacity questions?",
        1,
    ),
    ("mps or mig", "guideitem", "MPS, MIG and time-slicing: how do they differ?", 3),
]


@pytest.fixture(scope="module")
def shipped(django_db_setup, django_db_blocker):
    """The shipped content, imported once for the module and rolled back after it."""
    with django_db_blocker.unblock():
        with transaction.atomic():
            call_command("import_content", verbosity=0)
            site_search.forget_vocabulary()
            yield
            transaction.set_rollback(True)
    site_search.forget_vocabulary()


def place(results, kind, title):
    for n, hit in enumerate(results.hits, start=1):
        if (hit.type, hit.title) == (kind, title):
            return n
    return None


@pytest.mark.parametrize(("query", "kind", "title", "within"), TABLE, ids=[t[0] for t in TABLE])
def test_the_item_a_learner_means_ranks_first_or_in_the_top_three(
    shipped, db, query, kind, title, within
):
    results = site_search.run(query, levels=ANONYMOUS_LEVELS)
    found = place(results, kind, title)
    first = [(h.type, h.title) for h in results.hits[:3]]
    assert found is not None and found <= within, (connection.vendor, query, found, first)


def test_a_query_that_finds_nothing_runs_corrected_and_says_so(shipped, db):
    results = site_search.run("roofline modle", levels=ANONYMOUS_LEVELS)
    assert (results.corrected_from, results.query) == ("roofline modle", "roofline model")
    assert results.total > 0


def test_results_come_20_a_page_with_an_honest_total_and_counts(shipped, db):
    first = site_search.run("kv cache", levels=ANONYMOUS_LEVELS)
    assert first.total > 100 and len(first.hits) == 20  # was: every hit, cut at a hidden 50
    assert sum(first.counts.values()) == first.total and first.pages == -(-first.total // 20)
    seen = []
    for page in range(1, first.pages + 1):
        results = site_search.run("kv cache", levels=ANONYMOUS_LEVELS, page=page)
        assert results.total == first.total
        seen += [(h.type, h.obj.pk) for h in results.hits]
    assert len(seen) == len(set(seen)) == first.total  # every hit once, on some page
    beyond = site_search.run("kv cache", levels=ANONYMOUS_LEVELS, page=10_000)
    assert beyond.page == first.pages and beyond.hits  # clamped to the last page
    concepts = site_search.run(
        "kv cache", levels=ANONYMOUS_LEVELS, filters=site_search.SearchFilters(type="concept")
    )
    assert concepts.total == first.counts["concept"] and concepts.counts == first.counts
    assert {h.type for h in concepts.hits} == {"concept"}
    serving = site_search.run(
        "kv cache",
        levels=ANONYMOUS_LEVELS,
        filters=site_search.SearchFilters(track="inference-serving"),
    )
    assert serving.total and {h.obj.track.slug for h in serving.hits} == {"inference-serving"}


def test_snippets_never_quote_a_locked_answer(shipped, db, anonymous):
    """Every snippet an anonymous reader gets for a locked question is cut from its title,
    summary and scenario, not its answer."""
    levels = policy.readable_levels(anonymous)
    locked_seen = 0
    for query in ["kv cache", "fp8", "all-reduce", "speculative decoding", "batch size"]:
        for page in (1, 2):
            for hit in site_search.run(query, levels=levels, page=page).hits:
                if hit.type != "question" or hit.obj.access in levels:
                    continue
                locked_seen += 1
                assert not hit.guarded_searched
                question = Question.objects.get(pk=hit.obj.pk)
                public = " ".join([question.title, question.summary, question.body])
                public = " ".join(public.replace("`", "").replace("*", "").split())
                text = str(hit.snippet).replace("<mark>", "").replace("</mark>", "")
                for piece in text.replace("&#x27;", "'").split("…"):
                    piece = piece.strip()
                    if len(piece) > 20:
                        words = piece.split()
                        assert " ".join(words[:4]) in public or " ".join(words[-4:]) in public, (
                            query,
                            question.title,
                            piece,
                        )
    assert locked_seen > 10  # the check ran on real locked questions


def test_the_page_shows_counts_pages_and_the_correction(shipped, db, client):
    html = client.get("/search/", {"q": "kv cache"}).content.decode()
    assert "1–20 of " in html and 'rel="next"' in html and "page=2" in html
    assert html.count('class="search-hit ') == 20
    assert "type=concept" in html and "Guide items" in html
    html = client.get("/search/", {"q": "kv cache", "page": "2"}).content.decode()
    assert "21–40 of " in html and 'rel="prev"' in html
    html = client.get("/search/", {"q": "roofline modle"}).content.decode()
    assert "No results for “roofline modle”" in html and "The roofline model" in html
    html = client.get("/search/", {"q": "zzzqqq xxyyzz"}).content.decode()
    assert "Nothing matched" in html


def test_the_catalogue_shows_each_published_item_as_its_page_does(shipped, db):
    """The catalogue builds URLs from one reversed pattern per kind and reads plain rows:
    every shipped item's URL, title, context and access are what its model gives, and
    nothing unpublished is in it."""
    from questions.models import Concept, Guide, GuideItem, Lesson, Question, Track

    cards = site_search.catalogue()
    expected = {}
    for q in Question.objects.filter(published=True, track__published=True).select_related("track"):
        expected[("question", q.pk)] = (
            q.get_absolute_url(), q.title, f"{q.track.title} / {q.number}", q.access,
        )  # fmt: skip
    for model, kind in ((Concept, "concept"), (Track, "track"), (Guide, "guide")):
        for item in model.objects.filter(published=True):
            access = getattr(item, "access", "open")
            expected[(kind, item.pk)] = (item.get_absolute_url(), item.title, "", access)
    for lesson in Lesson.objects.filter(published=True, part__published=True):
        expected[("lesson", lesson.pk)] = (
            lesson.get_absolute_url(), lesson.title, lesson.part.title, lesson.access,
        )  # fmt: skip
    for gi in GuideItem.objects.filter(section__guide__published=True):
        guide = gi.section.guide
        expected[("guideitem", gi.pk)] = (
            f"{guide.get_absolute_url()}#{gi.section.slug}",
            gi.title,
            f"{guide.title}: {gi.section.title}",
            "open",
        )
    assert len(expected) > 600 and {k for k, _ in expected} == set(site_search.TYPES)
    got = {key: (c.url, c.title, c.context, c.access) for key, c in cards.items()}
    assert got == expected


def test_each_example_the_empty_search_page_offers_finds_a_concept_first(shipped, db, client):
    from inferview.pages.content import SEARCH_EXAMPLES

    page = client.get("/search/").content.decode()
    assert 'data-testid="search-start"' in page
    for example in SEARCH_EXAMPLES:
        assert f">{example}</a>" in page
        results = site_search.run(example, levels=ANONYMOUS_LEVELS)
        assert results.hits and results.hits[0].type == "concept", (example, results.hits[:1])
