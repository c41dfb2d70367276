"""Graded practice and key points, under ``/api/v1/practice/`` (mock interviews and cram
plans are ``api.mock`` and ``api.cram``).

Thin adapters over ``community.practice.graded``, as the HTML views
in ``community.views.graded`` are: the services validate (errors name their field), write
atomically and apply the access policy. A question's expected number, worked steps and key
points are part of its answer: a viewer who may not read the answer gets null (or []) in
their place, so a locked question's number never leaves the server.

Writes read their body before looking anything up, so a malformed body is a 400 wherever
it is sent (tests/security/test_json_depth.py).
"""

from __future__ import annotations

import math
from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from inferview.api.errors import ApiError
from inferview.community.models import NumericAnswer
from inferview.community.practice import graded, key_points
from inferview.community.ratelimits import grading_rate_limited
from questions.models import Question
from questions.selectors import published_questions

from .common import call_service, get_question, validated
from .graded_serializers import (
    GradeSerializer,
    KeyPointScoreSerializer,
    KeyPointsSerializer,
    KeyPointsWriteSerializer,
    NumericAnswerSerializer,
    NumericAnswerWriteSerializer,
    VariantQuerySerializer,
    VariantSerializer,
    mistake_payload,
)

TAGS = ["practice"]


def has_practice(question: Question) -> bool:
    try:
        return question.practice_spec is not None
    except ValueError:  # a stored spec that no longer parses: no practice, not a 500
        return False


def practice_question(pk: Any) -> Question:
    """A published question with graded practice, else 404."""
    question = get_question(pk)
    if not has_practice(question):
        raise NotFound("This question has no graded practice.")
    return question


def check_attempt(request: Request, question: Question, attempt: Any, follow_up: Any) -> None:
    """A follow-up the question does not have is a 404 (no such thing); an attempt not
    drawn yet is a 409 (it exists once drawn: POST .../new-attempt/). Both are documented
    on the operations, so a well-formed request is never refused as malformed."""
    spec = question.practice_spec
    assert spec is not None  # practice_question / has_practice checked it
    if follow_up is not None and not 1 <= follow_up <= len(spec.follow_ups):
        raise ApiError(
            "not_found",
            f"This question has {len(spec.follow_ups)} follow-up(s).",
            {"follow_up": [f"choose from 1 to {len(spec.follow_ups)}"]},
            status.HTTP_404_NOT_FOUND,
        )
    if attempt is not None:
        current = graded.current_number(
            user=request.user, session=request.session, question=question
        )
        if attempt > current:
            raise ApiError(
                "not_drawn",
                f"Attempt {attempt} is not drawn yet; you are on attempt {current}.",
                {"attempt": [f"choose from 1 to {current}, or draw the next with new-attempt"]},
                status.HTTP_409_CONFLICT,
            )


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _variant_payload(v: graded.Variant) -> dict[str, Any]:
    return {
        "question": v.question.pk,
        "attempt": v.number,
        "follow_up": v.follow_up,
        "prompt": v.prompt,
        "base_prompt": v.base_prompt,
        "unit": v.spec.unit,
        "units": v.spec.units,
        "tolerance": v.spec.tolerance,
        "follow_ups": [{"number": n, "prompt": p} for n, p in v.follow_ups],
    }


def _grade_payload(result: graded.GradedAnswer) -> dict[str, Any]:
    """The grade; the expected number and the steps only for a reader of the answer."""
    steps = graded.worked_steps(result)  # None when the answer is locked
    v = result.variant
    return {
        "question": v.question.pk,
        "attempt": v.number,
        "follow_up": v.follow_up,
        "correct": result.grade.correct,
        "mistake": mistake_payload(result.grade.mistake),
        # too high or too low would let repeated guesses close in on a locked number
        "direction": result.grade.direction if result.may_read else "",
        "answer": _finite(result.grade.answer),
        "unit": v.spec.unit,
        # try first: the number only with the worked steps (right, Show answer, third miss)
        "expected": _finite(result.grade.expected) if result.reveals else None,
        "steps": steps["steps"] if steps is not None else None,
        "saved_id": result.saved.pk if result.saved is not None else None,
    }


class VariantView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Your numbers for a calculation question (anonymous visitors: per session)",
        parameters=[VariantQuerySerializer],
        responses={
            200: VariantSerializer,
            404: OpenApiResponse(
                description="No such question with practice, or no such follow-up of it."
            ),
            409: OpenApiResponse(
                description="That attempt is not drawn yet (error.code not_drawn): attempts "
                "exist from 1 to your latest; POST new-attempt draws the next."
            ),
        },
        tags=TAGS,
    )
    def get(self, request: Request, pk: int) -> Response:
        query = validated(VariantQuerySerializer, request.query_params)
        question = practice_question(pk)
        check_attempt(request, question, query.get("attempt"), query.get("follow_up"))
        asked = call_service(
            graded.variant,
            user=request.user,
            session=request.session,
            question=question,
            number=query.get("attempt"),
            follow_up=query.get("follow_up"),
        )
        return Response(VariantSerializer(_variant_payload(asked)).data)


