"""Learner pages. Views adapt selectors and the access policy to templates; a locked
answer's text is never put in a template context, so no template can leak it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from django.core.cache import caches
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html

from calculators.specs import SPECS as CALCULATOR_SPECS
from inferview.access import policy
from inferview.access import selectors as access_selectors
from inferview.community import pages as community_pages
from inferview.community.practice import selectors as practice_selectors
from questions import content_version, lessons, selectors
from questions import search as site_search
from questions.markdown import plain_text, render_markdown
from questions.models import AccessLevel, Difficulty, Guide, Kind, Level, Track
from questions.rows import render_rows

from . import shared
from .cache import anonymous_page


@anonymous_page
def home(request: HttpRequest) -> HttpResponse:
    tracks = list(selectors.tracks_with_counts())
    for t in tracks:
        t.readable = access_selectors.readable_count(t, request.user)
    practice_selectors.attach_track_progress(request.user, tracks)
    # Recently published questions this visitor can read: a list of locked answers on the
    # front page reads as a paywall, not as a site to learn from.
    latest = list(
        selectors.published_questions()
        .filter(access__in=policy.readable_levels(request.user))
        .select_related("track")
        .order_by("-published_at")[:6]
    )
    access_selectors.annotate_access(request.user, latest)
    community_pages.annotate_questions(request.user, latest)
    guides = list(Guide.objects.published())
    return render(
        request,
        "questions/home.html",
        {
            "tracks": tracks,
            "latest": latest,
            "guides": guides,
            "calculators": list(CALCULATOR_SPECS.values())[:HOME_CALCULATORS],
            "calculator_count": len(CALCULATOR_SPECS),
        },
    )


def _choice(value: str, allowed: Iterable[str]) -> str:
    """A filter value from the query string, or "" when it is not one of ``allowed`` (an
    unknown or malformed value shows everything rather than failing)."""
    return value if value in set(allowed) else ""


@anonymous_page
def curriculum(request: HttpRequest) -> HttpResponse:
    """Every track and concept by category, filterable by track, concept level and access
    level (plain GET parameters, so a filtered view is a link and works without script)."""
    track_choices = list(Track.objects.published().order_by("order", "title").only("slug", "title"))
    filters = {
        "track": _choice(request.GET.get("track", ""), (t.slug for t in track_choices)),
        "level": _choice(request.GET.get("level", ""), Level.values),
        "access": _choice(request.GET.get("access", ""), AccessLevel.values),
    }
    groups = selectors.curriculum(**filters)
    for g in groups:
        for t in g.tracks:
            t.readable = access_selectors.readable_count(t, request.user)
        access_selectors.annotate_access(request.user, g.concepts)
    practice_selectors.attach_track_progress(request.user, [t for g in groups for t in g.tracks])
    return render(
        request,
        "questions/curriculum.html",
        {
            "groups": groups,
            "filters": {**filters, "active": any(filters.values())},
            "track_choices": track_choices,
            "level_choices": Level.choices,
            "access_choices": AccessLevel.choices,
            "shown_tracks": sum(len(g.tracks) for g in groups),
            "shown_concepts": sum(len(g.concepts) for g in groups),
        },
    )


TRACK_PAGE_SIZE = 50
#: Calculators the home page lists (the first in the index's order); the rest are a link away.
HOME_CALCULATORS = 6


@anonymous_page
def track(request: HttpRequest, slug: str) -> HttpResponse:
    """A track's questions, 50 to a page. Rows are rendered in Python (``questions.rows``)
    with their URL and dates prepared once (``selectors.prepare_rows``), so render time
    grows little with the page and not at all with the track."""
    track, questions = selectors.track_detail(slug)
    total, readable = selectors.track_counts(questions, policy.readable_levels(request.user))
    track.progress = practice_selectors.track_progress(request.user, track, total=total)
    # Filters are plain GET parameters (a filtered view is a link); an unknown value is
    # "any". The counts above stay the whole track's (its mastery line).
    filters = {
        "difficulty": _choice(request.GET.get("difficulty", ""), Difficulty.values),
        "kind": _choice(request.GET.get("kind", ""), Kind.values),
        "access": _choice(request.GET.get("access", ""), AccessLevel.values),
        "progress": _choice(request.GET.get("progress", ""), community_pages.PROGRESS_FILTERS)
        if request.user.is_authenticated
        else "",
    }
    shown = total
    if any(filters.values()):
        questions = questions.filter(**{k: v for k, v in filters.items() if v and k != "progress"})
        questions = community_pages.filter_by_progress(request.user, questions, filters["progress"])
        shown = questions.count()
    paginator = Paginator(questions, TRACK_PAGE_SIZE)
    paginator.count = shown  # already counted, with the readable answers
    page = paginator.get_page(request.GET.get("page"))
    rows = list(page.object_list)
    for q in rows:
        q.track = track
    access_selectors.annotate_access(request.user, rows)
    community_pages.annotate_questions(request.user, rows)  # the shown rows only
    selectors.prepare_rows(track, rows)
    tools = None
    if request.user.is_authenticated:
        tools = {
            "action": reverse("community:bookmark-toggle"),
            "csrf": get_token(request),
            "next_url": request.get_full_path(),
        }
    return render(
        request,
        "questions/track.html",
        {
            "track": track,
            "questions": rows,
            "question_count": total,
            "page_obj": page,
            "readable": readable,
            "description_html": render_markdown(track.description),
            "rows_html": render_rows(rows, tools=tools),
            "filters": {**filters, "active": any(filters.values())},
            "shown": shown,
            "difficulty_choices": Difficulty.choices,
            "kind_choices": Kind.choices,
            "access_choices": AccessLevel.choices,
            "progress_choices": list(community_pages.PROGRESS_FILTERS.items()),
        },
    )


QUESTION_SLOTS = ("tools", "practice", "fold", "keypoints", "rating", "upnext", "nextlink")


def question_parts(request: HttpRequest, data: dict[str, Any]) -> dict[str, str]:
    """A signed-in reader's own parts of a question page (``pages.shared``).

    A reader with nothing of their own on the question yet (no bookmark, progress, review
    card, difficulty vote or key-point score: a first view, mostly) gets the parts every
    such reader of the page gets, so those are rendered once per process (``_blank_key``)
    with the form-token mark in them, which ``shared.fill`` fills with this browser's."""
    personal = community_pages.question_page_personal(
        user=request.user,
        question_id=data["pk"],
        readable=data["readable"],
        key_points=bool(data["key_points"]),
        found=data["neighbours"],
        track_id=data["track_id"],
        number=data["number"],
        user_version=getattr(request, "reader_page_version", None),
    )
    blank = _blank_key(request, data, personal)
    if blank is not None:
        parts = caches["local"].get(blank)
        if parts is None:
            parts = _question_parts(request, data, personal, csrf=shared.mark("csrf"))
            caches["local"].set(blank, parts, shared.SHARED_SECONDS)
        return parts
    return _question_parts(request, data, personal)


