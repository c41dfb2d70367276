"""Writes of bookmarks."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from inferview.community.common import require_user, target_kwargs
from inferview.community.models import Bookmark
from questions.models import Concept, Question


@transaction.atomic
def bookmark_toggle(
    *, user: Any, question: Question | None = None, concept: Concept | None = None
) -> bool:
    """Bookmark the item, or remove the bookmark if there is one. Returns the new state."""
    require_user(user)
    target = target_kwargs(question, concept)
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
