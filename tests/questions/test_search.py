"""Search: ranked, highlighted, filtered, and gated by the access policy.

A locked answer's words must neither find its question nor appear in any snippet for a
viewer who may not read it; the same words find it for a viewer who may.
"""

import re

import pytest

from inferview.access import policy
from questions import search as site_search
from questions.models import Question
from questions.search import SearchFilters
from tests.factories import (
    ConceptFactory,
    GuideFactory,
    GuideItemFactory,
    GuideSectionFactory,
    QuestionFactory,
    TrackFactory,
)

pytestmark = pytest.mark.django_db

PREMIUM_PHRASE = "zymurgic quokka paging"
ACCOUNT_PHRASE = "flibbertigibbet scheduler"
OPEN_PHRASE = "ring allreduce saturates the links"


def search(text, *, user, **kwargs):
    """Search as the pages do: the policy's readable levels for this viewer."""
    return site_search.search(text, levels=policy.readable_levels(user), **kwargs)


@pytest.fixture
def content():
    serving = TrackFactory(
        slug="serving", title="Inference and serving", description="Batching and paged attention."
    )
    kernels = TrackFactory(slug="kernels", title="Kernels and compilers")
    return {
        "open": QuestionFactory(
            track=serving,
            number=1,
            title="Why does the all-reduce stall?",
            access="open",
            difficulty="easy",
            kind="explain",
            answer=f"Because the {OPEN_PHRASE} when tensors are large.",
        ),
        "account": QuestionFactory(
            track=serving,
            number=2,
            title="Who decides the batch?",
            access="account",
            difficulty="medium",
            kind="design",
            answer=f"The {ACCOUNT_PHRASE} decides, step by step.",
        ),
        "premium": QuestionFactory(
            track=kernels,
            number=1,
            title="Why is the kernel memory bound?",
            summary="Separates bandwidth from compute.",
            access="premium",
            difficulty="hard",
            kind="calculation",
            answer=f"The trick is {PREMIUM_PHRASE}: it hides <script>alert(1)</script> latency.",
        ),
        "concept": ConceptFactory(
            title="Roofline model",
            access="premium",
            summary="Compute versus bandwidth.",
            body="The phlogiston ceiling.",
        ),
        "serving": serving,
    }


def urls(hits):
    return {h.url for h in hits}


def all_snippets(hits):
    return " ".join(str(h.snippet) for h in hits)


@pytest.mark.parametrize("viewer", ["anonymous", "free_user"])
def test_premium_answer_phrase_is_not_found_or_snippeted_for_anonymous_and_free(
    request, content, viewer
):
    user = request.getfixturevalue(viewer)
    for query in [PREMIUM_PHRASE, "zymurgic", "quokka paging", "zymurgic kernel"]:
        hits = search(query, user=user)
        assert content["premium"].get_absolute_url() not in urls(hits), query
        assert (
            "zymurgic" not in all_snippets(hits).lower()
            and "quokka" not in all_snippets(hits).lower()
        )


@pytest.mark.parametrize("viewer", ["premium_user", "staff_user"])
def test_premium_answer_phrase_is_found_for_premium(request, content, viewer):
    hits = search(PREMIUM_PHRASE, user=request.getfixturevalue(viewer))
    [hit] = [h for h in hits if h.type == "question"]
    assert hit.url == content["premium"].get_absolute_url()
    assert hit.guarded_searched
    assert re.search(r"<mark>[^<]*zymurgic[^<]*</mark>", str(hit.snippet))


@pytest.mark.parametrize("viewer", ["anonymous", "free_user"])
def test_locked_question_is_still_found_by_its_public_text_with_a_public_snippet(
    request, content, viewer
):
    hits = search("kernel memory bound", user=request.getfixturevalue(viewer))
    [hit] = [h for h in hits if h.type == "question"]
    assert hit.url == content["premium"].get_absolute_url() and not hit.guarded_searched
    assert "zymurgic" not in str(hit.snippet) and "quokka" not in str(hit.snippet)


