"""What the community templates need on content pages and lists, composed from the
concern modules in a fixed number of queries."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from inferview.community.common import signed_in
from inferview.community.corrections.models import CorrectionKind, TargetType
from inferview.community.corrections.selectors import what_changed, what_changed_in_guide
from inferview.community.discovery import Neighbours, neighbours, up_next
from inferview.community.discussion.selectors import (
    discussion,
    visible_comments,
)
from inferview.community.practice.key_points import last_key_points
from inferview.community.practice.selectors import (
    DifficultyTally,
    Practice,
    difficulty_tally,
)
from questions.models import Concept, Guide, GuideItem, Question

from . import scheduling
from .models import (
    Bookmark,
    DifficultyFelt,
    DifficultyVote,
    KeyPointScore,
    Progress,
    ProgressStatus,
    Rating,
    ReviewCard,
)

# What each recall rating does besides scheduling, said on its button (review_rate).
RATING_EFFECTS = {
    Rating.AGAIN: "keeps it Attempted",
    Rating.HARD: "keeps it Attempted",
    Rating.GOOD: "marks it Confident",
    Rating.EASY: "marks it Confident",
}


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
    if signed_in(user) and ids:
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


PROGRESS_FILTERS = {
    "not_started": "Not started",
    "attempted": "Attempted",
    "confident": "Confident",
    "due": "Due for review",
}


def filter_by_progress(user: Any, questions: Any, progress: str) -> Any:
    """``questions`` narrowed to the learner's progress (signed out: unchanged)."""
    if not signed_in(user) or progress not in PROGRESS_FILTERS:
        return questions
    if progress == "due":
        due = ReviewCard.objects.filter(user=user, due__lte=timezone.now())
        return questions.filter(pk__in=due.values("question_id"))
    mine = Progress.objects.filter(user=user)
    if progress == "not_started":
        return questions.exclude(pk__in=mine.values("question_id"))
    return questions.filter(pk__in=mine.filter(status=progress).values("question_id"))


def question_page_context(
    *, user: Any, question: Question, readable: bool, sort: str = "newest", page: Any = 1
) -> dict[str, Any]:
    """Everything the community templates need on a question page, in a fixed query count."""
    is_signed_in = signed_in(user)
    bookmarked = is_signed_in and Bookmark.objects.filter(user=user, question=question).exists()
    progress = (
        Progress.objects.filter(user=user, question=question).first() if is_signed_in else None
    )
    card = ReviewCard.objects.filter(user=user, question=question).first() if is_signed_in else None
    practice = Practice(signed_in=is_signed_in, readable=readable, progress=progress, card=card)
    if is_signed_in and readable:
        # The rating sits inside the folded answer, so its intervals are needed before
        # the reveal too (the fold opens without a round trip).
        practice.intervals = scheduling.preview_intervals(card=card)
    next_question, closest = up_next(question, user)
    # the last scoring shows in the key points box, ticks kept (one query, only when the
    # learner may read the points)
    key_point_score = (
        last_key_points(user=user, question=question)
        if is_signed_in and readable and question.key_points
        else None
    )
    return {
        "key_point_score": key_point_score,
        "key_points_made": set(key_point_score.made) if key_point_score else set(),
        "is_bookmarked": bookmarked,
        "practice": practice,
        "rating_choices": [
            (value, label, practice.intervals.get(value), RATING_EFFECTS[value])
            for value, label in Rating.choices
        ],
        "difficulty": difficulty_tally(question, user),
        "discussion": discussion(question=question, sort=sort, page=page),
        "next_question": next_question,
        "closest": closest,
        **_corrections(TargetType.QUESTION, question.pk, what_changed(question=question)),
    }


def question_page_shared(
    *, question: Question, readable: bool, sort: str = "newest", page: Any = 1
) -> dict[str, Any]:
    """The community parts of a question page that are the same for every reader of a
    tier (the discussion, "What changed", the report form, the up-next candidates): what
    ``question_page_context`` gives, less the reader's own state."""
    return {
        "discussion": discussion(question=question, sort=sort, page=page),
        "practice": Practice(signed_in=True, readable=readable, progress=None, card=None),
        "neighbours": neighbours(question),
        **_corrections(TargetType.QUESTION, question.pk, what_changed(question=question)),
    }


