"""Django admin is the authoring tool: Markdown preview, draft/publish, reordering."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from . import services
from .admin_drafts import DraftAdminMixin
from .admin_fields import KeyPointsField, LabelledSplitDateTime, ReferencesField
from .admin_revisions import RevisionsAdmin
from .checked import validate_checked
from .dependents import dependents
from .markdown import render_markdown
from .models import (
    CalculatorEmbed,
    Concept,
    Guide,
    GuideItem,
    GuideSection,
    PracticeCheck,
    Question,
    Track,
)
from .tasks import schedule_practice_check
from .validation import database_problems


class MarkdownPreviewMixin:
    """Adds a live "Preview" pane under every Markdown textarea (static/admin_preview.js)
    backed by a POST endpoint that renders with the site's own renderer and sanitiser."""

    class Media:
        js = ["js/admin_preview.js"]
        css = {"all": ["css/admin_preview.css"]}

    def get_urls(self):
        info = self.model._meta.app_label, self.model._meta.model_name
        urls = [
            path(
                "markdown-preview/",
                self.admin_site.admin_view(self.markdown_preview),
                name="{}_{}_markdown_preview".format(*info),
            )
        ]
        return urls + super().get_urls()

    def markdown_preview(self, request: HttpRequest):
        if request.method != "POST":
            return JsonResponse({"error": "POST the Markdown as 'text'."}, status=405)
        if not (self.has_add_permission(request) or self.has_change_permission(request)):
            raise PermissionDenied
        text = request.POST.get("text", "")
        if len(text) > 200_000:
            return JsonResponse({"error": "text: longer than 200,000 characters."}, status=400)
        return JsonResponse({"html": str(render_markdown(text))})


class CheckedMonthForm(forms.Form):
    checked = forms.CharField(
        label="Checked month", max_length=7, help_text="YYYY-MM", validators=[validate_checked]
    )


class PublishActionsMixin:
    actions = ["publish", "unpublish", "set_checked"]

    def _confirm(self, request, queryset, action: str, title: str, **extra):
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "opts": self.model._meta,
            "items": [(obj, dependents(obj) if action == "unpublish" else []) for obj in queryset],
            "selected": queryset.values_list("pk", flat=True),
            "action": action,
            **extra,
        }
        return render(request, "admin/questions/confirm_unpublish.html", context)

    @admin.action(description="Publish selected", permissions=["change"])
    def publish(self, request, queryset):
        """Asks first: publishing shows the text to learners at once."""
        if request.POST.get("confirm") != "yes":
            return self._confirm(request, queryset, "publish", "Publish these items?")
        n = services.set_published(queryset, published=True, user=request.user)
        self.message_user(request, f"Published {n}.", messages.SUCCESS)
        return None

    @admin.action(description="Set the checked month of selected", permissions=["change"])
    def set_checked(self, request, queryset):
        """Asks for the month (and confirms the items); re-verifying does not move "Updated"."""
        form = CheckedMonthForm(request.POST if request.POST.get("confirm") == "yes" else None)
        if not form.is_valid():
            return self._confirm(
                request, queryset, "set_checked", "Set the checked month?", month_form=form
            )
        n = services.set_checked(queryset, month=form.cleaned_data["checked"], user=request.user)
        self.message_user(request, f"Set checked {form.cleaned_data['checked']} on {n}.")
        return None

    @admin.action(description="Move selected back to draft", permissions=["change"])
    def unpublish(self, request, queryset):
        """Asks first, listing what points at each item (answers linking it, questions using
        a concept, readers' bookmarks): their links go to a withdrawn page afterwards."""
        if request.POST.get("confirm") != "yes":
            return self._confirm(request, queryset, "unpublish", "Move back to draft?")
        n = services.set_published(queryset, published=False, user=request.user)
        self.message_user(request, f"Moved {n} to draft.", messages.SUCCESS)
        return None

    def render_delete_form(self, request, context):
        obj = context.get("object")
        context["dependents"] = dependents(obj) if obj is not None else []
        return super().render_delete_form(request, context)

    def save_model(self, request, obj, form, change):
        services.save_content(obj)


class CalculatorEmbedInline(admin.StackedInline):
    model = CalculatorEmbed
    extra = 0
    fields = ["order", "calculator", "preset", "inputs", "label"]


class MarkdownCheckedForm(forms.ModelForm):
    """Refuses Markdown a reader would see broken (a failing ``{{calc}}``, an image that is
    not one of our diagrams, a link to a concept or track that does not exist), with the
    problem shown at the field, as ``manage.py check_content`` reports it for files."""

    markdown_fields: tuple[str, ...] = ()

    def clean(self):
        data = super().clean()
        for name in self.markdown_fields:
            for problem in database_problems(data.get(name) or ""):
                self.add_error(name, problem)
        return data


