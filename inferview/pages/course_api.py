"""The course's API: lessons (list and detail, gated like answers), a learner's progress
in a lesson, and grading a check yourself. A locked lesson comes back with its title,
summary and table of contents, ``body_html: null``, ``check: []`` and a ``locked``
object: its body, items and answers never leave the server for that reader."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers, status, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from calculators.grading import ANSWER_UNITS
from inferview.access import policy
from inferview.api.errors import ApiError
from inferview.api.strict import type_problems
from questions import lessons
from questions.lesson_checks import grade_check, public_items
from questions.markdown import render_markdown
from questions.models import Lesson

from .content_api import CheckedField, ConceptRefSerializer, LockSerializer, _lock_for


class TocEntrySerializer(serializers.Serializer):
    anchor = serializers.CharField()
    title = serializers.CharField()


class CheckItemSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["choice", "number"])
    prompt = serializers.CharField()
    choices = serializers.ListField(child=serializers.CharField(), required=False)
    unit = serializers.CharField(required=False)
    units = serializers.ListField(child=serializers.CharField(), required=False)


class LessonListSerializer(serializers.ModelSerializer):
    part = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()
    locked = serializers.SerializerMethodField()
    checked = CheckedField()

    class Meta:
        model = Lesson
        fields = [
            "slug", "part", "number", "title", "summary", "level", "access", "minutes",
            "updated_at", "checked", "url", "locked",
        ]  # fmt: skip

    @extend_schema_field(
        inline_serializer(
            "LessonPart",
            fields={
                "number": serializers.IntegerField(),
                "slug": serializers.CharField(),
                "title": serializers.CharField(),
            },
        )
    )
    def get_part(self, obj: Lesson) -> dict[str, Any]:
        return {"number": obj.part.number, "slug": obj.part.slug, "title": obj.part.title}

    def get_url(self, obj: Lesson) -> str:
        return obj.get_absolute_url()

    @extend_schema_field(LockSerializer(allow_null=True))
    def get_locked(self, obj: Lesson) -> dict | None:
        return _lock_for(self.context.get("request"), obj)


class LessonDetailSerializer(LessonListSerializer):
    toc = serializers.SerializerMethodField()
    body_html = serializers.SerializerMethodField()
    check = serializers.SerializerMethodField()
    prerequisites = serializers.SerializerMethodField()
    concepts = ConceptRefSerializer(many=True, read_only=True)
    questions = serializers.SerializerMethodField()

    class Meta(LessonListSerializer.Meta):
        fields = LessonListSerializer.Meta.fields + [
            "toc", "body_html", "check", "prerequisites", "concepts", "questions", "references",
        ]  # fmt: skip

    def _readable(self, obj: Lesson) -> bool:
        request = self.context.get("request")
        return policy.can_read(request.user if request else None, obj)

    @extend_schema_field(TocEntrySerializer(many=True))
    def get_toc(self, obj: Lesson) -> list[dict[str, str]]:
        return [{"anchor": e.anchor, "title": e.title} for e in lessons.table_of_contents(obj.body)]

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_body_html(self, obj: Lesson) -> str | None:
        if not self._readable(obj):
            return None
        toc = lessons.table_of_contents(obj.body)
        return lessons.with_anchors(str(render_markdown(obj.body)), toc)

    @extend_schema_field(CheckItemSerializer(many=True))
    def get_check(self, obj: Lesson) -> list[dict[str, Any]]:
        """Prompts, choices and units only (never answers); [] when locked for you."""
        return public_items(obj.check_items) if self._readable(obj) else []

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_prerequisites(self, obj: Lesson) -> list[str]:
        return [p.slug for p in obj.prerequisites.all() if p.published]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_questions(self, obj: Lesson) -> list[str]:
        return [
            q.get_absolute_url() for q in obj.questions.all() if q.published and q.track.published
        ]


class LessonViewSet(viewsets.ReadOnlyModelViewSet):
    lookup_field = "slug"

    def get_queryset(self):
        qs = lessons.published_lessons().select_related("part").order_by("part__number", "number")
        if self.action == "retrieve":
            qs = qs.prefetch_related("prerequisites", "concepts", "questions__track")
        return qs

    def get_serializer_class(self):
        return LessonDetailSerializer if self.action == "retrieve" else LessonListSerializer


class LessonProgressWriteSerializer(serializers.Serializer):
    done = serializers.BooleanField(help_text="Whether you have finished reading the lesson")


class LessonProgressSerializer(serializers.Serializer):
    lesson = serializers.CharField()
    done = serializers.BooleanField()
    done_at = serializers.DateTimeField(allow_null=True)
    check_passed = serializers.BooleanField()
    check_passed_at = serializers.DateTimeField(allow_null=True)


def _progress_payload(lesson: Lesson, row: Any) -> dict[str, Any]:
    return {
        "lesson": lesson.slug,
        "done": bool(row and row.done_at),
        "done_at": row.done_at if row else None,
        "check_passed": bool(row and row.check_passed_at),
        "check_passed_at": row.check_passed_at if row else None,
    }


def _readable_lesson(request: Request, slug: str) -> Lesson:
    lesson = lessons.by_slug(slug)
    if not policy.can_read(request.user, lesson):
        lock = policy.locked_reason(request.user, lesson)
        raise ApiError(
            "locked",
            f"This lesson needs {'a free account' if lock and lock.code == 'account' else 'Premium'}.",
            status_code=status.HTTP_403_FORBIDDEN,
        )
    return lesson


class LessonProgressView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Mark a lesson done or not done",
        request=LessonProgressWriteSerializer,
        responses=LessonProgressSerializer,
        tags=["course"],
    )
    def put(self, request: Request, slug: str) -> Response:
        # the body first: a malformed one is a 400 whatever the slug
        data = LessonProgressWriteSerializer(data=request.data)
        if problems := type_problems(data, request.data):  # JSON types, no coercion
            raise ApiError("invalid", "The request has invalid fields.", problems)
        data.is_valid(raise_exception=True)
        lesson = _readable_lesson(request, slug)
        row = lessons.mark_done(user=request.user, lesson=lesson, done=data.validated_data["done"])
        return Response(_progress_payload(lesson, row))


MAX_CHECK_ITEMS = 10
ANSWER_TEXT_MAX = 40
#: One answer as the schema documents it: a JSON number (a choice's 0-based index, or a
#: number item's value in the item's unit) or {"value", "unit"} for a number item.
CHECK_ANSWER_SCHEMA = {
    "anyOf": [
        {"type": "number"},
        {
            "type": "object",
            "properties": {
                "value": {
                    "anyOf": [
                        {"type": "number"},
                        {"type": "string", "minLength": 1, "maxLength": ANSWER_TEXT_MAX},
                    ]
                },
                "unit": {"type": "string", "enum": list(ANSWER_UNITS)},
            },
            "required": ["value"],
            "additionalProperties": False,
        },
    ]
}


def _answer_problem(raw: Any) -> str | None:
    """Why ``raw`` does not fit CHECK_ANSWER_SCHEMA, else None."""
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        return None
    if not isinstance(raw, dict):
        return 'must be a number or {"value": ..., "unit": ...}'
    if set(raw) - {"value", "unit"} or "value" not in raw:
        return 'an object answer takes "value" (required) and "unit" only'
    value = raw["value"]
    text_ok = isinstance(value, str) and 1 <= len(value) <= ANSWER_TEXT_MAX
    if not text_ok and (isinstance(value, bool) or not isinstance(value, int | float)):
        return f"value must be a number or text of 1 to {ANSWER_TEXT_MAX} characters"
    if "unit" in raw and raw["unit"] not in ANSWER_UNITS:
        return "unit is not a known unit"
    return None


@extend_schema_field(
    {
        "type": "array",
        "items": CHECK_ANSWER_SCHEMA,
        "maxItems": MAX_CHECK_ITEMS,
        "description": "One per item, in order: a choice's 0-based index, or a number "
        'item\'s number (read in the item\'s unit) or {"value": 209, "unit": "tokens/s"}.',
    }
)
class CheckAnswersField(serializers.ListField):
    """The answers, each held to CHECK_ANSWER_SCHEMA (no coercion)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.JSONField(), max_length=MAX_CHECK_ITEMS, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, list):
            self.fail("not_a_list", input_type=type(data).__name__)
        problems = {str(i): [p] for i, raw in enumerate(data) if (p := _answer_problem(raw))}
        if problems:
            raise serializers.ValidationError(problems)
        return super().to_internal_value(data)


