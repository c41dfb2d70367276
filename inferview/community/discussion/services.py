"""Writes of the discussion: post, edit, delete, report, hide, restore.

Every function is keyword-only, atomic, and raises ``ValidationError`` (with field
names) or ``PermissionDenied``."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from inferview.community.common import require_user, target_kwargs
from inferview.community.discussion.notifications import schedule_reply_email
from inferview.community.models import Comment, CommentReport
from questions import content_version
from questions.markdown import render_untrusted_markdown
from questions.models import Concept, Question

COMMENT_MAX_LENGTH = 5000


def _clean_body(body: str) -> str:
    body = (body or "").strip()
    if not body:
        raise ValidationError({"body": "Write something first."})
    if "\x00" in body:
        # PostgreSQL text cannot hold NUL; forms and DRF reject it too, with this message.
        raise ValidationError({"body": "Null characters are not allowed."})
    if "\ue000" in body or "\ue001" in body:
        # the marks of a page's shared part (inferview.pages.shared): in a comment they
        # would be taken for the page's own
        raise ValidationError(
            {"body": "The private-use characters U+E000 and U+E001 are not allowed."}
        )
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
    site: str | None = None,
) -> Comment:
    """Post a comment, or a reply to a top-level comment on the same item (whose author
    is then emailed, if they want replies: ``notifications``). ``site`` is the origin the
    request came in on (``http://127.0.0.1:8000``), so the e-mail links where the reader
    is signed in; without one, ``SITE_DOMAIN``."""
    require_user(user)
    target = target_kwargs(question, concept)
    body = _clean_body(body)
    if parent is not None:
        # Read afresh and locked: a delete or hide committed since the caller loaded it
        # must refuse the reply, not race it.
        parent = Comment.objects.select_for_update().get(pk=parent.pk)
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
        if parent.is_deleted:
            raise ValidationError(
                {"parent": "That comment was deleted: nobody would read a reply."}
            )
    comment = Comment.objects.create(
        author=user,
        parent=parent,
        body=body,
        body_html=str(render_untrusted_markdown(body)),
        **target,
    )
    schedule_reply_email(comment, site=site)  # after the commit, and only for a reply
    return comment


def _own_live_comment(user: Any, comment: Comment) -> Comment:
    require_user(user)
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
    require_user(user)
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


MODERATE = "community.moderate_comment"


def _require_moderator(user: Any) -> None:
    """Moderation is an explicit permission (superusers have every one): being staff is
    not enough, since authors are staff to edit content."""
    if not (user and user.is_authenticated and user.has_perm(MODERATE)):
        raise PermissionDenied("Only moderators hide comments.")


@transaction.atomic
def comment_hide(*, moderator: Any, comment: Comment, now: dt.datetime | None = None) -> Comment:
    _require_moderator(moderator)
    now = now or timezone.now()
    Comment.objects.filter(pk=comment.pk).update(hidden_at=now, hidden_by=moderator)
    CommentReport.objects.filter(comment=comment, resolved_at__isnull=True).update(resolved_at=now)
    _discussion_changed()
    comment.refresh_from_db()
    return comment


@transaction.atomic
def comment_restore(*, moderator: Any, comment: Comment) -> Comment:
    _require_moderator(moderator)
    Comment.objects.filter(pk=comment.pk).update(hidden_at=None, hidden_by=None)
    _discussion_changed()
    comment.refresh_from_db()
    return comment


@transaction.atomic
def comments_detach_author(*, user: Any, now: dt.datetime | None = None) -> int:
    """Blank and detach every comment of ``user`` (account deletion): each keeps its place,
    shown as "[deleted]", so other people's replies keep their thread."""
    changed = Comment.objects.filter(author=user).update(
        body="", body_html="", deleted_at=now or timezone.now(), author=None
    )
    _discussion_changed()
    return changed


def _discussion_changed() -> None:
    """A queryset ``update()`` sends no ``post_save``, so the writes that use one move the
    content version themselves: cached pages and discussion pages must not show a hidden
    or deleted comment. It moves now and again on commit: a reader who renders between
    the two would otherwise store the old thread under the new version."""
    content_version.bump()
    transaction.on_commit(content_version.bump)