@pytest.mark.parametrize("viewer", ["anonymous", "free_user"])
def test_a_locked_hit_found_by_its_title_never_quotes_its_answer(request, viewer, premium_user):
    """The case a snippet could leak through: a locked question found by its title, whose
    summary and body lack the word and whose answer holds it. The answer is not even read
    from the index for a viewer who may not read it; a premium reader gets it quoted."""
    question = QuestionFactory(
        title="Why does the okapinator stall?",
        summary="Separates one thing from another.",
        body="The interviewer asks a question.",
        answer="The okapinator stalls because the quagga buffer is full.",
        access="premium",
    )
    user = request.getfixturevalue(viewer)
    [hit] = search("okapinator", user=user)
    assert hit.object_id == question.pk and not hit.guarded_searched
    assert "quagga" not in str(hit.snippet) and "okapinator" not in str(hit.snippet)
    levels = tuple(sorted(policy.readable_levels(user)))
    plan = site_search._plan(["okapinator"], site_search.vocabulary())
    rows = site_search._matches(plan, levels, SearchFilters())
    texts = site_search._texts(rows, plan, levels)
    assert texts[("question", question.pk)][1] is None
    [hit] = search("okapinator", user=premium_user)
    assert "<mark>okapinator</mark> stalls because the quagga" in str(hit.snippet)


def test_account_answer_needs_a_free_account(content, anonymous, free_user):
    url = content["account"].get_absolute_url()
    assert url not in urls(search(ACCOUNT_PHRASE, user=anonymous))
    assert url in urls(search(ACCOUNT_PHRASE, user=free_user))


def test_open_answer_phrase_is_found_by_everyone_and_highlighted(content, anonymous):
    hits = search(OPEN_PHRASE, user=anonymous)
    assert hits[0].url == content["open"].get_absolute_url()
    assert re.search(r"<mark>[^<]*allreduce[^<]*</mark>", str(hits[0].snippet))


def test_premium_concept_body_is_gated(content, anonymous, premium_user):
    assert content["concept"].get_absolute_url() not in urls(search("phlogiston", user=anonymous))
    assert content["concept"].get_absolute_url() in urls(search("phlogiston", user=premium_user))
    assert content["concept"].get_absolute_url() in urls(search("roofline", user=anonymous))


def test_snippets_are_escaped(content, premium_user):
    [hit] = [h for h in search("zymurgic latency", user=premium_user) if h.type == "question"]
    # the snippet is cut from the stored text, tags and all, and escaped when rendered
    assert "<script>" not in str(hit.snippet) and "alert(1)" in str(hit.snippet)


def test_filters_by_track_difficulty_kind_and_type(content, premium_user):
    word = "interviewer"  # in every factory question's scenario
    everything = search(word, user=premium_user)
    assert {h.obj.pk for h in everything if h.type == "question"} == {
        content["open"].pk,
        content["account"].pk,
        content["premium"].pk,
    }
    by_track = search(word, user=premium_user, filters=SearchFilters(track="serving"))
    assert {h.obj.pk for h in by_track} == {content["open"].pk, content["account"].pk}
    assert [
        h.obj.pk for h in search(word, user=premium_user, filters=SearchFilters(difficulty="hard"))
    ] == [content["premium"].pk]
    assert [
        h.obj.pk for h in search(word, user=premium_user, filters=SearchFilters(kind="explain"))
    ] == [content["open"].pk]
    assert {
        h.type
        for h in search("bandwidth", user=premium_user, filters=SearchFilters(type="concept"))
    } == {"concept"}
    assert [
        h.type
        for h in search("paged attention", user=premium_user, filters=SearchFilters(type="track"))
    ] == ["track"]


