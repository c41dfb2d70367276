"""Reads of the discussion under a question or concept: a fixed number of queries
whatever the number of comments."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from inferview.community.models import Comment
from questions import content_version
from questions.models import Concept, Question

COMMENTS_PER_PAGE = 20


#: Author columns a cached discussion page must not carry into the shared cache.
_AUTHOR_PRIVATE = ("author__password", "author__email", "author__last_login")

SORTS = {"newest": ("-created_at", "-id"), "oldest": ("created_at", "id")}


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
    """One page of a discussion, the same for every reader, cached per content version
    (a comment posted, edited, deleted or hidden moves the version). What is personal,
    such as the edit link on one's own comment, is decided by the template."""
    target: Question | Concept = question if question is not None else concept  # type: ignore[assignment]
    kind = "question" if question is not None else "concept"
    sort = sort if sort in SORTS else "newest"
    try:
        wanted = int(page)
    except (TypeError, ValueError):
        wanted = 1
    found = content_version.cached(
        f"discussion:v1:{kind}:{target.pk}:{sort}:{wanted}:{per_page}",
        lambda: _discussion_page(
            question=question, concept=concept, sort=sort, page=wanted, per_page=per_page
        ),
    )
    return replace(found, target=target)


def _discussion_page(
    *,
    question: Question | None,
    concept: Concept | None,
    sort: str,
    page: int,
    per_page: int,
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
    threads = list(top.select_related("author").defer(*_AUTHOR_PRIVATE)[offset : offset + per_page])
    # Replies by subquery rather than prefetch, so the query runs even for an empty page.
    replies = (
        Comment.objects.filter(parent__in=top[offset : offset + per_page].values("pk"))
        .select_related("author")
        .defer(*_AUTHOR_PRIVATE)
        .order_by("created_at", "id")
    )
    by_parent: dict[int, list[Comment]] = {}
    for reply in replies:
        by_parent.setdefault(reply.parent_id, []).append(reply)  # type: ignore[arg-type]
    for thread in threads:
        thread.thread_replies = by_parent.get(thread.pk, [])
    return Discussion(
        target=None,  # type: ignore[arg-type]  # set by discussion(): not stored in the cache
        target_kind="question" if question is not None else "concept",
        count=totals["visible"],
        sort=sort,
        number=number,
        num_pages=num_pages,
        threads=threads,
    )


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
