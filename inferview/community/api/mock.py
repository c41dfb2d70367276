"""Mock interviews, under ``/api/v1/practice/mocks/``: start one, answer its items in
order, finish it for the summary. Thin adapters over ``community.practice.mock``, which
draws only questions the viewer may read and times each from shown to answered.

Writes read their body before looking anything up, so a malformed body is a 400 wherever
it is sent (tests/security/test_json_depth.py)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from inferview.community.models import MockSession
from inferview.community.practice import mock

from .common import call_service, validated
from .mock_serializers import (
    MockAnswerWriteSerializer,
    MockFinishSerializer,
    MockSessionDetailSerializer,
    MockSessionSerializer,
    MockStartSerializer,
)

TAGS = ["practice"]


def _own_mock(request: Request, pk: Any) -> MockSession:
    try:
        return mock.get(user=request.user, pk=pk)
    except MockSession.DoesNotExist as exc:
        raise NotFound("No such mock interview.") from exc


def _mock_response(request: Request, pk: Any, status_code: int = status.HTTP_200_OK) -> Response:
    session = _own_mock(request, pk)  # fetched again: the items as the service left them
    data = call_service(
        lambda: MockSessionDetailSerializer(session, context={"request": request}).data
    )
    return Response(data, status=status_code)


class MockListView(generics.ListAPIView):
    permission_classes = [IsAuthenticated]
    serializer_class = MockSessionSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator
            return MockSession.objects.none()
        return MockSession.objects.filter(user=self.request.user).prefetch_related("items")

    @extend_schema(summary="Your mock interviews, newest first", tags=TAGS)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Start a mock interview: questions you may read, drawn at random",
        request=MockStartSerializer,
        responses={201: MockSessionDetailSerializer},
        tags=TAGS,
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = validated(MockStartSerializer, request.data)
        session = call_service(
            mock.start,
            user=request.user,
            size=data["size"],
            minutes=data["minutes"],
            track=data["track"],
            difficulty=data["difficulty"],
            kind=data["kind"],
        )
        return _mock_response(request, session.pk, status.HTTP_201_CREATED)


class MockDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="A mock interview: its stage, the questions, the summary when done",
        responses=MockSessionDetailSerializer,
        tags=TAGS,
    )
    def get(self, request: Request, pk: int) -> Response:
        return _mock_response(request, pk)


class MockAnswerView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Answer the current question (its number graded if it asks one)",
        request=MockAnswerWriteSerializer,
        responses=MockSessionDetailSerializer,
        tags=TAGS,
    )
    def post(self, request: Request, pk: int) -> Response:
        data = validated(MockAnswerWriteSerializer, request.data)
        session = _own_mock(request, pk)
        call_service(
            mock.answer,
            user=request.user,
            session=session,
            position=data["position"],
            response=data["response"],
            value=data.get("value"),
            unit=data.get("unit"),
            http_session=request.session,
        )
        return _mock_response(request, pk)


class MockFinishView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Tick the key points made for every question and close the interview",
        request=MockFinishSerializer,
        responses=MockSessionDetailSerializer,
        tags=TAGS,
    )
    def post(self, request: Request, pk: int) -> Response:
        data = validated(MockFinishSerializer, request.data)
        session = _own_mock(request, pk)
        call_service(mock.finish, user=request.user, session=session, ticks=data["ticks"])
        return _mock_response(request, pk)