def _blank_key(request: HttpRequest, data: dict[str, Any], personal: dict[str, Any]) -> str | None:
    """The key of the parts a reader with no state of their own on this question sees, or
    ``None`` when this reader has some. Everything else the parts show is in the key: the
    page (its path), the content version (titles of the up-next links), the question's
    vote tally, the up-next choice (which skips the reader's confident questions) and the
    rating buttons' intervals."""
    practice, tally = personal["practice"], personal["difficulty"]
    if (
        personal["is_bookmarked"]
        or practice.progress is not None
        or practice.card is not None
        or personal["key_point_score"] is not None
        or tally.mine is not None
    ):
        return None
    version = content_version.recent()
    if not version:
        return None  # the shared cache is away: nothing says when the parts go stale
    nxt = personal["next_question"]
    key = repr(
        (
            request.get_full_path(),
            version,
            data["pk"],
            data["readable"],
            data["key_points"],
            data["comments"],
            data["difficulty"],
            (tally.easier, tally.as_labelled, tally.harder),
            nxt.pk if nxt else None,
            [q.pk for q in personal["closest"]],
            sorted(practice.intervals.items()),
        )
    )
    return "page:blank-parts:v1:" + hashlib.sha256(key.encode()).hexdigest()[:32]


def _question_parts(
    request: HttpRequest, data: dict[str, Any], personal: dict[str, Any], csrf: str | None = None
) -> dict[str, str]:
    question = SimpleNamespace(pk=data["pk"], get_difficulty_display=data["difficulty"])
    context = {
        **personal,
        "question": question,
        "discussion": {"count": data["comments"]},
        "key_points": data["key_points"],
        **({"csrf_token": csrf} if csrf else {}),
    }

    def part(template: str) -> str:
        return render_to_string(template, context, request)

    practice = personal["practice"]
    nxt = personal["next_question"]
    parts = {
        "tools": part("community/_question_tools.html"),
        "upnext": part("questions/_up_next.html"),
        "nextlink": format_html('<link rel="next" href="{}">', nxt.get_absolute_url())
        if nxt
        else "",
        "practice": "",
        "fold": "",
        "keypoints": "",
        "rating": "",
    }
    if data["readable"]:
        parts["practice"] = part("community/_practice.html")
        parts["fold"] = (" open" if practice.revealed else "") + format_html(
            ' data-reveal-url="{}"', reverse("community:practice", args=[data["pk"]])
        )
        parts["keypoints"] = part("community/_key_points.html") if data["key_points"] else ""
        parts["rating"] = part("community/_recall_rating.html")
    return parts


