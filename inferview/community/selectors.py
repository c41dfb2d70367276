"""Reads for bookmarks, progress, reviews, discussion and up next.

Each function runs a fixed number of queries whatever the number of items, comments or
bookmarks: per-item state is fetched for all items at once and attached in Python.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from questions import selectors as question_selectors
from questions.models import Concept, Question, QuestionSimilarity, Track

from . import scheduling
from .models import (
    Attempt,
    Bookmark,
    Comment,
    DifficultyFelt,
    DifficultyVote,
    Progress,
    ProgressStatus,
    Rating,
    ReviewCard,
)

COMMENTS_PER_PAGE = 20
SORTS = {"newest": ("-created_at", "-id"), "oldest": ("created_at", "id")}


def _signed_in(user: Any) -> bool:
    return bool(user is not None and user.is_authenticated)


def visible_comments() -> QuerySet[Comment]:
    return Comment.objects.filter(deleted_at__isnull=True, hidden_at__isnull=True)


def reportable_comments() -> QuerySet[Comment]:
    """Comments a learner may see and so report: visible, on a published question or concept.

    A comment id is guessable; looking it up anywhere else would show a draft's title, or
    let a hidden comment be reported again after a moderator dealt with it.
    """
    return visible_comments().filter(
        Q(question__published=True, question__track__published=True) | Q(concept__published=True)
    )


# --- Per-item state for lists --------------------------------------------------------------


def annotate_questions(
    user: Any,
    questions: list[Question],
    *,
    comments: bool = True,
    bookmarked: set[int] | None = None,
) -> None:
    """Attach ``is_bookmarked``, ``progress_status`` and ``comment_count`` to each question.

    Three queries at most for any number of questions (none for the user's state when
    signed out). A caller that already knows the bookmarked ids passes ``bookmarked``.
    """
    ids = [q.pk for q in questions]
    statuses: dict[int, str] = {}
    if _signed_in(user) and ids:
        if bookmarked is None:
            bookmarked = set(
                Bookmark.objects.filter(user=user, question_id__in=ids).values_list(
                    "question_id", flat=True
                )
            )
        statuses = dict(
            Progress.objects.filter(user=user, question_id__in=ids).values_list(
                "question_id", "status"
            )
        )
    counts: dict[int, int] = {}
    if comments and ids:
        counts = dict(
            visible_comments()
            .filter(question_id__in=ids)
            .values("question_id")
            .annotate(n=Count("id"))
            .values_list("question_id", "n")
        )
    for q in questions:
        q.community_state = True  # templates show per-row tools only on annotated lists
        q.is_bookmarked = q.pk in (bookmarked or ())
        q.progress_status = statuses.get(q.pk, ProgressStatus.NOT_STARTED)
        q.comment_count = counts.get(q.pk, 0)


@dataclass
class TrackProgress:
    total: int
    attempted: int = 0
    confident: int = 0

    @property
    def confident_percent(self) -> int:
        return round(100 * self.confident / self.total) if self.total else 0

    @property
    def attempted_percent(self) -> int:
        return round(100 * self.attempted / self.total) if self.total else 0


def progress_by_track(user: Any) -> dict[int, dict[str, int]]:
    """``{track_id: {"attempted": n, "confident": n}}`` for a learner, in one query."""
    if not _signed_in(user):
        return {}
    rows = (
        Progress.objects.filter(user=user, question__published=True)
        .values("question__track_id")
        .annotate(
            attempted=Count("id", filter=Q(status=ProgressStatus.ATTEMPTED)),
            confident=Count("id", filter=Q(status=ProgressStatus.CONFIDENT)),
        )
    )
    return {
        r["question__track_id"]: {"attempted": r["attempted"], "confident": r["confident"]}
        for r in rows
    }


def attach_track_progress(user: Any, tracks: Iterable[Track]) -> None:
    """Set ``track.progress`` (a ``TrackProgress``, or ``None`` when signed out)."""
    if not _signed_in(user):
        for t in tracks:
            t.progress = None
        return
    by_track = progress_by_track(user)
    for t in tracks:
        t.progress = TrackProgress(total=t.question_count, **by_track.get(t.pk, {}))


def track_progress(user: Any, track: Any, *, total: int) -> TrackProgress | None:
    """A track's progress in one grouped query, without loading its questions' state: the
    track page annotates only the rows it shows."""
    if not _signed_in(user):
        return None
    counts = dict(
        Progress.objects.filter(user=user, question__track=track, question__published=True)
        .values_list("status")
        .annotate(n=Count("id"))
        .values_list("status", "n")
    )
    return TrackProgress(
        total=total,
        attempted=counts.get(ProgressStatus.ATTEMPTED, 0),
        confident=counts.get(ProgressStatus.CONFIDENT, 0),
    )


# --- Discussion -----------------------------------------------------------------------------


@dataclass
class Discussion:
    target: Question | Concept
    target_kind: str  # "question" or "concept"
    count: int  # visible comments, replies included
    sort: str
    number: int  # this page
    num_pages: int
    threads: list[Comment] = field(default_factory=list)

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def previous_page_number(self) -> int:
        return self.number - 1

    @property
    def next_page_number(self) -> int:
        return self.number + 1


def _page_number(page: Any, num_pages: int) -> int:
    try:
        number = int(page)
    except (TypeError, ValueError):
        number = 1
    return min(max(number, 1), num_pages)


def discussion(
    *,
    question: Question | None = None,
    concept: Concept | None = None,
    sort: str = "newest",
    page: int | str = 1,
    per_page: int = COMMENTS_PER_PAGE,
) -> Discussion:
    """One page of top-level comments with their replies: three queries for any size,
    including none at all (so a page's query count does not move with its comments).

    A deleted or hidden top-level comment stays only while it has visible replies, shown
    as a placeholder so the replies keep their context.
    """
    target = {"question": question} if question is not None else {"concept": concept}
    sort = sort if sort in SORTS else "newest"
    live = Q(deleted_at__isnull=True, hidden_at__isnull=True)
    shown_top = Q(parent__isnull=True) & (
        live | Exists(visible_comments().filter(parent=OuterRef("pk")))
    )
    totals = Comment.objects.filter(**target).aggregate(
        visible=Count("id", filter=live), threads=Count("id", filter=shown_top)
    )
    num_pages = max(1, -(-totals["threads"] // per_page))
    number = _page_number(page, num_pages)
    offset = (number - 1) * per_page
    top = Comment.objects.filter(shown_top, **target).order_by(*SORTS[sort])
    threads = list(top.select_related("author")[offset : offset + per_page])
    # Replies by subquery rather than prefetch, so the query runs even for an empty page.
    replies = (
        Comment.objects.filter(parent__in=top[offset : offset + per_page].values("pk"))
        .select_related("author")
        .order_by("created_at", "id")
    )
    by_parent: dict[int, list[Comment]] = {}
    for reply in replies:
        by_parent.setdefault(reply.parent_id, []).append(reply)  # type: ignore[arg-type]
    for thread in threads:
        thread.thread_replies = by_parent.get(thread.pk, [])
    return Discussion(
        target=question or concept,  # type: ignore[arg-type]
        target_kind="question" if question is not None else "concept",
        count=totals["visible"],
        sort=sort,
        number=number,
        num_pages=num_pages,
        threads=threads,
    )


# --- Difficulty -----------------------------------------------------------------------------


@dataclass
class DifficultyTally:
    easier: int = 0
    as_labelled: int = 0
    harder: int = 0
    mine: str | None = None

    @property
    def total(self) -> int:
        return self.easier + self.as_labelled + self.harder

    def rows(self) -> list[tuple[str, str, int]]:
        return [(value, label, getattr(self, value)) for value, label in DifficultyFelt.choices]


def difficulty_tally(question: Question, user: Any = None) -> DifficultyTally:
    """The votes on ``question`` and the viewer's own, in one query."""
    mine = Q(user=user) if _signed_in(user) else Q(pk__in=[])
    rows = (
        DifficultyVote.objects.filter(question=question)
        .values("felt")
        .annotate(n=Count("id"), mine=Count("id", filter=mine))
    )
    tally = DifficultyTally()
    for row in rows:
        setattr(tally, row["felt"], row["n"])
        if row["mine"]:
            tally.mine = row["felt"]
    return tally


# --- Up next --------------------------------------------------------------------------------


def confident_question_ids(user: Any) -> QuerySet:
    """A subquery of the learner's confident questions (empty, and never run, signed out)."""
    if not _signed_in(user):
        return Progress.objects.none().values("question_id")
    return Progress.objects.filter(user=user, status=ProgressStatus.CONFIDENT).values("question_id")


def up_next(
    question: Question, user: Any, *, limit: int = 3, pool: int = 50
) -> tuple[Question | None, list[Question]]:
    """Next in the track, and the closest questions elsewhere, skipping confident ones.

    "Closest" ranks by shared concepts first and TF-IDF cosine second; the cosine was
    precomputed by the ``questions.recompute_similarity`` task and is only read here. A
    question sharing no concept can still appear, below every one that shares some.
    Three queries: next in track, the stored neighbours, and one candidate query.
    """
    skip = confident_question_ids(user)
    nxt = question_selectors.next_in_track(question, exclude=skip)
    row = (
        QuestionSimilarity.objects.filter(question=question)
        .values_list("neighbours", flat=True)
        .first()
    )
    cosine = {int(qid): float(score) for qid, score in (row or [])}
    concept_ids = [c.pk for c in question.concepts.all()]
    if not concept_ids and not cosine:
        return nxt, []
    links = Question.concepts.through.objects.filter(concept_id__in=concept_ids)
    shared = Subquery(
        links.filter(question_id=OuterRef("pk"))
        .values("question_id")
        .annotate(n=Count("id"))
        .values("n")[:1]
    )
    candidates = (
        question_selectors.published_questions()
        .filter(Q(pk__in=links.values("question_id")) | Q(pk__in=list(cosine)))
        .exclude(pk=question.pk)
        .exclude(pk__in=skip)
        .annotate(shared=Coalesce(shared, 0))
        .select_related("track")
        .order_by("-shared", "track__order", "number")
    )
    if nxt is not None:
        candidates = candidates.exclude(pk=nxt.pk)
    found = list(candidates[:pool])
    for q in found:
        q.text_similarity = cosine.get(q.pk, 0.0)
    found.sort(key=lambda q: (-q.shared, -q.text_similarity, q.track.order, q.number))
    return nxt, found[:limit]


# --- Page contexts --------------------------------------------------------------------------


@dataclass
class Practice:
    signed_in: bool
    readable: bool
    progress: Progress | None
    card: ReviewCard | None
    intervals: dict[int, dt.timedelta] = field(default_factory=dict)

    @property
    def revealed(self) -> bool:
        return bool(self.progress and self.progress.revealed_at)

    @property
    def hide_answer(self) -> bool:
        # Only a signed-in learner practises; everyone else simply reads the answer.
        return self.signed_in and self.readable and not self.revealed

    @property
    def status(self) -> str:
        return self.progress.status if self.progress else ProgressStatus.NOT_STARTED

    @property
    def status_label(self) -> str:
        return ProgressStatus(self.status).label


def question_page_context(
    *, user: Any, question: Question, readable: bool, sort: str = "newest", page: Any = 1
) -> dict[str, Any]:
    """Everything the community templates need on a question page, in a fixed query count."""
    signed_in = _signed_in(user)
    bookmarked = signed_in and Bookmark.objects.filter(user=user, question=question).exists()
    progress = Progress.objects.filter(user=user, question=question).first() if signed_in else None
    card = ReviewCard.objects.filter(user=user, question=question).first() if signed_in else None
    practice = Practice(signed_in=signed_in, readable=readable, progress=progress, card=card)
    if signed_in and readable and practice.revealed:
        practice.intervals = scheduling.preview_intervals(card=card)
    next_question, closest = up_next(question, user)
    return {
        "is_bookmarked": bookmarked,
        "practice": practice,
        "rating_choices": [
            (value, label, practice.intervals.get(value)) for value, label in Rating.choices
        ],
        "difficulty": difficulty_tally(question, user),
        "discussion": discussion(question=question, sort=sort, page=page),
        "next_question": next_question,
        "closest": closest,
    }


def concept_page_context(
    *, user: Any, concept: Concept, sort: str = "newest", page: Any = 1
) -> dict[str, Any]:
    signed_in = _signed_in(user)
    return {
        "is_bookmarked": signed_in and Bookmark.objects.filter(user=user, concept=concept).exists(),
        "discussion": discussion(concept=concept, sort=sort, page=page),
    }


# --- Personal pages -------------------------------------------------------------------------


def _visible_bookmarks(user: Any):
    """A learner's bookmarks on content that is still published (a draft drops out)."""
    return Bookmark.objects.filter(user=user).filter(
        Q(question__published=True, question__track__published=True) | Q(concept__published=True)
    )


def bookmarks_for(user: Any) -> list[Bookmark]:
    return list(
        _visible_bookmarks(user)
        .select_related("question__track", "concept")
        .order_by("-created_at", "-id")
    )


def bookmark_count(user: Any) -> int:
    return _visible_bookmarks(user).count() if _signed_in(user) else 0


def reviews_for(
    user: Any, *, now: dt.datetime | None = None, upcoming: int = 20
) -> tuple[list[ReviewCard], list[ReviewCard]]:
    """(due now, coming up next) review cards on published questions."""
    now = now or timezone.now()
    base = ReviewCard.objects.filter(
        user=user, question__published=True, question__track__published=True
    ).select_related("question__track")
    due = list(base.filter(due__lte=now).order_by("due"))
    later = list(base.filter(due__gt=now).order_by("due")[:upcoming])
    return due, later


def recent_comments(user: Any, *, limit: int = 10) -> list[Comment]:
    """The learner's latest comments, each with ``excerpt``: plain text from the Markdown
    source (escaped once by the template, so "<b>" reads as "<b>", not "&lt;b&gt;")."""
    from questions.markdown import plain_text

    comments = list(
        Comment.objects.filter(author=user, deleted_at__isnull=True)
        .select_related("author", "question__track", "concept")
        .order_by("-created_at", "-id")[:limit]
    )
    for c in comments:
        c.excerpt = plain_text(c.body, 120)
    return comments


def recent_attempts(user: Any, *, limit: int = 10) -> list[Attempt]:
    return list(
        Attempt.objects.filter(user=user)
        .select_related("question__track")
        .order_by("-reviewed_at", "-id")[:limit]
    )


def dashboard(user: Any, *, now: dt.datetime | None = None) -> dict[str, Any]:
    tracks = list(question_selectors.tracks_with_counts())
    attach_track_progress(user, tracks)
    due, later = reviews_for(user, now=now)
    return {
        "tracks": tracks,
        "due": due,
        "upcoming": later,
        "bookmarks": bookmarks_for(user),
        "comments": recent_comments(user),
        "attempts": recent_attempts(user),
    }