def test_tracks_and_guides_are_searchable(content, anonymous):
    guide = GuideFactory(title="Interview week")
    section = GuideSectionFactory(guide=guide)
    GuideItemFactory(
        section=section, title="Prefill versus decode", body="Marmalade is the memory."
    )
    # a guide item is a hit of its own, linked to its section of the guide
    [hit] = search("marmalade", user=anonymous)
    assert (hit.type, hit.url) == ("guideitem", f"{guide.get_absolute_url()}#{section.slug}")
    assert hit.context == f"Interview week: {section.title}"
    assert guide.get_absolute_url() in urls(search("interview week", user=anonymous))
    assert content["serving"].get_absolute_url() in urls(search("paged attention", user=anonymous))


def test_title_matches_rank_above_body_matches(anonymous):
    in_body = QuestionFactory(title="Something else", answer="A note about tokenizers.")
    in_title = QuestionFactory(title="Why are tokenizers slow?", answer="Because.")
    hits = search("tokenizers", user=anonymous)
    assert [h.obj.pk for h in hits] == [in_title.pk, in_body.pk]


def test_unpublished_content_is_not_found(anonymous):
    QuestionFactory(title="Hidden draft about wombats", published=False)
    QuestionFactory(title="Wombats in an unpublished track", track=TrackFactory(published=False))
    assert search("wombats", user=anonymous) == []


def test_index_follows_edits_and_access_changes(content, anonymous):
    q = content["open"]
    Question.objects.filter(pk=q.pk).update(answer="Now it is about dragonflies.")
    assert q.get_absolute_url() in urls(search("dragonflies", user=anonymous))
    assert q.get_absolute_url() not in urls(search("allreduce saturates", user=anonymous))
    q.refresh_from_db()
    q.access = "premium"
    q.save()
    assert q.get_absolute_url() not in urls(search("dragonflies", user=anonymous))
    q.delete()
    assert search("dragonflies", user=anonymous) == []


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "AND OR NOT",
        "title: x",
        "*",
        "{title}: x",
        "NEAR(a b)",
        "a -b",
        "'); DROP TABLE x; --",
        "",
        "   ",
    ],
)
def test_hostile_queries_do_not_break_search(content, anonymous, query):
    assert isinstance(search(query, user=anonymous), list)


def test_search_page_renders_highlights_and_gates(client, content):
    html = client.get("/search/", {"q": PREMIUM_PHRASE}).content.decode()
    assert "zymurgic" not in html.replace(f'value="{PREMIUM_PHRASE}"', "").replace(
        f"“{PREMIUM_PHRASE}”", ""
    ).replace(f"Search: {PREMIUM_PHRASE}", "")
    html = client.get("/search/", {"q": OPEN_PHRASE}).content.decode()
    assert re.search(r"<mark>[^<]*allreduce[^<]*</mark>", html) and content["open"].title in html
    html = client.get("/search/", {"q": "interviewer", "difficulty": "hard"}).content.decode()
    assert content["premium"].title in html and content["open"].title not in html
    assert "The answer is locked for you" in html


def test_search_api(client_for, content, premium_user):
    r = client_for(None).get("/api/v1/search/", {"q": PREMIUM_PHRASE})
    assert r.status_code == 200 and all("zymurgic" not in h["snippet_html"] for h in r.json())
    assert content["premium"].get_absolute_url() not in {h["url"] for h in r.json()}
    r = client_for(premium_user).get("/api/v1/search/", {"q": PREMIUM_PHRASE})
    assert content["premium"].get_absolute_url() in {h["url"] for h in r.json()}
    r = client_for(None).get("/api/v1/search/", {"q": "x", "difficulty": "impossible"})
    assert r.status_code == 400 and "difficulty" in r.json()["error"]["fields"]


def test_snippet_renderer_drops_markdown_and_unbalanced_markers():
    raw = f"**bold** {site_search.HL_START}term{site_search.HL_END} [link](http://x) `code` <b>"
    assert str(site_search.render_snippet(raw)) == "bold <mark>term</mark> link code &lt;b&gt;"
    assert "<mark>" not in str(site_search.render_snippet(f"{site_search.HL_START}open only"))


