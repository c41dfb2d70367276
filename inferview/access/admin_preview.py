"""The question admin, extended with "preview as a reader of tier X".

The preview belongs to the access app: which tiers exist and what each may read is the
policy's business, and the content app (one floor down) knows nothing of readers. So this
module re-registers ``Question`` with a subclass of the content app's admin that adds the
preview URL and its column, rather than the content admin importing the policy.
"""

from __future__ import annotations

import copy

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils.html import format_html

from questions import drafts
from questions.admin import QuestionAdmin
from questions.markdown import render_markdown
from questions.models import Question

from . import policy


class QuestionPreviewAdmin(QuestionAdmin):
    list_display = [*QuestionAdmin.list_display, "preview_link"]

    def get_urls(self):
        urls = [
            path(
                "<int:pk>/preview/",
                self.admin_site.admin_view(self.page_preview),
                name="questions_question_page_preview",
            )
        ]
        return urls + super().get_urls()

    @admin.display(description="Preview")
    def preview_link(self, obj):
        return format_html(
            '<a href="{}">Preview</a>',
            reverse("admin:questions_question_page_preview", args=[obj.pk]),
        )

    PREVIEW_TIERS = {
        "anonymous": policy.Tier.ANONYMOUS,
        "free": policy.Tier.FREE,
        "premium": policy.Tier.PREMIUM,
    }

    def page_preview(self, request, pk: int):
        """The learner's page for a draft or published question, as a reader of the tier
        in ``?as=`` (anonymous, free, premium) would see it, or unlocked (staff, the
        default). The policy decides the lock exactly as on the public page."""
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        question = get_object_or_404(Question.objects.select_related("track"), pk=pk)
        preview_draft = bool(request.GET.get("draft"))
        if preview_draft:  # the draft as it will read once published
            question = drafts.with_draft(question)
        as_tier = request.GET.get("as", "staff")
        if as_tier not in (*self.PREVIEW_TIERS, "staff"):
            as_tier = "staff"
        preview_request = request
        if as_tier != "staff":
            preview_request = copy.copy(request)
            preview_request.user = policy.preview_reader(self.PREVIEW_TIERS[as_tier])
        lock = policy.locked_reason(preview_request.user, question)
        concepts = list(question.concepts.all())
        return render(
            preview_request,
            "questions/detail.html",
            {
                "question": question,
                "track": question.track,
                "lock": lock,
                "preview": True,
                "preview_as": as_tier,
                "preview_draft": preview_draft,
                "preview_tiers": [*self.PREVIEW_TIERS, "staff"],
                "body_html": render_markdown(question.body),
                "answer_html": render_markdown(question.answer) if lock is None else None,
                "concepts": concepts,
                "embeds": list(question.calculator_embeds.all()),
                "next_question": None,
                "closest": [],
            },
        )


admin.site.unregister(Question)
admin.site.register(Question, QuestionPreviewAdmin)