class CheckAnswerSerializer(serializers.Serializer):
    answers = CheckAnswersField()


class CheckResultSerializer(serializers.Serializer):
    passed = serializers.BooleanField()
    score = serializers.IntegerField()
    items = serializers.ListField(child=serializers.BooleanField())


class LessonCheckView(APIView):
    @extend_schema(
        summary="Grade your answers to a lesson's check yourself",
        description="A body its schema refuses is a 400. A well-formed body is still "
        "answered 422, naming the item, when it does not fit this lesson's check (rules "
        "the schema cannot state, as they differ per lesson): one answer per item, in "
        "order; a choice item's answer is the index of one of its choices; a number "
        "item's answer reads as a finite number, in a unit of the item's kind.",
        request=CheckAnswerSerializer,
        responses={
            200: CheckResultSerializer,
            422: OpenApiResponse(
                description="Well formed, but not answers to this lesson's items."
            ),
        },
        tags=["course"],
    )
    def post(self, request: Request, slug: str) -> Response:
        data = CheckAnswerSerializer(data=request.data)
        if problems := type_problems(data, request.data):  # JSON types, no coercion
            raise ApiError("invalid", "The request has invalid fields.", problems)
        data.is_valid(raise_exception=True)
        lesson = _readable_lesson(request, slug)
        answers = data.validated_data["answers"]
        # Well formed from here on: what does not fit this lesson is a 422 (documented).
        unfit = status.HTTP_422_UNPROCESSABLE_ENTITY
        if len(answers) != len(lesson.check_items):
            raise ApiError(
                "invalid",
                "The request has invalid fields.",
                {"answers": [f"give {len(lesson.check_items)} answers, one per item"]},
                unfit,
            )
        for n, raw in enumerate(answers):
            if isinstance(raw, dict) and lesson.check_items[n].get("kind") != "number":
                raise ApiError(
                    "invalid",
                    "The request has invalid fields.",
                    {f"item-{n + 1}": ["not an answer to this item"]},
                    unfit,
                )
        result = grade_check(lesson.check_items, answers)
        if result.errors:
            raise ApiError("invalid", "Some answers could not be read.", result.errors, unfit)
        if request.user.is_authenticated:
            lessons.record_check(user=request.user, lesson=lesson, passed=result.passed)
        return Response(
            {
                "passed": result.passed,
                "score": result.score,
                "items": [r.correct for r in result.items],
            },
            status=status.HTTP_200_OK,
        )