@anonymous_page(filler=question_parts)
def question_detail(request: HttpRequest, track_slug: str, number: int, slug: str | None = None):
    """A question's page. Its identity in the URL is the slug: the number is its place in
    the track and may change, so a stale number or an old slug redirects to the same
    question's current URL, never to whichever question holds that number now."""
    question = None
    if slug is not None:
        try:
            question = selectors.question_detail(track_slug, slug)
        except Http404:
            question = None
    if question is None or question.number != number:
        target = question or selectors.question_by_old_address(
            track_slug, slug=slug, number=None if slug else number
        )
        if target is None:
            raise Http404("No such question.")
        if not (target.published and target.track.published):
            if target.published_at is None:  # a draft never shown to readers
                raise Http404("No such question.")
            return _gone(request, target)
        return HttpResponsePermanentRedirect(target.get_absolute_url())
    lock = policy.locked_reason(request.user, question)
    concepts = list(question.concepts.all())
    access_selectors.annotate_access(request.user, concepts)
    # "Learn it in": the first three published lessons, in course order, that teach this
    # question (Lesson.questions), each with the viewer's lock
    teaching = lessons.lessons_for_questions([question.pk]).get(question.pk, [])[:3]
    access_selectors.annotate_access(request.user, teaching)
    embeds = list(question.calculator_embeds.all())
    context = {
        "question": question,
        "track": question.track,
        "lock": lock,
        "body_html": render_markdown(question.body),
        "answer_html": render_markdown(question.answer) if lock is None else None,
        # gated with the answer: a locked question's key points never leave the server
        "key_points": list(question.key_points or []) if lock is None else [],
        "has_practice": bool(question.practice),
        "concepts": concepts,
        "embeds": embeds,
        # the embeds' results and worked steps are part of the answer: gated with it
        "embeds_html": _embeds_html(question, embeds) if lock is None else "",
        "meta_description": question.summary,
        # <link rel="prev"> and the "k"/"p" shortcut; "next" is up next's next in track
        "previous_question": selectors.previous_in_track(question),
        "lessons": teaching,
    }
    sort, cpage = request.GET.get("csort", "newest"), request.GET.get("cpage", 1)
    if shared.is_shared_render(request):
        # The tier's part, shared by its readers; their own state fills the slots.
        found = community_pages.question_page_shared(
            question=question, readable=lock is None, sort=sort, page=cpage
        )
        context.update(found)
        context.update(shared.context(request, QUESTION_SLOTS))
        response = render(request, "questions/detail.html", context)
        response.shared_data = {  # type: ignore[attr-defined]
            "pk": question.pk,
            "track_id": question.track_id,
            "number": question.number,
            "difficulty": question.get_difficulty_display(),
            "readable": lock is None,
            "key_points": context["key_points"],  # empty when locked: the tier's own part
            "comments": found["discussion"].count,
            "neighbours": found["neighbours"],
        }
        return response
    # Bookmark, practice, difficulty, discussion and up next (skipping confident questions).
    context.update(
        community_pages.question_page_context(
            user=request.user, question=question, readable=lock is None, sort=sort, page=cpage
        )
    )
    return render(request, "questions/detail.html", context)