class ConceptAdminForm(MarkdownCheckedForm):
    markdown_fields = ("body",)
    references = ReferencesField(required=False, help_text="Further reading, one row each.")

    class Meta:
        model = Concept
        fields = [
            "slug", "title", "category", "level", "access", "summary", "body", "references",
            "checked", "published", "publish_at", "unpublish_at",
        ]  # fmt: skip


class TrackAdminForm(MarkdownCheckedForm):
    markdown_fields = ("description",)

    class Meta:
        model = Track
        fields = [
            "slug", "title", "category", "icon", "order", "summary", "description", "published",
        ]  # fmt: skip


class QuestionAdminForm(MarkdownCheckedForm):
    markdown_fields = ("body", "answer")

    number = forms.IntegerField(
        min_value=1, required=False, help_text="Leave empty to append to the end of the track."
    )
    key_points = KeyPointsField(
        required=False,
        help_text="3-6 sentences a good answer must make, one per row; gated with the answer.",
    )
    references = ReferencesField(
        required=False, help_text="Further reading shown with the answer, one row each."
    )

    class Meta:
        model = Question
        fields = [
            "track",
            "number",
            "title",
            "slug",
            "summary",
            "difficulty",
            "kind",
            "access",
            "concepts",
            "body",
            "answer",
            "references",
            "checked",
            "key_points",
            "published",
            "publish_at",
            "unpublish_at",
        ]

    def clean(self):
        data = super().clean()
        track = data.get("track")
        if track and not data.get("number"):
            data["number"] = services.next_number(track)
        number = data.get("number")
        if track and number:
            clash = Question.objects.filter(track=track, number=number).exclude(pk=self.instance.pk)
            if clash.exists():
                self.add_error(
                    "number", f"{track} already has a question {number}; use Reorder on the track."
                )
        return data


@admin.register(Question)
class QuestionAdmin(DraftAdminMixin, MarkdownPreviewMixin, PublishActionsMixin, RevisionsAdmin):
    form = QuestionAdminForm
    list_display = [
        "number",
        "title",
        "track",
        "difficulty",
        "kind",
        "access",
        "published",
        "updated_at",
        "checked",
        "schedule",
        "check_findings",
    ]
    list_display_links = ["title"]
    list_filter = ["track", "published", "difficulty", "kind", "access"]
    search_fields = ["title", "summary", "body", "slug"]
    autocomplete_fields = ["concepts"]
    prepopulated_fields = {"slug": ["title"]}
    ordering = ["track__order", "number"]
    list_select_related = ["track"]
    readonly_fields = ["updated_at", "published_at", "practice_check"]
    inlines = [CalculatorEmbedInline]
    fieldsets = [
        (None, {"fields": ["track", "number", "title", "slug", "summary"]}),
        ("Classification", {"fields": ["difficulty", "kind", "access", "concepts"]}),
        ("Text (Markdown)", {"fields": ["body", "answer", "references", "checked"]}),
        ("Practice", {"fields": ["key_points", "practice", "practice_check"]}),
        (
            "Publishing",
            {"fields": ["published", "publish_at", "unpublish_at", "published_at", "updated_at"]},
        ),
    ]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if "practice" in form.changed_data or (not change and obj.practice):
            schedule_practice_check(obj)

    @admin.display(description="Author check")
    def practice_check(self, obj):
        """The latest author check of the practice spec: 200 seeds through the grader."""
        check = obj.checks.first() if obj.pk else None
        if check is None:
            return "No practice spec checked yet." if not obj.practice else "Not checked yet."
        if check.status == PracticeCheck.Status.PENDING:
            return format_html("Queued {} — reload to see the report.", check.created_at)
        problems = (check.report or {}).get("problems") or []
        if not problems:
            return format_html(
                "<strong>OK</strong>: {} seeds, no problems ({}).",
                (check.report or {}).get("seeds", "?"),
                check.finished_at,
            )
        return format_html(
            "<strong>{} problem(s)</strong> ({}):<ul>{}</ul>",
            len(problems),
            check.finished_at,
            format_html_join("", "<li>{}: {}</li>", ((p["kind"], p["detail"]) for p in problems)),
        )


