"""Serializers for the community API (reads and validated writes)."""

from __future__ import annotations

from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from inferview.community.discussion import services as discussion_services
from inferview.community.models import (
    Bookmark,
    Comment,
    CommentReport,
    DifficultyFelt,
    Progress,
    ProgressStatus,
    Rating,
    ReviewCard,
)
from inferview.community.practice import services as practice_services
from questions import search as site_search
from questions.models import Concept, Difficulty, Question


class QuestionBriefSerializer(serializers.ModelSerializer):
    track = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    url = serializers.CharField(source="get_absolute_url", read_only=True)

    class Meta:
        model = Question
        fields = ["id", "track", "number", "title", "difficulty", "kind", "access", "url"]


class ConceptBriefSerializer(serializers.ModelSerializer):
    url = serializers.CharField(source="get_absolute_url", read_only=True)

    class Meta:
        model = Concept
        fields = ["id", "slug", "title", "level", "access", "url"]


class BookmarkSerializer(serializers.ModelSerializer):
    question = QuestionBriefSerializer(read_only=True, allow_null=True)
    concept = ConceptBriefSerializer(read_only=True, allow_null=True)

    class Meta:
        model = Bookmark
        fields = ["id", "question", "concept", "created_at"]


class BookmarkToggleSerializer(serializers.Serializer):
    question = serializers.IntegerField(required=False, help_text="Question id")
    concept = serializers.SlugField(required=False, help_text="Concept slug")

    def validate(self, attrs):
        if bool(attrs.get("question")) == bool(attrs.get("concept")):
            raise serializers.ValidationError(
                {"question": ["Give exactly one of question or concept."]}
            )
        return attrs


class BookmarkStateSerializer(serializers.Serializer):
    bookmarked = serializers.BooleanField()
    count = serializers.IntegerField(help_text="How many bookmarks the user has")


class ReviewCardSerializer(serializers.ModelSerializer):
    state = serializers.CharField(source="get_state_display")
    last_rating = serializers.CharField(source="get_last_rating_display", allow_null=True)
    question = QuestionBriefSerializer(read_only=True)

    class Meta:
        model = ReviewCard
        fields = [
            "question",
            "state",
            "step",
            "stability",
            "difficulty",
            "due",
            "last_review",
            "reps",
            "last_rating",
        ]


class ProgressSerializer(serializers.ModelSerializer):
    question = QuestionBriefSerializer(read_only=True)

    class Meta:
        model = Progress
        fields = [
            "question",
            "status",
            "approach",
            "approach_updated_at",
            "revealed_at",
            "updated_at",
        ]


class PracticeSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=ProgressStatus.choices)
    approach = serializers.CharField(allow_blank=True)
    approach_updated_at = serializers.DateTimeField(allow_null=True)
    revealed_at = serializers.DateTimeField(allow_null=True)
    card = ReviewCardSerializer(allow_null=True)


class PracticeWriteSerializer(serializers.Serializer):
    approach = serializers.CharField(
        allow_blank=True, max_length=practice_services.APPROACH_MAX_LENGTH, trim_whitespace=True
    )
    reveal = serializers.BooleanField(default=False)


class RatingWriteSerializer(serializers.Serializer):
    rating = serializers.ChoiceField(
        choices=[(label.lower(), label) for _, label in Rating.choices]
    )


class ProgressWriteSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=ProgressStatus.choices)


class AuthorSerializer(serializers.Serializer):
    username = serializers.CharField()


class ReplySerializer(serializers.ModelSerializer):
    author = serializers.SerializerMethodField()
    body_html = serializers.SerializerMethodField()
    body = serializers.SerializerMethodField()
    state = serializers.SerializerMethodField()

    class Meta:
        model = Comment
        fields = ["id", "parent", "author", "body", "body_html", "state", "created_at", "edited_at"]

    def get_author(self, obj: Comment) -> str | None:
        return obj.author.public_name if obj.is_visible else None

    def get_body(self, obj: Comment) -> str:
        return obj.body if obj.is_visible else ""

    def get_body_html(self, obj: Comment) -> str:
        return obj.body_html if obj.is_visible else ""

    def get_state(self, obj: Comment) -> str:
        return "hidden" if obj.is_hidden else "deleted" if obj.is_deleted else "visible"


class CommentSerializer(ReplySerializer):
    replies = serializers.SerializerMethodField()

    class Meta(ReplySerializer.Meta):
        fields = ReplySerializer.Meta.fields + ["replies"]

    @extend_schema_field(ReplySerializer(many=True))
    def get_replies(self, obj: Comment) -> list[dict]:
        return ReplySerializer(
            [r for r in getattr(obj, "thread_replies", []) if r.is_visible], many=True
        ).data


class CommentWriteSerializer(serializers.Serializer):
    body = serializers.CharField(max_length=discussion_services.COMMENT_MAX_LENGTH)
    parent = serializers.IntegerField(required=False, allow_null=True)


class CommentEditSerializer(serializers.Serializer):
    body = serializers.CharField(max_length=discussion_services.COMMENT_MAX_LENGTH)


class ReportWriteSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=CommentReport.Reason.choices)
    note = serializers.CharField(required=False, allow_blank=True, max_length=500)


class DifficultySerializer(serializers.Serializer):
    difficulty = serializers.ChoiceField(choices=Difficulty.choices, help_text="The authors' label")
    easier = serializers.IntegerField()
    as_labelled = serializers.IntegerField()
    harder = serializers.IntegerField()
    felt = serializers.ChoiceField(
        choices=DifficultyFelt.choices, allow_null=True, help_text="Your own vote, if any"
    )


class DifficultyWriteSerializer(serializers.Serializer):
    felt = serializers.ChoiceField(choices=DifficultyFelt.choices)


class UpNextSerializer(serializers.Serializer):
    next_in_track = QuestionBriefSerializer(allow_null=True)
    closest = QuestionBriefSerializer(many=True)


class SearchHitSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=[(t, t) for t in site_search.TYPES])
    title = serializers.CharField()
    url = serializers.CharField()
    snippet_html = serializers.CharField(
        source="snippet", help_text="Escaped text with <mark> highlights"
    )
    score = serializers.FloatField()
    answer_searched = serializers.BooleanField(
        source="guarded_searched",
        help_text="False when the answer or body is locked for this viewer and was not searched",
    )


class DashboardTrackSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    total = serializers.IntegerField()
    attempted = serializers.IntegerField()
    confident = serializers.IntegerField()


class DashboardSerializer(serializers.Serializer):
    tracks = DashboardTrackSerializer(many=True)
    due = ReviewCardSerializer(many=True)
    upcoming = ReviewCardSerializer(many=True)
    bookmarks = BookmarkSerializer(many=True)
    comments = ReplySerializer(many=True)