def _embeds_html(question: Any, embeds: list[Any]) -> str:
    """ "Work through the numbers": each embed runs its kernel and draws its chart, the same
    for every reader, so the section is rendered once per content version and shared."""
    if not embeds:
        return ""
    return content_version.cached(
        f"q-embeds:v2:{question.pk}",
        lambda: render_to_string("calculators/_question_embeds.html", {"embeds": embeds}),
    )


def _gone(request: HttpRequest, question) -> HttpResponse:
    """410: the question existed and was withdrawn; say so and point onward."""
    return render(
        request,
        "questions/gone.html",
        {"question_track": question.track if question.track.published else None},
        status=410,
    )


CONCEPT_SLOTS = ("tools", "questions")


def concept_parts(request: HttpRequest, data: dict[str, Any]) -> dict[str, str]:
    """A signed-in reader's own parts of a concept page (``pages.shared``): the bookmark,
    and the questions that use it with the reader's bookmark and progress on each."""
    rows = data["questions"]
    counts = {q.pk: q.comment_count for q in rows}
    community_pages.annotate_questions(request.user, rows, comments=False)
    for q in rows:
        q.comment_count = counts[q.pk]  # the shared part's count, not a query
    context = {
        "concept": SimpleNamespace(pk=data["pk"]),
        "discussion": {"count": data["comments"]},
        "is_bookmarked": community_pages.concept_is_bookmarked(request.user, data["pk"]),
        "questions": rows,
    }
    return {
        "tools": render_to_string("community/_concept_tools.html", context, request),
        "questions": render_to_string("questions/_concept_questions.html", context, request),
    }


@anonymous_page(filler=concept_parts)
def concept_detail(request: HttpRequest, slug: str) -> HttpResponse:
    concept = selectors.concept_detail(slug)
    lock = policy.locked_reason(request.user, concept)
    questions = selectors.questions_for_concept(concept)
    access_selectors.annotate_access(request.user, questions)
    sort, cpage = request.GET.get("csort", "newest"), request.GET.get("cpage", 1)
    in_shared = shared.is_shared_render(request)
    if in_shared:  # the tier's part: comment counts only, the reader's state in the slots
        community_pages.annotate_questions(None, questions)
        community = community_pages.concept_page_shared(concept=concept, sort=sort, page=cpage)
    else:
        community_pages.annotate_questions(request.user, questions)
        community = community_pages.concept_page_context(
            user=request.user, concept=concept, sort=sort, page=cpage
        )
    response = render(
        request,
        "questions/concept.html",
        {
            "concept": concept,
            "lock": lock,
            "body_html": render_markdown(concept.body) if lock is None else None,
            "questions": questions,
            "meta_description": concept.summary,
            **community,
            **shared.context(request, CONCEPT_SLOTS),
        },
    )
    if in_shared:
        for q in questions:  # the rows keep what a row shows, not the texts behind it
            q.body = q.answer = ""
        response.shared_data = {  # type: ignore[attr-defined]
            "pk": concept.pk,
            "comments": community["discussion"].count,
            "questions": questions,
        }
    return response


