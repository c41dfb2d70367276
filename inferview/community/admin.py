"""Moderation in admin: reported comments first, hide and restore through the services.

Learners' private approach text is excluded from every admin page: moderators need
comments and reports, not what a learner wrote for themselves.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, Q
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from inferview.community.discussion import services as discussion_services

from .models import Bookmark, Comment, CommentReport, DifficultyVote, Progress, ReviewCard


class CommentReportInline(admin.TabularInline):
    model = CommentReport
    extra = 0
    fields = ["reporter", "reason", "note", "created_at", "resolved_at"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class VisibilityFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [
            ("reported", "Open reports"),
            ("hidden", "Hidden"),
            ("deleted", "Deleted by author"),
            ("visible", "Visible"),
        ]

    def queryset(self, request, queryset):
        value = self.value()
        if value == "reported":
            return queryset.filter(
                reports__resolved_at__isnull=True, reports__isnull=False
            ).distinct()
        if value == "hidden":
            return queryset.filter(hidden_at__isnull=False)
        if value == "deleted":
            return queryset.filter(deleted_at__isnull=False)
        if value == "visible":
            return queryset.filter(hidden_at__isnull=True, deleted_at__isnull=True)
        return queryset


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ["id", "excerpt", "author", "on", "created_at", "open_reports", "state"]
    list_filter = [VisibilityFilter, "created_at"]
    search_fields = ["body", "author__email", "author__username"]
    list_select_related = ["author", "question__track", "concept"]
    readonly_fields = [
        "author",
        "question",
        "concept",
        "parent",
        "body",
        "rendered",
        "created_at",
        "edited_at",
        "deleted_at",
        "hidden_at",
        "hidden_by",
    ]
    fields = readonly_fields
    inlines = [CommentReportInline]
    actions = ["hide", "restore"]
    ordering = ["-created_at"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                open_report_count=Count("reports", filter=Q(reports__resolved_at__isnull=True))
            )
        )

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        # Removing a row would orphan its replies; moderators hide instead.
        return False

    @admin.display(description="Comment")
    def excerpt(self, obj: Comment) -> str:
        return (obj.body[:80] + "…") if len(obj.body) > 80 else (obj.body or "[deleted]")

    @admin.display(description="On")
    def on(self, obj: Comment) -> str:
        return str(obj.question or obj.concept)

    @admin.display(description="Open reports", ordering="open_report_count")
    def open_reports(self, obj: Comment) -> int:
        return obj.open_report_count

    @admin.display(description="State")
    def state(self, obj: Comment) -> str:
        if obj.is_hidden:
            return "hidden"
        if obj.is_deleted:
            return "deleted"
        return "visible"

    @admin.display(description="As shown")
    def rendered(self, obj: Comment) -> str:
        # body_html was sanitised by nh3 when it was written.
        return format_html('<div class="comment-preview">{}</div>', mark_safe(obj.body_html))

    def has_moderate_permission(self, request) -> bool:
        return request.user.has_perm(discussion_services.MODERATE)

    @admin.action(description="Hide selected comments", permissions=["moderate"])
    def hide(self, request, queryset):
        for comment in queryset:
            discussion_services.comment_hide(moderator=request.user, comment=comment)
        self.message_user(request, f"Hid {queryset.count()} comment(s).", messages.SUCCESS)

    @admin.action(description="Restore selected comments", permissions=["moderate"])
    def restore(self, request, queryset):
        for comment in queryset:
            discussion_services.comment_restore(moderator=request.user, comment=comment)
        self.message_user(request, f"Restored {queryset.count()} comment(s).", messages.SUCCESS)


@admin.register(CommentReport)
class CommentReportAdmin(admin.ModelAdmin):
    list_display = ["comment", "reporter", "reason", "created_at", "resolved_at"]
    list_filter = ["reason", ("resolved_at", admin.EmptyFieldListFilter)]
    list_select_related = ["comment", "reporter"]
    readonly_fields = ["comment", "reporter", "reason", "note", "created_at"]


@admin.register(Bookmark)
class BookmarkAdmin(admin.ModelAdmin):
    list_display = ["user", "question", "concept", "created_at"]
    list_select_related = ["user", "question__track", "concept"]
    raw_id_fields = ["user", "question", "concept"]


@admin.register(Progress)
class ProgressAdmin(admin.ModelAdmin):
    list_display = ["user", "question", "status", "updated_at"]
    list_filter = ["status"]
    list_select_related = ["user", "question__track"]
    exclude = ["approach"]  # private to the learner
    readonly_fields = ["user", "question", "status", "approach_updated_at", "revealed_at"]


@admin.register(ReviewCard)
class ReviewCardAdmin(admin.ModelAdmin):
    list_display = ["user", "question", "state", "due", "reps", "last_rating"]
    list_filter = ["state"]
    list_select_related = ["user", "question__track"]
    readonly_fields = [f.name for f in ReviewCard._meta.fields]


@admin.register(DifficultyVote)
class DifficultyVoteAdmin(admin.ModelAdmin):
    list_display = ["user", "question", "felt", "updated_at"]
    list_filter = ["felt"]
    list_select_related = ["user", "question__track"]


# The authors' queue of reported mistakes registers itself.
from inferview.community.corrections import admin as corrections_admin  # noqa: E402, F401
