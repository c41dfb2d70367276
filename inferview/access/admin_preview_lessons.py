"""The lesson admin, extended with "preview as a reader of tier X", as
``admin_preview`` does for questions: the policy decides the lock exactly as on the
public page, so an author sees what an anonymous, free or premium reader gets (a locked
lesson: title, summary, contents and the paywall)."""

from __future__ import annotations

import copy

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from questions import lessons
from questions.admin_lessons import LessonAdmin
from questions.models import Lesson

from . import policy

PREVIEW_TIERS = {
    "anonymous": policy.Tier.ANONYMOUS,
    "free": policy.Tier.FREE,
    "premium": policy.Tier.PREMIUM,
}


class LessonPreviewAdmin(LessonAdmin):
    list_display = [*LessonAdmin.list_display, "preview_link"]

    def get_urls(self):
        urls = [
            path(
                "<int:pk>/preview/",
                self.admin_site.admin_view(self.page_preview),
                name="questions_lesson_page_preview",
            )
        ]
        return urls + super().get_urls()

    @admin.display(description="Preview")
    def preview_link(self, obj):
        return format_html(
            '<a href="{}">Preview</a>',
            reverse("admin:questions_lesson_page_preview", args=[obj.pk]),
        )

    def page_preview(self, request, pk: int):
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        lesson = get_object_or_404(Lesson.objects.select_related("part"), pk=pk)
        as_tier = request.GET.get("as", "staff")
        if as_tier not in (*PREVIEW_TIERS, "staff"):
            as_tier = "staff"
        preview_request = request
        if as_tier != "staff":
            preview_request = copy.copy(request)
            preview_request.user = policy.preview_reader(PREVIEW_TIERS[as_tier])
        lock = policy.locked_reason(preview_request.user, lesson)
        toc = lessons.table_of_contents(lesson.body)
        readable = lessons.readable_parts(lesson, toc) if lock is None else None
        return render(
            preview_request,
            "questions/lesson.html",
            {
                "lesson": lesson,
                "part": lesson.part,
                "lock": lock,
                "toc": toc,
                "body_html": mark_safe(readable.body_html) if readable else None,  # noqa: S308
                "check_items": readable.items if readable else [],
                "concepts": list(lesson.concepts.all()),
                "practise": list(lesson.questions.select_related("track")),
                "prerequisites": list(lesson.prerequisites.all()),
                "preview": True,
                "preview_as": as_tier,
                "preview_tiers": [*PREVIEW_TIERS, "staff"],
            },
        )


admin.site.unregister(Lesson)
admin.site.register(Lesson, LessonPreviewAdmin)
