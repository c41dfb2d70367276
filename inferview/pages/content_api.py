"""Read API for content. Guarded text (answers, concept bodies) goes through the access
policy: a viewer who may not read it gets ``null`` and a ``locked`` object instead."""

from __future__ import annotations

from django.db.models import Prefetch
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers, viewsets

from inferview.access import policy
from inferview.api.filters import StrictFilterSet
from inferview.community.practice import key_points
from questions import selectors
from questions.markdown import render_markdown
from questions.models import Concept, Guide, GuideItem, GuideSection, Question, Track


class LockSerializer(serializers.Serializer):
    tier = serializers.ChoiceField(choices=["account", "premium"])
    label = serializers.CharField()


def _lock_for(request, item) -> dict | None:
    lock = policy.locked_reason(request.user if request else None, item)
    if lock is None:
        return None
    return {"tier": lock.code, "label": lock.label}


class CheckedField(serializers.CharField):
    """``checked``: the month (YYYY-MM) the item's facts were last verified, shown on its
    page beside "Updated"; null when the item has none."""

    def __init__(self, **kwargs) -> None:
        super().__init__(
            read_only=True,
            allow_null=True,
            help_text="YYYY-MM: the month the facts were last verified; null when unset",
            **kwargs,
        )

    def to_representation(self, value: str) -> str | None:
        return value or None


class TrackSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    question_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Track
        fields = ["slug", "title", "category", "icon", "order", "summary", "question_count", "url"]

    def get_url(self, obj: Track) -> str:
        return obj.get_absolute_url()


class ConceptRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Concept
        fields = ["slug", "title", "category", "level", "access"]


class QuestionListSerializer(serializers.ModelSerializer):
    track = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    url = serializers.SerializerMethodField()
    is_new = serializers.SerializerMethodField()
    locked = serializers.SerializerMethodField()
    checked = CheckedField()

    class Meta:
        model = Question
        fields = [
            "id",
            "track",
            "number",
            "slug",
            "title",
            "summary",
            "difficulty",
            "kind",
            "access",
            "is_new",
            "published_at",
            "updated_at",
            "checked",
            "url",
            "locked",
        ]

    def get_url(self, obj: Question) -> str:
        return obj.get_absolute_url()

    def get_is_new(self, obj: Question) -> bool:
        return obj.is_new()

    @extend_schema_field(LockSerializer(allow_null=True))
    def get_locked(self, obj: Question) -> dict | None:
        return _lock_for(self.context.get("request"), obj)


class QuestionDetailSerializer(QuestionListSerializer):
    body_html = serializers.SerializerMethodField()
    answer_html = serializers.SerializerMethodField()
    answer_markdown = serializers.SerializerMethodField()
    key_points = serializers.SerializerMethodField()
    has_practice = serializers.SerializerMethodField()
    concepts = ConceptRefSerializer(many=True, read_only=True)

    class Meta(QuestionListSerializer.Meta):
        fields = QuestionListSerializer.Meta.fields + [
            "body_html",
            "answer_html",
            "answer_markdown",
            "key_points",
            "has_practice",
            "concepts",
        ]

    def get_body_html(self, obj: Question) -> str:
        return str(render_markdown(obj.body))

    def _readable(self, obj: Question) -> bool:
        request = self.context.get("request")
        return policy.can_read(request.user if request else None, obj)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_answer_html(self, obj: Question) -> str | None:
        return str(render_markdown(obj.answer)) if self._readable(obj) else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_answer_markdown(self, obj: Question) -> str | None:
        return obj.answer if self._readable(obj) else None

    @extend_schema_field(
        serializers.ListField(
            child=serializers.CharField(),
            help_text="The points a good answer makes; [] when the answer is locked for you",
        )
    )
    def get_key_points(self, obj: Question) -> list[str]:
        request = self.context.get("request")
        return key_points.key_points_for(request.user if request else None, obj)

    @extend_schema_field(
        serializers.BooleanField(help_text="Whether it can be practised with your own numbers")
    )
    def get_has_practice(self, obj: Question) -> bool:
        try:
            return obj.practice_spec is not None
        except ValueError:  # a stored spec that no longer parses offers no practice
            return False


class ConceptSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    body_html = serializers.SerializerMethodField()
    locked = serializers.SerializerMethodField()
    checked = CheckedField()

    class Meta:
        model = Concept
        fields = [
            "slug",
            "title",
            "category",
            "level",
            "access",
            "summary",
            "updated_at",
            "checked",
            "url",
            "locked",
            "body_html",
        ]

    def get_url(self, obj: Concept) -> str:
        return obj.get_absolute_url()

    @extend_schema_field(LockSerializer(allow_null=True))
    def get_locked(self, obj: Concept) -> dict | None:
        return _lock_for(self.context.get("request"), obj)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_body_html(self, obj: Concept) -> str | None:
        request = self.context.get("request")
        if not policy.can_read(request.user if request else None, obj):
            return None
        return str(render_markdown(obj.body))


class GuideItemSerializer(serializers.ModelSerializer):
    body_html = serializers.SerializerMethodField()

    class Meta:
        model = GuideItem
        fields = ["kind", "title", "body_html"]

    def get_body_html(self, obj: GuideItem) -> str:
        return str(render_markdown(obj.body))


class GuideSectionSerializer(serializers.ModelSerializer):
    concepts = serializers.SlugRelatedField(slug_field="slug", many=True, read_only=True)
    items = GuideItemSerializer(many=True, read_only=True)
    checked = CheckedField()

    class Meta:
        model = GuideSection
        fields = ["slug", "title", "checked", "concepts", "items"]


class GuideListSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    checked = CheckedField()

    class Meta:
        model = Guide
        fields = ["slug", "title", "summary", "updated_at", "checked", "url"]

    def get_url(self, obj: Guide) -> str:
        return obj.get_absolute_url()


class GuideDetailSerializer(GuideListSerializer):
    sections = GuideSectionSerializer(many=True, read_only=True)

    class Meta(GuideListSerializer.Meta):
        fields = GuideListSerializer.Meta.fields + ["sections"]


@extend_schema_field({"type": "string", "pattern": "^[^\\u0000]*$"})
class TextFilter(filters.CharFilter):
    """A text filter whose schema says what its form field refuses: a NUL (a 400 naming
    the parameter). Without the pattern a schema-valid request could be refused."""


class QuestionFilter(StrictFilterSet):
    track = TextFilter(field_name="track__slug")
    difficulty = filters.ChoiceFilter(choices=Question._meta.get_field("difficulty").choices)
    kind = filters.ChoiceFilter(choices=Question._meta.get_field("kind").choices)
    access = filters.ChoiceFilter(choices=Question._meta.get_field("access").choices)

    class Meta:
        model = Question
        fields = ["track", "difficulty", "kind", "access"]


class TrackViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = TrackSerializer
    lookup_field = "slug"

    def get_queryset(self):
        return selectors.tracks_with_counts()


class QuestionViewSet(viewsets.ReadOnlyModelViewSet):
    filterset_class = QuestionFilter

    def get_queryset(self):
        qs = (
            selectors.published_questions()
            .select_related("track")
            .order_by("track__order", "number")
        )
        if self.action == "retrieve":
            qs = qs.prefetch_related(Prefetch("concepts", queryset=Concept.objects.published()))
        return qs

    def get_serializer_class(self):
        return QuestionDetailSerializer if self.action == "retrieve" else QuestionListSerializer


class ConceptFilter(StrictFilterSet):
    category = filters.ChoiceFilter(choices=Concept._meta.get_field("category").choices)
    level = filters.ChoiceFilter(choices=Concept._meta.get_field("level").choices)

    class Meta:
        model = Concept
        fields = ["category", "level"]


class ConceptViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = ConceptSerializer
    lookup_field = "slug"
    filterset_class = ConceptFilter

    def get_queryset(self):
        return Concept.objects.published().order_by("category", "title")


class GuideViewSet(viewsets.ReadOnlyModelViewSet):
    lookup_field = "slug"

    def get_queryset(self):
        qs = Guide.objects.published()
        if self.action == "retrieve":
            # Only published concepts, as on the HTML guide page: a draft's slug is unreleased.
            qs = qs.prefetch_related(
                Prefetch(
                    "sections",
                    queryset=GuideSection.objects.order_by("order", "id").prefetch_related(
                        Prefetch(
                            "concepts", queryset=Concept.objects.published().order_by("title")
                        ),
                        Prefetch("items", queryset=GuideItem.objects.order_by("order", "id")),
                    ),
                )
            )
        return qs

    def get_serializer_class(self):
        return GuideDetailSerializer if self.action == "retrieve" else GuideListSerializer
