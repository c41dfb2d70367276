"""Authoring the course in admin: parts and lessons, with the Markdown preview, publish /
unpublish / set-checked actions, revisions (django-reversion) and list editors, as for
questions. Kept out of ``questions.admin`` so that module does not grow. The page preview
per tier is added by ``inferview.access.admin_preview`` (the policy's floor), as for
questions."""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin

from .admin import MarkdownCheckedForm, MarkdownPreviewMixin, PublishActionsMixin
from .admin_fields import ReferencesField
from .admin_revisions import RevisionsAdmin
from .content_check import word_count
from .content_check_lessons import reading_minutes
from .lesson_checks import check_item_problems
from .models import Lesson, Part


class CheckItemsField(forms.JSONField):
    """The "check yourself" items as JSON (a list of 3-5 items, as in the files' ``check:``),
    refused at save when the server could not grade them."""

    def validate(self, value):
        super().validate(value)
        problems = check_item_problems(value if value is not None else [])
        if problems:
            raise forms.ValidationError(problems)

    def prepare_value(self, value):
        if isinstance(value, str):
            return value
        return json.dumps(value, indent=2, ensure_ascii=False)


class LessonAdminForm(MarkdownCheckedForm):
    markdown_fields = ("body",)
    references = ReferencesField(required=False, help_text="2-6 primary sources, one row each.")
    check_items = CheckItemsField(
        label="Check yourself",
        help_text='3-5 items: {"kind": "choice", "prompt", "choices", "answer" (0-based), '
        '"explain"} or {"kind": "number", "prompt", "calculator", "preset", "inputs", "output", '
        '"unit", "tolerance", "explain"}. Graded on the server; gated with the body.',
        widget=forms.Textarea(attrs={"rows": 16, "class": "vLargeTextField"}),
    )

    class Meta:
        model = Lesson
        fields = [
            "part", "number", "title", "slug", "summary", "level", "access", "minutes",
            "prerequisites", "concepts", "questions", "body", "references", "checked",
            "check_items", "published", "publish_at", "unpublish_at",
        ]  # fmt: skip


@admin.register(Part)
class PartAdmin(MarkdownPreviewMixin, PublishActionsMixin, RevisionsAdmin):
    actions = ["publish", "unpublish"]
    list_display = ["number", "title", "lesson_count", "published", "updated_at"]
    list_display_links = ["title"]
    list_filter = ["published"]
    search_fields = ["title", "summary"]
    prepopulated_fields = {"slug": ["title"]}
    readonly_fields = ["updated_at", "published_at"]
    fields = ["number", "slug", "title", "summary", "intro", "published", "published_at"]

    @admin.display(description="Lessons")
    def lesson_count(self, obj: Part) -> int:
        return obj.lessons.count()


@admin.register(Lesson)
class LessonAdmin(MarkdownPreviewMixin, PublishActionsMixin, RevisionsAdmin):
    form = LessonAdminForm
    list_display = [
        "place", "title", "part", "level", "access", "minutes", "words", "published",
        "updated_at", "checked",
    ]  # fmt: skip
    list_display_links = ["title"]
    list_editable = ["level", "access", "minutes"]
    list_filter = ["part", "published", "level", "access"]
    search_fields = ["title", "summary", "slug", "body"]
    autocomplete_fields = ["concepts", "questions", "prerequisites"]
    prepopulated_fields = {"slug": ["title"]}
    list_select_related = ["part"]
    readonly_fields = ["key", "updated_at", "published_at"]
    fieldsets = [
        (None, {"fields": ["part", "number", "title", "slug", "summary", "key"]}),
        ("Classification", {"fields": ["level", "access", "minutes"]}),
        ("Links", {"fields": ["prerequisites", "concepts", "questions"]}),
        ("Text (Markdown)", {"fields": ["body", "references", "checked"]}),
        ("Check yourself", {"fields": ["check_items"]}),
        (
            "Publishing",
            {"fields": ["published", "publish_at", "unpublish_at", "published_at", "updated_at"]},
        ),
    ]

    @admin.display(description="#", ordering="part__number")
    def place(self, obj: Lesson) -> str:
        return f"{obj.part.number}.{obj.number}"

    @admin.display(description="Words (minutes)")
    def words(self, obj: Lesson) -> str:
        n = word_count(obj.body)
        return f"{n:,} ({reading_minutes(n)})"
