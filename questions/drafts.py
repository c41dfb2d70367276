"""Drafts of live items: edits an author previews and compares before learners see them.

A draft is a ``ContentDraft`` row holding the edited fields; the item's own row stays the
live text, so everything learners read (pages, API, search, sitemap) and everything the
files hold (``export_content``, ``import_content``) keeps reading the live row and never
sees a draft. Publishing copies the draft onto the row through ``services.save_content``
(so "Updated" moves only when the text changed) in one transaction, as one revision.
"""

from __future__ import annotations

import copy
from typing import Any

import reversion
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.utils import timezone

from . import services
from .models import Concept, ContentDraft, Guide, GuideItem, Question

# The fields a draft may hold per model: the text and its labels. Identity and place
# (track, number, slug) and links (concepts, calculators) are edited on the live item.
DRAFT_FIELDS: dict[type, tuple[str, ...]] = {
    Question: (
        "title", "summary", "body", "answer", "key_points", "references",
        "difficulty", "kind", "access", "checked",
    ),
    Concept: ("title", "summary", "body", "references", "category", "level", "access", "checked"),
    Guide: ("title", "summary", "intro", "checked"),
    GuideItem: ("kind", "title", "body"),
}  # fmt: skip


def is_live(obj: Any) -> bool:
    """Whether learners read ``obj`` now, so an edit should go to a draft first: a guide
    item has no flag of its own and is live when its guide is."""
    if isinstance(obj, GuideItem):
        return bool(obj.pk and obj.section.guide.published)
    return bool(getattr(obj, "published", False))


def draft_for(obj: Any) -> ContentDraft | None:
    if obj.pk is None or type(obj) not in DRAFT_FIELDS:
        return None
    return ContentDraft.objects.filter(
        content_type=ContentType.objects.get_for_model(type(obj)), object_id=obj.pk
    ).first()


def with_draft(obj: Any, draft: ContentDraft | None = None) -> Any:
    """An unsaved copy of ``obj`` with the draft's fields applied (``obj`` itself when it
    has no draft): what the item will look like once the draft is published."""
    draft = draft or draft_for(obj)
    if draft is None:
        return obj
    preview = copy.copy(obj)
    for name in DRAFT_FIELDS[type(obj)]:
        if name in draft.data:
            setattr(preview, name, draft.data[name])
    return preview


@transaction.atomic
def save_draft(obj: Any, values: dict[str, Any], *, user: Any = None) -> ContentDraft:
    """Keep ``values`` (only the draftable fields) as the item's draft; the row is untouched."""
    fields = DRAFT_FIELDS[type(obj)]
    data = {name: values[name] for name in fields if name in values}
    for name, value in data.items():  # as services.normalise_newlines does for the row
        if isinstance(value, str):
            data[name] = value.replace("\r\n", "\n").replace("\r", "\n")
    draft, _ = ContentDraft.objects.update_or_create(
        content_type=ContentType.objects.get_for_model(type(obj)),
        object_id=obj.pk,
        defaults={"data": data, "edited_by": _who(user)},
    )
    return draft


@transaction.atomic
def publish_draft(draft: ContentDraft, *, user: Any = None, comment: str = "") -> Any:
    """Copy the draft onto the live row and drop it; returns the item. The row is locked,
    so a scheduled run and an author clicking "Publish draft" cannot both apply it."""
    model: Any = draft.content_type.model_class()
    obj = model._default_manager.select_for_update().get(pk=draft.object_id)
    live = ContentDraft.objects.select_for_update().filter(pk=draft.pk).first()
    if live is None:  # published or discarded meanwhile
        return obj
    for name in DRAFT_FIELDS[model]:
        if name in live.data:
            setattr(obj, name, live.data[name])
    with reversion.create_revision():
        reversion.set_comment(comment or "Published draft")
        if user is not None:
            reversion.set_user(user)
        if isinstance(obj, GuideItem):
            before = {n: getattr(obj, n) for n in ("kind", "title", "body")}
            before = dict(model._default_manager.filter(pk=obj.pk).values(*before).get())
            obj.full_clean(exclude=["section"])
            obj.save()
            if before != {n: getattr(obj, n) for n in before}:  # the guide page's "Updated"
                Guide.objects.filter(pk=obj.section.guide_id).update(updated_at=timezone.now())
        else:
            obj.full_clean(exclude=["track", "number", "slug", "key"])
            services.save_content(obj)
    live.delete()
    return obj


def discard_draft(draft: ContentDraft) -> None:
    ContentDraft.objects.filter(pk=draft.pk).delete()


@transaction.atomic
def schedule_draft(draft: ContentDraft, *, publish_at, user: Any = None) -> ContentDraft:
    draft.publish_at = publish_at
    draft.scheduled_by = _who(user) if publish_at else ""
    draft.save(update_fields=["publish_at", "scheduled_by", "updated_at"])
    return draft


def live_values(obj: Any) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in DRAFT_FIELDS[type(obj)]}


def _who(user: Any) -> str:
    if user is None or not getattr(user, "is_authenticated", False):
        return ""
    return str(getattr(user, "email", "") or user.get_username())
