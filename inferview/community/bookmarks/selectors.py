"""Reads of a learner's bookmarks (drafts drop out of the list)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from inferview.community.common import signed_in
from inferview.community.models import Bookmark


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
    return _visible_bookmarks(user).count() if signed_in(user) else 0