def question_page_personal(
    *,
    user: Any,
    question_id: int,
    readable: bool,
    key_points: bool,
    found: Neighbours,
    track_id: int,
    number: int,
) -> dict[str, Any]:
    """One reader's state on a question page, for the slots of its shared part.

    One query reads it all as subqueries of the reader's row, each on an index: the
    bookmark, the ids of the reader's progress and review card, their difficulty vote and
    the tally, their last key-point score, and which up-next candidates they are confident
    in. The progress and card rows are then read only if they exist (a new reader: one
    query in all; the most, three)."""
    mine = {"user_id": OuterRef("pk"), "question_id": question_id}
    votes = DifficultyVote.objects.filter(question_id=question_id)
    wanted: dict[str, Any] = {
        "bookmarked": Exists(Bookmark.objects.filter(**mine)),
        "progress_id": Subquery(Progress.objects.filter(**mine).values("pk")[:1]),
        "card_id": Subquery(ReviewCard.objects.filter(**mine).values("pk")[:1]),
        "felt": Subquery(DifficultyVote.objects.filter(**mine).values("felt")[:1]),
    }
    for value in DifficultyFelt.values:
        wanted[f"n_{value}"] = Coalesce(
            Subquery(
                votes.filter(felt=value)
                .values("question_id")
                .annotate(n=Count("id"))
                .values("n")[:1]
            ),
            0,
        )
    if key_points and readable:
        scores = KeyPointScore.objects.filter(**mine)  # newest first (Meta.ordering)
        wanted["kp_made"] = Subquery(scores.values("made")[:1])
        wanted["kp_total"] = Subquery(scores.values("total")[:1])
    candidates = [q.pk for q in found.following] + [q.pk for q in found.closest]
    confident = Progress.objects.filter(user_id=OuterRef("pk"), status=ProgressStatus.CONFIDENT)
    for pk in dict.fromkeys(candidates):
        wanted[f"confident_{pk}"] = Exists(confident.filter(question_id=pk))
    reader = get_user_model().objects.filter(pk=user.pk)
    row = reader.annotate(**wanted).values(*wanted).first() or {}
    progress = (
        Progress.objects.filter(pk=row["progress_id"]).first() if row.get("progress_id") else None
    )
    card = ReviewCard.objects.filter(pk=row["card_id"]).first() if row.get("card_id") else None
    made = row.get("kp_made")
    if isinstance(made, str):  # a JSON column read through a subquery on SQLite
        made = json.loads(made)
    key_point_score = (
        SimpleNamespace(made=made, total=row.get("kp_total")) if made is not None else None
    )
    practice = Practice(signed_in=True, readable=readable, progress=progress, card=card)
    if readable:
        practice.intervals = scheduling.preview_intervals(card=card)
    tally = DifficultyTally(mine=row.get("felt"))
    for value in DifficultyFelt.values:
        setattr(tally, value, row.get(f"n_{value}", 0))
    skip = {pk for pk in candidates if row.get(f"confident_{pk}")}
    stub = Question(pk=question_id, track_id=track_id, number=number)  # no row read
    next_question, closest = up_next(stub, user, found=found, skip=skip)
    return {
        "key_point_score": key_point_score,
        "key_points_made": set(key_point_score.made) if key_point_score else set(),
        "is_bookmarked": bool(row.get("bookmarked")),
        "practice": practice,
        "rating_choices": [
            (value, label, practice.intervals.get(value), RATING_EFFECTS[value])
            for value, label in Rating.choices
        ],
        "difficulty": tally,
        "next_question": next_question,
        "closest": closest,
    }


def _corrections(target_type: str, target_id: int | None, changes: list) -> dict[str, Any]:
    """ "What changed" and the "Report a mistake" form's target."""
    return {
        "what_changed": changes,
        "correction_target_type": target_type,
        "correction_target_id": target_id,
        "correction_kinds": CorrectionKind.choices,
    }


def guide_page_context(*, guide: Guide, items: list[tuple[int, GuideItem]]) -> dict[str, Any]:
    """A guide's "What changed" and its report form, which asks which item (numbered as on
    the page)."""
    numbers = {item.pk: n for n, item in items}
    return {
        **_corrections(
            TargetType.GUIDE_ITEM, None, what_changed_in_guide(guide=guide, numbers=numbers)
        ),
        "correction_items": items,
    }


def concept_page_context(
    *, user: Any, concept: Concept, sort: str = "newest", page: Any = 1
) -> dict[str, Any]:
    is_signed_in = signed_in(user)
    return {
        "is_bookmarked": is_signed_in
        and Bookmark.objects.filter(user=user, concept=concept).exists(),
        "discussion": discussion(concept=concept, sort=sort, page=page),
        **_corrections(TargetType.CONCEPT, concept.pk, what_changed(concept=concept)),
    }
