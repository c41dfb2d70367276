"""Serializers for mock interviews: starting one, its items as they are answered, and the
summary at the end."""

from __future__ import annotations

from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from inferview.community.models import (
    MockSession,
)
from inferview.community.practice import graded, key_points, mock
from inferview.community.practice import services as practice_services
from questions.models import Difficulty, Kind
from questions.practice import KEY_POINTS_MAX

from .graded_serializers import OptionalNumericValueField
from .serializers import QuestionBriefSerializer


class MockStartSerializer(serializers.Serializer):
    size = serializers.ChoiceField(
        choices=[(n, str(n)) for n in mock.SIZES], help_text="How many questions"
    )
    minutes = serializers.ChoiceField(
        choices=[(n, str(n)) for n in mock.MINUTES],
        default=10,
        help_text="Minutes per question",
    )
    track = serializers.SlugField(required=False, allow_blank=True, default="", max_length=80)
    difficulty = serializers.ChoiceField(
        choices=Difficulty.choices, required=False, allow_blank=True, default=""
    )
    kind = serializers.ChoiceField(
        choices=Kind.choices, required=False, allow_blank=True, default=""
    )


class MockFiltersSerializer(serializers.Serializer):
    # a session's filters hold only what was chosen: a missing one reads as "any"
    track = serializers.CharField(allow_blank=True, default="")
    difficulty = serializers.CharField(allow_blank=True, default="")
    kind = serializers.CharField(allow_blank=True, default="")


class MockNumericSerializer(serializers.Serializer):
    attempt = serializers.IntegerField()
    prompt = serializers.CharField()
    unit = serializers.CharField()
    units = serializers.ListField(child=serializers.CharField())


class MockItemSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    question = QuestionBriefSerializer()
    started_at = serializers.DateTimeField(allow_null=True)
    answered_at = serializers.DateTimeField(allow_null=True)
    seconds = serializers.IntegerField(allow_null=True)
    response = serializers.CharField(allow_blank=True, help_text="Your answer")
    current = serializers.BooleanField(help_text="The question to answer now")
    numeric = MockNumericSerializer(
        allow_null=True, help_text="The current question's number to work out, if it has one"
    )
    key_points = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="Null while answering; then the points to tick ([] when locked)",
    )


class MockSummaryRowSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    question = serializers.IntegerField()
    seconds = serializers.IntegerField(allow_null=True)
    made = serializers.IntegerField(allow_null=True)
    total = serializers.IntegerField()
    correct = serializers.BooleanField(allow_null=True)
    mistake = serializers.CharField(allow_blank=True)
    review_next = serializers.BooleanField()


class MockSessionSerializer(serializers.ModelSerializer):
    filters = MockFiltersSerializer()
    stage = serializers.SerializerMethodField()
    size = serializers.SerializerMethodField()

    class Meta:
        model = MockSession
        fields = [
            "id",
            "stage",
            "size",
            "minutes_per_question",
            "filters",
            "started_at",
            "finished_at",
        ]

    @extend_schema_field(serializers.ChoiceField(choices=["answering", "key-points", "done"]))
    def get_stage(self, obj: MockSession) -> str:
        return mock.stage(obj)

    def get_size(self, obj: MockSession) -> int:
        return len(obj.items.all())


class MockSessionDetailSerializer(MockSessionSerializer):
    items = serializers.SerializerMethodField()
    summary = serializers.SerializerMethodField()

    class Meta(MockSessionSerializer.Meta):
        fields = MockSessionSerializer.Meta.fields + ["items", "summary"]

    @extend_schema_field(MockItemSerializer(many=True))
    def get_items(self, obj: MockSession) -> list[dict]:
        request = self.context["request"]
        stage = mock.stage(obj)
        current = mock.current_item(obj) if stage == "answering" else None
        rows = []
        for item in obj.items.all():
            numeric = None
            if item is current and item.question.practice_spec is not None:
                asked = graded.variant(
                    user=request.user, session=request.session, question=item.question
                )
                numeric = {
                    "attempt": asked.number,
                    "prompt": asked.prompt,
                    "unit": asked.spec.unit,
                    "units": asked.spec.units,
                }
            rows.append(
                {
                    "position": item.position,
                    "question": item.question,
                    "started_at": item.started_at,
                    "answered_at": item.answered_at,
                    "seconds": item.seconds,
                    "response": item.response,
                    "current": item is current,
                    "numeric": numeric,
                    "key_points": None
                    if stage == "answering"
                    else key_points.key_points_for(request.user, item.question),
                }
            )
        return MockItemSerializer(rows, many=True).data

    @extend_schema_field(MockSummaryRowSerializer(many=True, allow_null=True))
    def get_summary(self, obj: MockSession) -> list[dict] | None:
        if mock.stage(obj) != "done":
            return None
        rows = [
            {
                "position": row.item.position,
                "question": row.item.question_id,
                "seconds": row.seconds,
                "made": row.made,
                "total": row.total,
                "correct": row.correct,
                "mistake": row.mistake,
                "review_next": row.review_next,
            }
            for row in mock.summary(obj)
        ]
        return MockSummaryRowSerializer(rows, many=True).data


class MockAnswerWriteSerializer(serializers.Serializer):
    position = serializers.IntegerField(
        min_value=1, max_value=max(mock.SIZES), help_text="The current question's position"
    )
    response = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=practice_services.APPROACH_MAX_LENGTH,
        help_text="Your answer, as you would say it",
    )
    value = OptionalNumericValueField()
    unit = serializers.CharField(required=False, allow_blank=True, allow_null=True, max_length=24)


class MockFinishSerializer(serializers.Serializer):
    ticks = serializers.DictField(
        child=serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=KEY_POINTS_MAX),
            max_length=KEY_POINTS_MAX,
        ),
        required=False,
        default=dict,
        help_text='Position to the key points made: {"1": [1, 3], "2": []}',
    )

    def validate_ticks(self, value: dict) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for key, made in value.items():
            try:
                position = int(key)
            except ValueError:
                position = 0
            if not 1 <= position <= max(mock.SIZES):
                raise serializers.ValidationError(f"{key!r} is not a question position.")
            out[position] = made
        return out