class ReorderForm(forms.Form):
    """One position field per question; the track is renumbered 1..n in position order."""

    def __init__(self, *args, questions=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.questions = list(questions)
        for q in self.questions:
            self.fields[f"q{q.pk}"] = forms.IntegerField(
                label=f"{q.number}. {q.title}", initial=q.number, min_value=1
            )

    def ordered_ids(self) -> list[int]:
        """Sort by the positions typed; on a tie the question that was moved goes first,
        so "move to 1" puts a question first instead of leaving it behind the old first."""
        positions = [
            (
                self.cleaned_data[f"q{q.pk}"],
                self.cleaned_data[f"q{q.pk}"] == q.number,
                q.number,
                q.pk,
            )
            for q in self.questions
        ]
        return [pk for *_, pk in sorted(positions)]


@admin.register(Track)
class TrackAdmin(MarkdownPreviewMixin, PublishActionsMixin, RevisionsAdmin):
    form = TrackAdminForm
    list_display = ["order", "title", "category", "published", "reorder_link"]
    list_display_links = ["title"]
    list_filter = ["category", "published"]
    search_fields = ["title", "summary"]
    prepopulated_fields = {"slug": ["title"]}
    readonly_fields = ["updated_at", "published_at"]

    def get_urls(self):
        urls = [
            path(
                "<int:pk>/reorder/",
                self.admin_site.admin_view(self.reorder_view),
                name="questions_track_reorder",
            )
        ]
        return urls + super().get_urls()

    @admin.display(description="Questions")
    def reorder_link(self, obj):
        return format_html(
            '<a href="{}">Reorder</a>', reverse("admin:questions_track_reorder", args=[obj.pk])
        )

    def reorder_view(self, request, pk: int):
        if not request.user.has_perm("questions.change_question"):
            raise PermissionDenied
        track = get_object_or_404(Track, pk=pk)
        questions = Question.objects.filter(track=track).order_by("number")
        form = ReorderForm(request.POST or None, questions=questions)
        if request.method == "POST" and form.is_valid():
            with transaction.atomic():
                services.renumber_track(
                    track=track, ordered_ids=form.ordered_ids(), user=request.user
                )
            self.message_user(
                request, f"Renumbered {len(form.questions)} questions.", messages.SUCCESS
            )
            return redirect("admin:questions_track_reorder", pk=pk)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Reorder: {track}",
            "form": form,
            "track": track,
            "opts": self.model._meta,
        }
        return render(request, "admin/questions/reorder.html", context)


@admin.register(Concept)
class ConceptAdmin(DraftAdminMixin, MarkdownPreviewMixin, PublishActionsMixin, RevisionsAdmin):
    form = ConceptAdminForm
    list_display = [
        "title", "category", "level", "access", "published", "updated_at", "checked",
        "schedule", "check_findings",
    ]  # fmt: skip
    list_filter = ["category", "level", "access", "published"]
    search_fields = ["title", "summary", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    readonly_fields = ["updated_at", "published_at"]


class GuideItemForm(MarkdownCheckedForm):
    markdown_fields = ("body",)

    class Meta:
        model = GuideItem
        fields = ["section", "order", "kind", "title", "body"]


class GuideItemInline(admin.StackedInline):
    model = GuideItem
    form = GuideItemForm
    extra = 0
    # An item of a live guide edited here goes live at once; its own change form (the
    # link) offers "Save as draft" and a scheduled publish of the draft.
    show_change_link = True


class GuideItemAdminForm(GuideItemForm):
    """A guide item has no ``published`` flag of its own (it is live with its guide), so
    what can be scheduled is its draft: ``publish_at`` here is the draft's."""

    publish_at = forms.SplitDateTimeField(
        required=False,
        widget=LabelledSplitDateTime,
        label="Publish draft at",
        help_text="With “Save as draft”: the draft goes live at this time (server time zone).",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        draft = getattr(self.instance, "_draft", None)
        if draft is not None:
            self.fields["publish_at"].initial = draft.publish_at


@admin.register(GuideItem)
class GuideItemAdmin(DraftAdminMixin, MarkdownPreviewMixin, RevisionsAdmin):
    form = GuideItemAdminForm
    fields = ["section", "order", "kind", "title", "body", "publish_at"]
    list_display = ["title", "section", "kind", "order", "schedule", "check_findings"]
    list_filter = ["section__guide", "kind"]
    list_select_related = ["section__guide"]
    search_fields = ["title", "body"]


@admin.register(GuideSection)
class GuideSectionAdmin(MarkdownPreviewMixin, RevisionsAdmin):
    list_display = ["title", "guide", "order", "checked"]
    list_filter = ["guide"]
    search_fields = ["title"]
    autocomplete_fields = ["concepts"]
    inlines = [GuideItemInline]


class GuideSectionInline(admin.TabularInline):
    model = GuideSection
    extra = 0
    fields = ["order", "slug", "title", "checked"]
    show_change_link = True


@admin.register(Guide)
class GuideAdmin(DraftAdminMixin, MarkdownPreviewMixin, PublishActionsMixin, RevisionsAdmin):
    list_display = [
        "title", "published", "updated_at", "checked", "schedule", "check_findings",
    ]  # fmt: skip
    list_filter = ["published"]
    search_fields = ["title", "summary"]
    prepopulated_fields = {"slug": ["title"]}
    readonly_fields = ["updated_at", "published_at"]
    inlines = [GuideSectionInline]