class NewAttemptView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Draw new numbers: the next attempt",
        request=None,
        responses={201: VariantSerializer},
        tags=TAGS,
    )
    def post(self, request: Request, pk: int) -> Response:
        question = practice_question(pk)
        asked = call_service(
            graded.new_attempt, user=request.user, session=request.session, question=question
        )
        return Response(
            VariantSerializer(_variant_payload(asked)).data, status=status.HTTP_201_CREATED
        )


class AnswerListView(generics.ListAPIView):
    serializer_class = NumericAnswerSerializer

    def get_permissions(self):
        # AllowAny, not [], for the public write: the schema generator declares an operation
        # public only when it sees AllowAny.
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator
            return NumericAnswer.objects.none()
        return NumericAnswer.objects.filter(
            draw__user=self.request.user,
            draw__question__in=published_questions(),
        ).select_related("draw__question__track")

    @extend_schema(
        summary="Your numeric answers, newest first (the right number only where you may "
        "read the answer)",
        tags=TAGS,
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Grade a numeric answer to your current (or a given) attempt; stored and "
        "scheduled for review when signed in; rate limited",
        description="Refused as malformed (400) only when the body breaks its schema. A "
        "well-formed body can still name what does not exist: a question without graded "
        "practice or a follow-up it does not have (404), an attempt not drawn yet (409), or "
        "break this rule the schema cannot state: `unit` must be one of the question's "
        "units, those of the same kind as its own (the variant's `units`) (422).",
        request=NumericAnswerWriteSerializer,
        responses={
            200: GradeSerializer,
            404: OpenApiResponse(
                description="No published question with graded practice has this id, or "
                "it has no such follow-up."
            ),
            409: OpenApiResponse(
                description="That attempt is not drawn yet (error.code not_drawn)."
            ),
            422: OpenApiResponse(
                description="unit is a known unit, but not one this question takes."
            ),
        },
        tags=TAGS,
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if grading_rate_limited(request._request):
            raise ApiError(
                "rate_limited",
                "That is a lot of answers in a minute; wait a moment.",
                status_code=status.HTTP_429_TOO_MANY_REQUESTS,
                headers={"Retry-After": "60"},
            )
        data = validated(NumericAnswerWriteSerializer, request.data)
        question = published_questions().select_related("track").filter(pk=data["question"]).first()
        if question is None or not has_practice(question):
            raise ApiError(
                "not_found",
                "No published question with graded practice has this id.",
                {"question": ["No published question with graded practice has this id."]},
                status.HTTP_404_NOT_FOUND,
            )
        check_attempt(request, question, data.get("attempt"), data.get("follow_up"))
        units = question.practice_spec.units  # type: ignore[union-attr]
        if data["unit"] not in units:
            raise ApiError(
                "invalid_unit",
                "This question is not answered in that unit.",
                {"unit": [f"Choose one of: {', '.join(units)}."]},
                status.HTTP_422_UNPROCESSABLE_ENTITY,
            )
        result = call_service(
            graded.answer,
            user=request.user,
            session=request.session,
            question=question,
            value=data["value"],
            unit=data["unit"],
            number=data.get("attempt"),
            follow_up=data.get("follow_up"),
        )
        return Response(GradeSerializer(_grade_payload(result)).data)


class KeyPointsView(APIView):
    def get_permissions(self):
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    @extend_schema(
        summary="A question's key points ([] when you may not read its answer) and your "
        "latest score",
        responses=KeyPointsSerializer,
        tags=TAGS,
    )
    def get(self, request: Request, pk: int) -> Response:
        question = get_question(pk)
        last = key_points.last_key_points(user=request.user, question=question)
        return Response(
            {
                "key_points": key_points.key_points_for(request.user, question),
                "last": KeyPointScoreSerializer(last).data if last is not None else None,
            }
        )

    @extend_schema(
        summary="Score the key points your answer made; schedules the next review",
        request=KeyPointsWriteSerializer,
        responses={201: KeyPointScoreSerializer},
        tags=TAGS,
    )
    def post(self, request: Request, pk: int) -> Response:
        data = validated(KeyPointsWriteSerializer, request.data)
        question = get_question(pk)
        score = call_service(
            key_points.key_points_score, user=request.user, question=question, made=data["made"]
        )
        return Response(KeyPointScoreSerializer(score).data, status=status.HTTP_201_CREATED)
