"""Serializers for the community API (reads and validated writes)."""

from __future__ import annotations

from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from calculators.grading import MAX_FOLLOW_UPS
from inferview.access import policy
from inferview.community.discussion import services as discussion_services
from inferview.community.models import (
    Bookmark,
    Comment,
    CommentReport,
    CramItem,
    DifficultyFelt,
    KeyPointScore,
    MockSession,
    NumericAnswer,
    Progress,
    ProgressStatus,
    Rating,
    ReviewCard,
)
from inferview.community.practice import graded, mock
from inferview.community.practice import services as practice_services
from questions import search as site_search
from questions.models import Concept, Difficulty, Kind, Question
from questions.practice import KEY_POINTS_MAX

# --- Serializers -----------------------------------------------------------------------------


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


# --- Graded practice -------------------------------------------------------------------------

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


class NumericAnswerWriteSerializer(serializers.Serializer):
    question = serializers.IntegerField(min_value=1, help_text="Question id")
    value = NumericValueField()
    unit = serializers.CharField(max_length=24, help_text="One of the variant's units")
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
            allow_null=True, help_text="Null unless you may read the question's answer"
        )
    )
    def get_expected(self, obj: NumericAnswer) -> float | None:
        request = self.context.get("request")
        user = request.user if request else None
        return obj.expected if policy.can_read(user, obj.draw.question) else None


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


# --- Mock interviews -------------------------------------------------------------------------


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
                    else graded.key_points_for(request.user, item.question),
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


# --- Cram plans ------------------------------------------------------------------------------


class CramItemSerializer(serializers.ModelSerializer):
    question = QuestionBriefSerializer(read_only=True)
    reason = serializers.CharField(help_text="due, weak or new")
    done = serializers.SerializerMethodField()

    class Meta:
        model = CramItem
        fields = ["id", "question", "day", "reason", "done", "done_at"]

    def get_done(self, obj: CramItem) -> bool:
        return obj.done_at is not None


class CramDaySerializer(serializers.Serializer):
    day = serializers.DateField()
    items = CramItemSerializer(many=True)


class CramPlanSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    interview_on = serializers.DateField()
    tracks = serializers.ListField(child=serializers.CharField())
    created_at = serializers.DateTimeField()
    today = serializers.DateField()
    days_left = serializers.IntegerField()
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.IntegerField()
    behind = serializers.IntegerField(help_text="Items planned before today and not done")
    days = CramDaySerializer(many=True)


class CramPlanStateSerializer(serializers.Serializer):
    plan = CramPlanSerializer(allow_null=True, help_text="Your current plan, if you have one")


class CramPlanWriteSerializer(serializers.Serializer):
    interview_on = serializers.DateField(help_text="YYYY-MM-DD, after today")
    tracks = serializers.ListField(
        child=serializers.SlugField(max_length=80), max_length=50, help_text="Track slugs"
    )


class CramItemWriteSerializer(serializers.Serializer):
    done = serializers.BooleanField()
