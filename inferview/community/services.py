"""Writes for bookmarks, practice and review, discussion and difficulty votes.

Every function is keyword-only, atomic, and raises ``django.core.exceptions``'
``ValidationError`` (with field names) or ``PermissionDenied``; the HTML views and the
API turn those into field errors and status codes.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import fsrs
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from inferview.access import policy
from questions.markdown import render_untrusted_markdown
from questions.models import Concept, Question

from . import scheduling
from .models import (
    Attempt,
    Bookmark,
    Comment,
    CommentReport,
    DifficultyFelt,
    DifficultyVote,
    Progress,
    ProgressStatus,
    Rating,
    ReviewCard,
)

COMMENT_MAX_LENGTH = 5000
APPROACH_MAX_LENGTH = 20000


def _require_user(user: Any) -> None:
    if user is None or not user.is_authenticated:
        raise PermissionDenied("Sign in first.")


def _target_kwargs(question: Question | None, concept: Concept | None) -> dict[str, Any]:
    if (question is None) == (concept is None):
        raise ValueError("Pass exactly one of question or concept.")
    return {"question": question} if question is not None else {"concept": concept}


# --- Bookmarks ---------------------------------------------------------------------------


@transaction.atomic
def bookmark_toggle(
    *, user: Any, question: Question | None = None, concept: Concept | None = None
) -> bool:
    """Bookmark the item, or remove the bookmark if there is one. Returns the new state."""
    _require_user(user)
    target = _target_kwargs(question, concept)
    deleted, _ = Bookmark.objects.filter(user=user, **target).delete()
    if deleted:
        return False
    try:
        # A savepoint, so a double-click racing this one leaves the outer transaction usable.
        with transaction.atomic():
            Bookmark.objects.create(user=user, **target)
    except IntegrityError:
        pass  # the other request created it; the state the user asked for holds
    return True


# --- Practice and review -----------------------------------------------------------------


def _progress_for_update(user: Any, question: Question) -> Progress:
    progress, _ = Progress.objects.select_for_update().get_or_create(user=user, question=question)
    return progress


@transaction.atomic
def approach_save(
    *,
    user: Any,
    question: Question,
    text: str,
    reveal: bool = False,
    now: dt.datetime | None = None,
) -> Progress:
    """Save the learner's own approach (private to them); optionally reveal the answer.

    Saving marks the question attempted. Revealing needs read access to the answer, so a
    learner cannot mark a locked answer as seen.
    """
    _require_user(user)
    text = (text or "").strip()
    if len(text) > APPROACH_MAX_LENGTH:
        raise ValidationError(
            {"approach": f"Keep your approach under {APPROACH_MAX_LENGTH:,} characters."}
        )
    if reveal and not policy.can_read(user, question):
        raise PermissionDenied("Your plan does not include this answer.")
    now = now or timezone.now()
    progress = _progress_for_update(user, question)
    if text != progress.approach:
        progress.approach = text
        progress.approach_updated_at = now
    if reveal and progress.revealed_at is None:
        progress.revealed_at = now
    progress.save()
    return progress


@transaction.atomic
def review_rate(
    *, user: Any, question: Question, rating: int, now: dt.datetime | None = None
) -> ReviewCard:
    """Record how well the learner recalled the answer and schedule the next review.

    Good and Easy mark the question confident; Again and Hard leave it attempted, so a
    question the learner struggled with stays in "Up next".
    """
    _require_user(user)
    if rating not in Rating.values:
        raise ValidationError({"rating": "Choose again, hard, good or easy."})
    if not policy.can_read(user, question):
        raise PermissionDenied("Your plan does not include this answer.")
    now = now or timezone.now()
    # get_or_create, not "select, then insert if missing": locking a row that does not
    # exist yet locks nothing, so two first ratings at once both inserted and the second
    # hit the unique constraint (a 500). get_or_create re-reads after losing that race.
    card, _ = ReviewCard.objects.select_for_update().get_or_create(
        user=user, question=question, defaults={"due": now}
    )
    updated, _log = scheduling.scheduler().review_card(
        scheduling.card_to_fsrs(card), fsrs.Rating(rating), review_datetime=now
    )
    card.state = int(updated.state)
    card.step = updated.step
    card.stability = updated.stability
    card.difficulty = updated.difficulty
    card.due = updated.due
    card.last_review = updated.last_review
    card.reps += 1
    card.last_rating = rating
    card.save()
    Attempt.objects.create(
        user=user, question=question, rating=rating, reviewed_at=now, due_after=card.due
    )
    progress = _progress_for_update(user, question)
    progress.status = (
        ProgressStatus.CONFIDENT if rating >= Rating.GOOD else ProgressStatus.ATTEMPTED
    )
    if progress.revealed_at is None:
        progress.revealed_at = now
    progress.save()
    return card


@transaction.atomic
def progress_set(*, user: Any, question: Question, status: str) -> Progress | None:
    """Set progress by hand ("I'm confident" / "start over"); not started deletes the row."""
    _require_user(user)
    if status not in ProgressStatus.values:
        raise ValidationError({"status": "Choose not started, attempted or confident."})
    if status == ProgressStatus.NOT_STARTED:
        Progress.objects.filter(user=user, question=question).delete()
        ReviewCard.objects.filter(user=user, question=question).delete()
        return None
    progress = _progress_for_update(user, question)
    progress.status = status
    progress.save()
    return progress


# --- Difficulty ---------------------------------------------------------------------------


@transaction.atomic
def difficulty_vote(*, user: Any, question: Question, felt: str) -> DifficultyVote:
    _require_user(user)
    if felt not in DifficultyFelt.values:
        raise ValidationError({"felt": "Choose easier, as labelled or harder."})
    vote, _ = DifficultyVote.objects.update_or_create(
        user=user, question=question, defaults={"felt": felt}
    )
    return vote


# --- Discussion ---------------------------------------------------------------------------


def _clean_body(body: str) -> str:
    body = (body or "").strip()
    if not body:
        raise ValidationError({"body": "Write something first."})
    if "\x00" in body:
        # PostgreSQL text cannot hold NUL; forms and DRF reject it too, with this message.
        raise ValidationError({"body": "Null characters are not allowed."})
    if len(body) > COMMENT_MAX_LENGTH:
        raise ValidationError(
            {
                "body": f"Keep comments under {COMMENT_MAX_LENGTH:,} characters (this one has {len(body):,})."
            }
        )
    return body


@transaction.atomic
def comment_create(
    *,
    user: Any,
    body: str,
    question: Question | None = None,
    concept: Concept | None = None,
    parent: Comment | None = None,
) -> Comment:
    """Post a comment, or a reply to a top-level comment on the same item."""
    _require_user(user)
    target = _target_kwargs(question, concept)
    body = _clean_body(body)
    if parent is not None:
        if parent.parent_id is not None:
            raise ValidationError(
                {"parent": "Replies go one level deep: reply to the top comment."}
            )
        if (parent.question_id, parent.concept_id) != (
            question.pk if question else None,
            concept.pk if concept else None,
        ):
            raise ValidationError({"parent": "That comment is on another page."})
        if parent.is_hidden:
            raise ValidationError({"parent": "That comment was hidden by a moderator."})
    return Comment.objects.create(
        author=user,
        parent=parent,
        body=body,
        body_html=str(render_untrusted_markdown(body)),
        **target,
    )


def _own_live_comment(user: Any, comment: Comment) -> Comment:
    _require_user(user)
    if comment.author_id != user.pk:
        raise PermissionDenied("Only the author can change a comment.")
    if comment.is_deleted:
        raise ValidationError({"body": "This comment was deleted."})
    if comment.is_hidden:
        raise PermissionDenied("A moderator hid this comment.")
    return comment


@transaction.atomic
def comment_edit(
    *, user: Any, comment: Comment, body: str, now: dt.datetime | None = None
) -> Comment:
    comment = Comment.objects.select_for_update().get(pk=comment.pk)
    _own_live_comment(user, comment)
    body = _clean_body(body)
    if body != comment.body:
        comment.body = body
        comment.body_html = str(render_untrusted_markdown(body))
        comment.edited_at = now or timezone.now()
        comment.save(update_fields=["body", "body_html", "edited_at"])
    return comment


@transaction.atomic
def comment_delete(*, user: Any, comment: Comment, now: dt.datetime | None = None) -> Comment:
    """Soft-delete: the text goes, the row stays so replies keep their thread."""
    comment = Comment.objects.select_for_update().get(pk=comment.pk)
    _own_live_comment(user, comment)
    comment.deleted_at = now or timezone.now()
    comment.body = ""
    comment.body_html = ""
    comment.save(update_fields=["deleted_at", "body", "body_html"])
    return comment


@transaction.atomic
def comment_report(*, user: Any, comment: Comment, reason: str, note: str = "") -> CommentReport:
    _require_user(user)
    if comment.author_id == user.pk:
        raise ValidationError(
            {"reason": "You cannot report your own comment; edit or delete it instead."}
        )
    if reason not in CommentReport.Reason.values:
        raise ValidationError({"reason": "Choose a reason."})
    if len(note or "") > 500:
        raise ValidationError({"note": "Keep the note under 500 characters."})
    report, _ = CommentReport.objects.get_or_create(
        comment=comment, reporter=user, defaults={"reason": reason, "note": (note or "").strip()}
    )
    return report


def _require_moderator(user: Any) -> None:
    if not (
        user
        and user.is_authenticated
        and (user.is_staff or user.has_perm("community.change_comment"))
    ):
        raise PermissionDenied("Only moderators hide comments.")


@transaction.atomic
def comment_hide(*, moderator: Any, comment: Comment, now: dt.datetime | None = None) -> Comment:
    _require_moderator(moderator)
    now = now or timezone.now()
    Comment.objects.filter(pk=comment.pk).update(hidden_at=now, hidden_by=moderator)
    CommentReport.objects.filter(comment=comment, resolved_at__isnull=True).update(resolved_at=now)
    comment.refresh_from_db()
    return comment


@transaction.atomic
def comment_restore(*, moderator: Any, comment: Comment) -> Comment:
    _require_moderator(moderator)
    Comment.objects.filter(pk=comment.pk).update(hidden_at=None, hidden_by=None)
    comment.refresh_from_db()
    return comment