@anonymous_page
def guide_list(request: HttpRequest) -> HttpResponse:
    return render(request, "questions/guide_list.html", {"guides": Guide.objects.published()})


@anonymous_page(filler=shared.no_parts)
def guide_detail(request: HttpRequest, slug: str) -> HttpResponse:
    guide = selectors.guide_detail(slug)
    sections = [
        (
            section,
            render_markdown(section.intro),
            [(n, item, render_markdown(item.body)) for n, item in items],
        )
        for section, items in selectors.numbered_sections(guide)
    ]
    # The concepts the guide teaches, once each in the order its sections name them
    # (already prefetched with the sections, so no query).
    concepts = list(
        {c.pk: c for section, _, _ in sections for c in section.concepts.all()}.values()
    )
    # "Lessons: ...": the lessons whose concepts meet the section's (derived, no field)
    taught = lessons.lessons_for_sections(section for section, _, _ in sections)
    for section, _, _ in sections:
        section.lessons = taught.get(section.pk, [])
    response = render(
        request,
        "questions/guide.html",
        {
            "guide": guide,
            "intro_html": render_markdown(guide.intro),
            "sections": sections,
            "concepts": concepts,
            "item_count": sum(len(items) for _, _, items in sections),
            "meta_description": plain_text(guide.summary, 160),
            **community_pages.guide_page_context(
                guide=guide, items=[(n, item) for _, _, items in sections for n, item, _ in items]
            ),
        },
    )
    if shared.is_shared_render(request):  # nothing of the reader in it: no slots
        response.shared_data = {}  # type: ignore[attr-defined]
    return response


#: Offered on the empty search page; each finds a concept first (tests/questions/test_search_ranking.py).
SEARCH_EXAMPLES = (
    "KV cache",
    "paged attention",
    "roofline",
    "tensor parallelism",
    "speculative decoding",
)


@anonymous_page(filler=shared.no_parts)
def search(request: HttpRequest) -> HttpResponse:
    """Search page: one page of 20 ranked hits, the total and a count per kind, a correction
    for a misspelt query, and snippets cut only from text this viewer may read. Nothing on
    it is the reader's own, so a signed-in reader gets their tier's shared part."""
    # echoed in the page's shared part, so never with a mark's characters
    text = shared.strip_marks(request.GET.get("q", "")).strip()
    filters = site_search.SearchFilters.from_params(request.GET)
    try:
        page = int(request.GET.get("page", "1"))
    except ValueError:
        page = 1

    def render_hits(results: site_search.SearchResults) -> str:
        # once per query, tier and page: the lock badges depend on the tier alone
        questions = [h for h in results.hits if h.type == "question"]  # each has .access
        access_selectors.annotate_access(request.user, questions)
        badges: dict[tuple[Any, ...], str] = {}  # a page holds a few distinct badge rows
        for hit in questions:
            key = (hit.difficulty, hit.is_new, hit.lock_label, hit.viewer_can_read)  # type: ignore[attr-defined]
            if key not in badges:
                badges[key] = render_to_string("questions/_badges.html", {"q": hit})
            hit.badges = badges[key]
        return render_to_string("questions/_search_hits.html", {"r": results})

    results = (
        site_search.run(
            text,
            levels=policy.readable_levels(request.user),
            filters=filters,
            page=page,
            render=render_hits,
            render_name="page:v1",
        )
        if text
        else None
    )
    response = render(
        request,
        "questions/search.html",
        {
            "q": text,
            "filters": filters,
            "results": results,
            "tracks": site_search.track_choices(),  # from search's catalogue: no query
            "difficulties": Difficulty.choices,
            "kinds": Kind.choices,
            "types": list(site_search.TYPE_LABELS.items()),
            "search_examples": SEARCH_EXAMPLES,
            **shared.context(request),
        },
    )
    if shared.is_shared_render(request):
        response.shared_data = {}  # type: ignore[attr-defined]
    return response
