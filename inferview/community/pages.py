"""What the community templates need on content pages and lists, composed from the
concern modules in a fixed number of queries."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from django.db import connection
from django.db.models import Count
from django.utils import timezone

from inferview.community.common import db_table, signed_in
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
from inferview.prepared import prepared_cursor
from questions.models import Concept, Guide, GuideItem, Question

from . import reader_summary, scheduling
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
    user_version: Any = None,
) -> dict[str, Any]:
    """One reader's state on a question page, for the slots of its shared part: one query
    (``_reader_state``), then their progress and card rows only if they exist (the most,
    three). A reader with nothing of their own on the question, known from their summary
    under their page version ``user_version`` (``reader_summary``), runs none."""
    candidates = list(dict.fromkeys([q.pk for q in found.following + found.closest]))
    blank = reader_summary.blank_state(
        user_pk=user.pk, user_version=user_version, question_id=question_id
    )
    if blank is not None:
        counts, confident = blank
        row: dict[str, Any] = {
            "bookmarked": False,
            "progress_id": None,
            "card_id": None,
            "felt": None,
            **{f"n_{felt}": n for felt, n in counts.items()},
            "confident": sum(1 << bit for bit, pk in enumerate(candidates) if pk in confident),
        }
    else:
        row = _reader_state(
            user_pk=user.pk,
            question_id=question_id,
            key_points=key_points and readable,
            candidates=candidates,
        )
    progress = (
        Progress.objects.filter(pk=row["progress_id"]).first() if row.get("progress_id") else None
    )
    card = ReviewCard.objects.filter(pk=row["card_id"]).first() if row.get("card_id") else None
    made = row.get("kp_made")
    if isinstance(made, str):  # a JSON column read by plain SQL arrives as its text
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
    skip = {pk for bit, pk in enumerate(candidates) if row["confident"] >> bit & 1}
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


def _reader_state(
    *, user_pk: int, question_id: int, key_points: bool, candidates: list[int]
) -> dict[str, Any]:
    """In one round trip, each part on an index: the bookmark, the ids of the reader's
    progress and review card, their difficulty vote and the question's tally, their last
    key-point score, and which up-next ``candidates`` they are confident in (a bit per
    candidate, in order). Plain SQL that runs alike on PostgreSQL and SQLite: built by the
    ORM, its twenty subqueries cost more to compile than the page costs to fill."""
    felts = list(DifficultyFelt.values)
    mine = "WHERE user_id = %s AND question_id = %s"
    columns = [
        f"EXISTS (SELECT 1 FROM {db_table(Bookmark)} {mine})",
        f"(SELECT id FROM {db_table(Progress)} {mine} LIMIT 1)",
        f"(SELECT id FROM {db_table(ReviewCard)} {mine} LIMIT 1)",
        f"(SELECT felt FROM {db_table(DifficultyVote)} {mine} LIMIT 1)",
        *[
            f"(SELECT COUNT(*) FROM {db_table(DifficultyVote)} WHERE question_id = %s AND felt = %s)"
            for _ in felts
        ],
    ]
    params: list[Any] = [user_pk, question_id] * 4
    for felt in felts:
        params += [question_id, felt]
    if key_points:
        newest = f"FROM {db_table(KeyPointScore)} {mine} ORDER BY created_at DESC, id DESC LIMIT 1"
        columns += [f"(SELECT made {newest})", f"(SELECT total {newest})"]
        params += [user_pk, question_id] * 2
    if candidates:
        # A bit per candidate, in order (at most discovery.FOLLOWING + KEPT, 30: they fit).
        ids = [int(pk) for pk in candidates]
        if connection.vendor == "postgresql":
            # The ids as one array parameter, so every question page runs the same text:
            # prepared once per connection (``inferview.prepared``).
            columns.append(
                "(SELECT COALESCE(SUM(1::bigint << (array_position(%s::bigint[], question_id) - 1)), 0)"
                f" FROM {db_table(Progress)} WHERE user_id = %s AND status = %s"
                " AND question_id = ANY(%s::bigint[]))"
            )
            params += [ids, user_pk, ProgressStatus.CONFIDENT.value, ids]
        else:
            # SQLite: the ids written into the SQL as integer literals (from the database,
            # never from the request); as parameters, thirty of them are sixty.
            bits = " ".join(f"WHEN {pk} THEN {1 << bit}" for bit, pk in enumerate(ids))
            in_list = ", ".join(str(pk) for pk in ids)
            columns.append(
                f"(SELECT COALESCE(SUM(CASE question_id {bits} ELSE 0 END), 0)"
                f" FROM {db_table(Progress)} WHERE user_id = %s AND status = %s"
                f" AND question_id IN ({in_list}))"
            )
            params += [user_pk, ProgressStatus.CONFIDENT.value]
    with prepared_cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(columns), params)
        found = list(cursor.fetchone())
    row: dict[str, Any] = {
        "bookmarked": bool(found[0]),
        "progress_id": found[1],
        "card_id": found[2],
        "felt": found[3],
        **{f"n_{felt}": int(found[4 + i] or 0) for i, felt in enumerate(felts)},
    }
    rest = found[4 + len(felts) :]
    if key_points:
        row["kp_made"], row["kp_total"] = rest[0], rest[1]
        rest = rest[2:]
    row["confident"] = int(rest[0]) if candidates else 0
    return row


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


def concept_page_shared(*, concept: Concept, sort: str = "newest", page: Any = 1) -> dict[str, Any]:
    """The community parts of a concept page that are the same for every reader of a tier
    (``concept_page_context`` less the reader's bookmark)."""
    return {
        "discussion": discussion(concept=concept, sort=sort, page=page),
        **_corrections(TargetType.CONCEPT, concept.pk, what_changed(concept=concept)),
    }


def concept_is_bookmarked(user: Any, concept_id: int) -> bool:
    return Bookmark.objects.filter(user=user, concept_id=concept_id).exists()


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