def test_words_are_highlighted_when_not_an_exact_phrase(content, anonymous):
    [hit] = [h for h in search("links ring", user=anonymous) if h.type == "question"]
    assert "<mark>ring</mark>" in str(hit.snippet) and "<mark>links</mark>" in str(hit.snippet)


def test_exact_phrase_ranks_above_scattered_words(anonymous):
    scattered = QuestionFactory(
        title="Traffic notes", answer="Everything is fine. Later it grows. Then traffic arrives."
    )
    exact = QuestionFactory(
        title="Budget notes", answer="Budget everything that grows with traffic."
    )
    hits = search("everything that grows with traffic", user=anonymous)
    assert [h.obj.pk for h in hits][:2] == [exact.pk, scattered.pk]


def test_index_triggers_are_restored_after_a_table_rebuild(anonymous):
    """SQLite drops triggers with their table; post_migrate puts them back and refills."""
    from django.db import connection

    if connection.vendor != "sqlite":
        # PostgreSQL searches the tables themselves: there is no index to repair.
        assert site_search.ensure_sqlite_index() is False
        return
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER questions_question_search_ai")
    QuestionFactory(title="Capybaras in the batch")
    assert search("capybaras", user=anonymous) == []  # the index missed the insert
    assert site_search.ensure_sqlite_index() is True
    assert [h.title for h in search("capybaras", user=anonymous)] == ["Capybaras in the batch"]
    assert site_search.ensure_sqlite_index() is False  # nothing left to repair


@pytest.fixture(autouse=True)
def fresh_vocabulary():
    """Each test's content builds its own vocabulary (a rolled-back test leaves none)."""
    site_search.forget_vocabulary()
    yield
    site_search.forget_vocabulary()


def test_a_misspelt_word_that_still_finds_little_offers_did_you_mean(client, anonymous):
    QuestionFactory(title="Speculative decoding acceptance", access="premium")
    QuestionFactory(title="Drafts", access="open", answer="A speculatve draft is cheap.")
    results = site_search.run("speculatve", levels=policy.readable_levels(anonymous))
    assert results.total == 1 and results.suggestion == "speculative"
    assert results.corrected_from is None
    html = client.get("/search/", {"q": "speculatve"}).content.decode()
    assert 'Did you mean <a href="?q=speculative">speculative</a>?' in html


def test_corrections_come_from_public_words_only(anonymous):
    """A word only a locked answer holds is never offered: that would quote the answer."""
    QuestionFactory(title="Locked", access="premium", answer="The xylophonic trick.")
    results = site_search.run("xylophonix", levels=policy.readable_levels(anonymous))
    assert results.total == 0 and results.suggestion is None and results.corrected_from is None


def test_joined_split_and_initials_variants(anonymous):
    concept = ConceptFactory(title="PagedAttention", summary="Blocks.", access="open")
    moe = ConceptFactory(title="Mixture of experts", summary="Routing.", access="open")
    kv = ConceptFactory(title="The KV cache", summary="Keys and values.", access="open")
    levels = policy.readable_levels(anonymous)
    for query, item in [
        ("paged attention", concept),
        ("pagedattention", concept),
        ("moe", moe),
        ("kvcache", kv),
        ("kv-cache", kv),
        ("KV Cache", kv),
    ]:
        assert site_search.run(query, levels=levels).hits[0].obj == item, query


def test_trigram_fallback_on_postgresql(anonymous):
    from django.db import connection

    QuestionFactory(title="Capybaras in the batch", access="premium")
    if connection.vendor != "postgresql":
        assert site_search._trigram_matches("capybara", ("open",), SearchFilters()) == []
        return
    assert site_search.trigram_available()  # migration 0014 created pg_trgm
    rows = site_search._trigram_matches("capybarass batches", ("open",), SearchFilters())
    assert [r.title is None and r.kind for r in rows] == ["question"]


