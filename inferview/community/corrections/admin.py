"""The authors' queue of reported mistakes (Django admin, registered by the community app's
``admin`` module).

Authors (staff in the content app's authors group, and superusers) see and decide; the
queue is ordered by how many readers reported a passage, then by age. Each report shows its
quote in the item's text with a link to edit the item. Deciding goes through
``services.correction_decide``, so fixed and declined need a change note, a fix records the
item's latest revision and moves its "Updated" month, and the reporters are emailed.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import format_html

from inferview.community.corrections import selectors, services, text
from inferview.community.corrections.models import (
    Correction,
    CorrectionReporter,
    CorrectionState,
)


class TargetTypeFilter(admin.SimpleListFilter):
    title = "target"
    parameter_name = "target"

    def lookups(self, request, model_admin):
        return [("question", "Question"), ("concept", "Concept"), ("guide_item", "Guide item")]

    def queryset(self, request, queryset):
        if self.value() in ("question", "concept", "guide_item"):
            return queryset.filter(**{f"{self.value()}__isnull": False})
        return queryset


class CorrectionReporterInline(admin.TabularInline):
    model = CorrectionReporter
    extra = 0
    fields = ["user", "note", "created_at"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class CorrectionDecisionForm(forms.ModelForm):
    class Meta:
        model = Correction
        fields = ["state", "change_note"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if (
            data.get("state") in (CorrectionState.FIXED, CorrectionState.DECLINED)
            and not (data.get("change_note") or "").strip()
        ):
            self.add_error(
                "change_note",
                "Say what changed (fixed) or why not (declined): the reporters get this note, "
                "and readers see it under “What changed” when fixed.",
            )
        return data


def _edit_url(correction: Correction) -> str:
    if correction.question_id:
        return reverse("admin:questions_question_change", args=[correction.question_id])
    if correction.concept_id:
        return reverse("admin:questions_concept_change", args=[correction.concept_id])
    return reverse(
        "admin:questions_guidesection_change",
        args=[correction.guide_item.section_id],  # type: ignore[union-attr]
    )


class CorrectionAdmin(admin.ModelAdmin):
    form = CorrectionDecisionForm
    list_display = ["excerpt", "kind", "target_link", "reporter_count", "state", "created_at"]
    list_filter: Any = ["state", "kind", "question__track", TargetTypeFilter]
    search_fields = ["quote", "change_note"]
    inlines = [CorrectionReporterInline]
    fieldsets = [
        (None, {"fields": ["target_link", "kind", "quote_in_context", "reporter_count"]}),
        ("Decision", {"fields": ["state", "change_note"]}),
        ("Record", {"fields": ["decided_at", "decided_by", "fixed_version"]}),
    ]
    readonly_fields = [
        "target_link",
        "kind",
        "quote_in_context",
        "reporter_count",
        "decided_at",
        "decided_by",
        "fixed_version",
    ]

    # Authors triage; being staff is not enough (moderators are staff too).
    def has_module_permission(self, request) -> bool:
        return selectors.is_author(request.user)

    def has_view_permission(self, request, obj=None) -> bool:
        return selectors.is_author(request.user)

    def has_change_permission(self, request, obj=None) -> bool:
        return selectors.is_author(request.user)

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return bool(request.user.is_superuser)

    def get_queryset(self, request):
        return selectors.admin_queue()

    def get_ordering(self, request):
        return ["-reporter_count", "created_at", "id"]

    @admin.display(description="Reporters", ordering="reporter_count")
    def reporter_count(self, obj: Correction) -> int:
        return getattr(obj, "reporter_count", 0)

    @admin.display(description="Passage")
    def excerpt(self, obj: Correction) -> str:
        return obj.quote if len(obj.quote) <= 90 else obj.quote[:89] + "…"

    @admin.display(description="Item")
    def target_link(self, obj: Correction) -> str:
        target = obj.target
        label = (
            f"{target.section.guide.title}: {target.title}"  # type: ignore[union-attr]
            if obj.guide_item_id
            else str(target)
        )
        return format_html(
            '<a href="{}">{}</a> · <a href="{}">edit</a>',
            selectors.target_url(obj),
            label,
            _edit_url(obj),
        )

    @admin.display(description="Quote in context")
    def quote_in_context(self, obj: Correction) -> str:
        found = text.in_context(obj.target, quote=obj.quote)
        if found is None:
            return format_html(
                "<mark>{}</mark><br><em>No longer in the item's text (edited since).</em>",
                obj.quote,
            )
        before, quote, after = found
        return format_html(
            '<div class="correction-context">{}<mark>{}</mark>{}</div>', before, quote, after
        )

    def save_model(self, request, obj: Correction, form, change: bool) -> None:
        try:
            services.correction_decide(
                user=request.user,
                correction=obj,
                state=form.cleaned_data["state"],
                change_note=form.cleaned_data.get("change_note", ""),
            )
        except ValidationError as exc:  # already checked by the form; a race otherwise
            raise ValidationError(exc.messages) from exc


admin.site.register(Correction, CorrectionAdmin)
