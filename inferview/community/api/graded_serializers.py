"""Serializers for graded practice: a question's variant, a numeric answer and its grade,
key points. The expected number, the worked steps and the key points are part of the
answer: they are null (or []) for a viewer who may not read it."""

from __future__ import annotations

from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from calculators import grading
from calculators.grading import MAX_FOLLOW_UPS
from inferview.access import policy
from inferview.community.models import (
    KeyPointScore,
    NumericAnswer,
)
from inferview.community.practice import graded
from questions.practice import KEY_POINTS_MAX

from .serializers import QuestionBriefSerializer

VALUE_MAX_LENGTH = 40  # as the HTML form's field


@extend_schema_field(
    {
        "oneOf": [
            {"type": "number"},
            {"type": "string", "maxLength": VALUE_MAX_LENGTH},
        ],
        "description": "Your number: a JSON number, or text such as 1.5e3 or 12,000.",
    }
)
class NumericValueField(serializers.Field):
    """A number or its text; the grading service parses it and checks its range."""

    default_error_messages = {
        "invalid": "Enter a number, such as 42 or 1.5e3.",
        "max_length": f"Use at most {VALUE_MAX_LENGTH} characters.",
    }

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float | str):
            self.fail("invalid")
        if isinstance(data, str) and len(data) > VALUE_MAX_LENGTH:
            self.fail("max_length")
        return str(data)  # as text, so a JSON 0 is an answer and not "no answer"

    def to_representation(self, value):
        return value


@extend_schema_field(
    {
        "oneOf": [
            {"type": "number"},
            {"type": "string", "maxLength": VALUE_MAX_LENGTH},
        ],
        "nullable": True,
        "description": "The number, for a question that asks one (a JSON number or text).",
    }
)
class OptionalNumericValueField(NumericValueField):
    def __init__(self, **kwargs):
        super().__init__(required=False, allow_null=True, **kwargs)


class VariantQuerySerializer(serializers.Serializer):
    attempt = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=graded.MAX_ATTEMPTS,
        help_text="Attempt number, from 1 to your latest (default: your latest)",
    )
    follow_up = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_FOLLOW_UPS,
        help_text="Ask one of the question's follow-ups instead of the question itself",
    )


class FollowUpSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    prompt = serializers.CharField()


class VariantSerializer(serializers.Serializer):
    question = serializers.IntegerField(help_text="Question id")
    attempt = serializers.IntegerField()
    follow_up = serializers.IntegerField(allow_null=True)
    prompt = serializers.CharField(help_text="What is asked (the follow-up when one is chosen)")
    base_prompt = serializers.CharField(help_text="The attempt's question without a follow-up")
    unit = serializers.CharField(help_text="The unit answers are graded in")
    units = serializers.ListField(
        child=serializers.CharField(), help_text="Units an answer may be given in"
    )
    tolerance = serializers.FloatField(help_text="Relative tolerance: 0.02 is within 2%")
    follow_ups = FollowUpSerializer(many=True)


ANSWER_UNITS = grading.ANSWER_UNITS


class AnswerUnitField(serializers.ChoiceField):
    """One of the known units; which of them a given question takes is the variant's
    ``units`` (another unit of the set is answered 422, see AnswerListView)."""

    def __init__(self, **kwargs):
        super().__init__(choices=list(ANSWER_UNITS), allow_blank=True, **kwargs)


class NumericAnswerWriteSerializer(serializers.Serializer):
    question = serializers.IntegerField(min_value=1, help_text="Question id")
    value = NumericValueField()
    unit = AnswerUnitField(
        help_text="The unit of value: one of the variant's units (a unit of another kind "
        "than the question's is answered 422)"
    )
    attempt = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=graded.MAX_ATTEMPTS
    )
    follow_up = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=MAX_FOLLOW_UPS
    )


class MistakeSerializer(serializers.Serializer):
    slug = serializers.CharField()
    label = serializers.CharField(help_text="What the answer did")
    explanation = serializers.CharField(help_text="How to avoid it")


class StepSerializer(serializers.Serializer):
    title = serializers.CharField(allow_null=True)
    lines = serializers.ListField(child=serializers.CharField())


class GradeSerializer(serializers.Serializer):
    question = serializers.IntegerField()
    attempt = serializers.IntegerField()
    follow_up = serializers.IntegerField(allow_null=True)
    correct = serializers.BooleanField()
    mistake = MistakeSerializer(
        allow_null=True, help_text="The usual slip the answer matches, if any"
    )
    direction = serializers.CharField(
        help_text='"high", "low", or "" when right (or when the answer is locked for you)'
    )
    answer = serializers.FloatField(
        allow_null=True, help_text="Your answer converted to the question's unit"
    )
    unit = serializers.CharField(help_text="The question's unit")
    expected = serializers.FloatField(
        allow_null=True,
        help_text="The right number; null unless you may read the question's answer",
    )
    steps = StepSerializer(
        many=True,
        allow_null=True,
        help_text="The worked steps; null unless you may read the question's answer",
    )
    saved_id = serializers.IntegerField(
        allow_null=True, help_text="The stored answer (signed in only)"
    )


def mistake_payload(slug: str | None) -> dict | None:
    found = graded.grading.MISTAKES.get(slug or "")
    if found is None:
        return None
    return {"slug": found.slug, "label": found.label, "explanation": found.explanation}


class NumericAnswerSerializer(serializers.ModelSerializer):
    question = QuestionBriefSerializer(source="draw.question", read_only=True)
    attempt = serializers.IntegerField(source="draw.number", read_only=True)
    mistake = serializers.SerializerMethodField()
    expected = serializers.SerializerMethodField()

    class Meta:
        model = NumericAnswer
        fields = [
            "id",
            "question",
            "attempt",
            "follow_up",
            "value",
            "unit",
            "answer",
            "expected",
            "correct",
            "mistake",
            "created_at",
        ]

    @extend_schema_field(MistakeSerializer(allow_null=True))
    def get_mistake(self, obj: NumericAnswer) -> dict | None:
        return mistake_payload(obj.mistake)

    @extend_schema_field(
        serializers.FloatField(
            allow_null=True,
            help_text="Null unless you may read the question's answer and this answer was "
            "right or the answer was shown (Show answer or the third miss)",
        )
    )
    def get_expected(self, obj: NumericAnswer) -> float | None:
        request = self.context.get("request")
        user = request.user if request else None
        # try first: a wrong answer's number stays hidden until that part was shown
        shown = obj.correct or (obj.follow_up or 0) in (obj.draw.shown_for or [])
        return obj.expected if shown and policy.can_read(user, obj.draw.question) else None


class KeyPointScoreSerializer(serializers.ModelSerializer):
    made = serializers.ListField(child=serializers.IntegerField(), help_text="Points made, from 1")
    percent = serializers.SerializerMethodField()

    class Meta:
        model = KeyPointScore
        fields = ["made", "total", "percent", "created_at"]

    def get_percent(self, obj: KeyPointScore) -> int:
        return round(100 * obj.fraction)


class KeyPointsSerializer(serializers.Serializer):
    key_points = serializers.ListField(
        child=serializers.CharField(),
        help_text="The points a good answer makes; [] when you may not read the answer",
    )
    last = KeyPointScoreSerializer(allow_null=True, help_text="Your latest score, if any")


class KeyPointsWriteSerializer(serializers.Serializer):
    made = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=KEY_POINTS_MAX),
        max_length=KEY_POINTS_MAX,
        help_text="The numbers (from 1) of the key points your answer made",
    )
