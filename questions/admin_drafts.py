"""Drafts and schedules in admin: "Save as draft" on a live item, the draft shown in its
change form, "Publish draft", "Discard draft" and "Compare with live"; "Publish at" and
"Unpublish at" recorded with who set them; the content check's findings per item."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib import admin, messages
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import OuterRef, Subquery
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from . import drafts
from .admin_fields import LabelledSplitDateTime
from .admin_revisions import field_diffs
from .content_findings import findings_for
from .models import ContentDraft

DRAFT_BUTTON = "_save_draft"


class DraftAdminMixin:
    """For a ModelAdmin of a model in ``drafts.DRAFT_FIELDS``. Items with their own
    ``published`` flag (questions, concepts, guides) can also be scheduled on the row; a
    guide item is live when its guide is, and only its draft has a "Publish at" (the
    form's ``publish_at`` field, not a model field)."""

    admin_site: Any
    model: Any
    message_user: Any
    formfield_overrides = {models.DateTimeField: {"widget": LabelledSplitDateTime}}

    def get_urls(self):
        info = self.model._meta.app_label, self.model._meta.model_name
        view = self.admin_site.admin_view
        urls = [
            path("<int:pk>/draft/publish/", view(self.draft_publish_view),
                 name="{}_{}_draft_publish".format(*info)),
            path("<int:pk>/draft/discard/", view(self.draft_discard_view),
                 name="{}_{}_draft_discard".format(*info)),
            path("<int:pk>/draft/compare/", view(self.draft_compare_view),
                 name="{}_{}_draft_compare".format(*info)),
        ]  # fmt: skip
        return urls + super().get_urls()

    # -- the change form --------------------------------------------------------------

    def get_object(self, request, object_id, from_field=None):
        """On GET, the form shows the draft when there is one (the live row is unchanged)."""
        obj = super().get_object(request, object_id, from_field)
        if obj is not None and request.method == "GET":
            draft = drafts.draft_for(obj)
            if draft is not None:
                obj = drafts.with_draft(obj, draft)
                obj._draft = draft
        return obj

    def save_model(self, request, obj, form, change):
        if change and drafts.is_live(obj) and DRAFT_BUTTON in request.POST:
            draft = drafts.save_draft(obj, form.cleaned_data, user=request.user)
            if "publish_at" in form.changed_data:
                drafts.schedule_draft(
                    draft, publish_at=form.cleaned_data.get("publish_at"), user=request.user
                )
            request._saved_as_draft = True
            return
        if hasattr(obj, "scheduled_by") and {"publish_at", "unpublish_at"} & set(form.changed_data):
            obj.scheduled_by = (
                drafts._who(request.user) if (obj.publish_at or obj.unpublish_at) else ""
            )
        super().save_model(request, obj, form, change)
        # A live save supersedes the draft it was edited from.
        if change and (draft := drafts.draft_for(obj)) is not None:
            drafts.discard_draft(draft)

    def save_related(self, request, form, formsets, change):
        if getattr(request, "_saved_as_draft", False):
            # concepts and calculators are edited on the live item only: nothing saved
            for formset in formsets:
                formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
            return
        super().save_related(request, form, formsets, change)

    def response_change(self, request, obj):
        if getattr(request, "_saved_as_draft", False):
            self.message_user(
                request,
                "Saved as a draft. Learners still see the live text until you publish it.",
                messages.SUCCESS,
            )
            return redirect(request.path)
        return super().response_change(request, obj)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = dict(extra_context or {})
        obj = self.get_object(request, object_id) if object_id else None
        if obj is not None:
            draft = getattr(obj, "_draft", None)
            extra_context["draft"] = draft
            extra_context["draftable"] = drafts.is_live(obj)
            extra_context["findings"] = findings_for(obj)
            extra_context["overdue"] = _overdue(obj, draft)
        return super().change_view(request, object_id, form_url, extra_context)

    # -- the list ---------------------------------------------------------------------

    def get_queryset(self, request):
        """Each row carries its draft's "Publish at" (one subquery, not a query per row)."""
        drafts_of_model = ContentDraft.objects.filter(
            content_type=ContentType.objects.get_for_model(self.model), object_id=OuterRef("pk")
        )
        return (
            super()  # type: ignore[misc]
            .get_queryset(request)
            .annotate(draft_publish_at=Subquery(drafts_of_model.values("publish_at")[:1]))
        )

    @admin.display(description="Check")
    def check_findings(self, obj):
        found = findings_for(obj)
        if not found:
            return "OK"
        return format_html(
            "<details><summary>{} finding(s)</summary><ul>{}</ul></details>",
            len(found),
            format_html_join("", "<li>{}</li>", ((f,) for f in found)),
        )

    @admin.display(description="Schedule")
    def schedule(self, obj):
        parts = []
        for label, when in (
            ("publishes", getattr(obj, "publish_at", None)),
            ("unpublishes", getattr(obj, "unpublish_at", None)),
            ("publishes its draft", getattr(obj, "draft_publish_at", None)),
        ):
            if when:
                late = (
                    " — OVERDUE: is the scheduler (celery beat) running?"
                    if when < timezone.now() - dt.timedelta(minutes=2)
                    else ""
                )
                parts.append(f"{label} {when:%Y-%m-%d %H:%M}{late}")
        return "; ".join(parts) or "—"

    # -- draft actions ----------------------------------------------------------------

    def _draft_or_404(self, request, pk):
        if not self.has_change_permission(request):
            raise PermissionDenied
        obj = get_object_or_404(self.model, pk=pk)
        draft = drafts.draft_for(obj)
        if draft is None:
            self.message_user(request, "There is no draft of this item.", messages.WARNING)
        return obj, draft

    def _back(self, obj):
        opts = self.model._meta
        return redirect(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]))

    def draft_publish_view(self, request, pk: int):
        if request.method != "POST":
            return redirect("../../")
        obj, draft = self._draft_or_404(request, pk)
        if draft is not None:
            drafts.publish_draft(draft, user=request.user)
            self.message_user(
                request, "Published the draft: learners see it now.", messages.SUCCESS
            )
        return self._back(obj)

    def draft_discard_view(self, request, pk: int):
        if request.method != "POST":
            return redirect("../../")
        obj, draft = self._draft_or_404(request, pk)
        if draft is not None:
            drafts.discard_draft(draft)
            self.message_user(request, "Discarded the draft.", messages.SUCCESS)
        return self._back(obj)

    def draft_compare_view(self, request, pk: int):
        obj, draft = self._draft_or_404(request, pk)
        if draft is None:
            return self._back(obj)
        live = drafts.live_values(obj)
        proposed = drafts.live_values(drafts.with_draft(obj, draft))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": obj,
            "draft": draft,
            "diffs": _in_form_order(field_diffs(live, proposed), self.model),
            "title": f"Draft compared with live: {obj}",
        }
        return render(request, "admin/questions/draft_compare.html", context)


def _in_form_order(diffs: list[dict], model) -> list[dict]:
    """The changed fields in the order the form has them, each with its label."""
    order = drafts.DRAFT_FIELDS[model]
    for d in diffs:
        d["label"] = str(model._meta.get_field(d["field"]).verbose_name).capitalize()
    return sorted(diffs, key=lambda d: order.index(d["field"]) if d["field"] in order else 99)


def _overdue(obj, draft=None) -> bool:
    """A scheduled time more than two minutes past: beat runs every 30 s, so the scheduler
    is down or failing (nothing is ever published early, so this is the sign)."""
    cutoff = timezone.now() - dt.timedelta(minutes=2)
    times = (
        getattr(obj, "publish_at", None),
        getattr(obj, "unpublish_at", None),
        draft.publish_at if draft is not None else None,
    )
    return any(w is not None and w < cutoff for w in times)