def test_search_api_pages_with_an_honest_total(client_for):
    track = TrackFactory(slug="paging")
    for n in range(1, 56):
        QuestionFactory(track=track, number=n, title=f"Pangolin question {n}", access="open")
    client = client_for(None)
    first = client.get("/api/v1/search/", {"q": "pangolin"})
    assert first.status_code == 200 and first["X-Total-Count"] == "55" and len(first.json()) == 50
    second = client.get("/api/v1/search/", {"q": "pangolin", "page": "2"})
    assert second["X-Total-Count"] == "55" and len(second.json()) == 5
    urls = {h["url"] for h in first.json()} | {h["url"] for h in second.json()}
    assert len(urls) == 55
    assert client.get("/api/v1/search/", {"q": "pangolin", "page": "3"}).json() == []
    for bad in ("0", "x", "-1", "1.5"):
        r = client.get("/api/v1/search/", {"q": "pangolin", "page": bad})
        assert r.status_code == 400 and "page" in r.json()["error"]["fields"], bad


def test_ranking_only_what_decides_a_page_gives_the_pages_a_full_ranking_gives(
    anonymous, monkeypatch
):
    """PostgreSQL ranks the title matches alone when they fill the pages up to the one asked
    for (the rest sort after them whatever their rank): every page, and every score shown,
    is the same as with every match ranked."""
    track = TrackFactory(slug="okapi")
    for n in range(1, 26):
        QuestionFactory(
            track=track,
            number=n,
            title=f"Okapi herd number {n}" if n % 2 else f"Field notes {n}",
            answer=" ".join(["okapi"] * (n % 5 + 1) + ["and the herd"] * (n % 3 + 1)),
            access="open",
        )
    filters = SearchFilters()

    def pages():
        return [
            [
                (h.object_id, h.score)
                for h in site_search._run("okapi herd", ("open",), filters, p, 5, False).hits
            ]
            for p in range(1, 6)
        ]

    partial = pages()
    monkeypatch.setattr(  # every match ranked, as before ranking was limited
        site_search,
        "_rank",
        lambda rows, plan, levels, _: site_search._rank_rows(
            [r for r in rows if not r.ranked], plan, levels
        ),
    )
    full = pages()
    assert partial == full and sum(len(p) for p in full) == 25
    titled = {q.pk for q in Question.objects.filter(title__startswith="Okapi")}
    assert {pk for pk, _ in full[0] + full[1]} <= titled  # 13 title matches fill pages 1-2


def test_a_word_deep_in_a_long_answer_is_quoted_for_a_reader_who_may_read_it(
    premium_user, anonymous
):
    """The snippet of a long guarded text is cut around the word, however far in it is
    (``questions.snippets`` finds it by one scan), and never for a locked reader."""
    QuestionFactory(
        title="Long notes",
        summary="A long answer.",
        answer="Filler words that say nothing. " * 200 + "The wombatine estimate is 7 ms.",
        access="premium",
    )
    [hit] = search("wombatine", user=premium_user)
    assert "<mark>wombatine</mark> estimate" in str(hit.snippet)
    assert search("wombatine", user=anonymous) == []


def test_the_catalogue_is_rebuilt_when_the_shared_cache_is_emptied(anonymous):
    """An emptied shared cache (a Redis restart) starts the content version again, and it
    can reach the number a process's catalogue was built at, with other content: the
    catalogue must not be taken for current then."""
    from django.core.cache import caches

    from questions import content_version

    first = QuestionFactory(title="Aardwolf habits", access="open")
    version = content_version.current()

    def found():
        hits = site_search._run("aardwolf", ("open",), SearchFilters(), 1, 20, False).hits
        return [h.object_id for h in hits]

    assert found() == [first.pk]
    first.delete()
    second = QuestionFactory(title="Aardwolf diet", access="open")
    for alias in ("default", "local"):
        caches[alias].clear()
    caches["default"].set(content_version.KEY, version, None)  # the same number again
    assert found() == [second.pk]
