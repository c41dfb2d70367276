"""Discussion and difficulty API: readable by everyone, writes need a signed-in user."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from inferview.api.errors import ApiError
from inferview.api.pagination import StrictPageNumberPagination
from inferview.community.discussion import selectors as discussion_selectors
from inferview.community.discussion import services as discussion_services
from inferview.community.models import (
    Comment,
)
from inferview.community.practice import selectors as practice_selectors
from inferview.community.practice import services as practice_services
from inferview.community.ratelimits import comment_rate_limited
from questions.models import Question

from .common import call_service, get_concept, get_question, validated
from .serializers import (
    CommentEditSerializer,
    CommentSerializer,
    CommentWriteSerializer,
    DifficultySerializer,
    DifficultyWriteSerializer,
    ReplySerializer,
    ReportWriteSerializer,
)

# --- Discussion ------------------------------------------------------------------------------


class CommentPagination(StrictPageNumberPagination):
    page_size = discussion_selectors.COMMENTS_PER_PAGE


SORT_PARAM = OpenApiParameter(
    "sort",
    OpenApiTypes.STR,
    enum=list(discussion_selectors.SORTS),
    description="newest (default) or oldest",
)
PAGE_PARAM = OpenApiParameter(
    "page",
    OpenApiTypes.STR,
    description="Page number; a value that is not one shows the first page, one past the "
    "end the last.",
)


class _DiscussionView(APIView):
    """Shared GET (public) and POST (signed in, rate limited) for a question or concept."""

    def target(self, **kwargs) -> dict[str, Any]:
        raise NotImplementedError

    def get_permissions(self):
        # AllowAny, not [], for reads: the schema generator declares an operation public
        # only when it sees AllowAny.
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    def _list(self, request: Request, **kwargs) -> Response:
        sort = request.query_params.get("sort", "newest")
        if sort not in discussion_selectors.SORTS:
            raise ApiError(
                "invalid",
                "The request has invalid fields.",
                {"sort": [f"Choose one of {', '.join(discussion_selectors.SORTS)}."]},
            )
        d = discussion_selectors.discussion(
            **self.target(**kwargs),
            sort=sort,
            page=request.query_params.get("page", 1),
        )
        return Response(
            {
                "count": d.count,
                "sort": d.sort,
                "page": d.number,
                "pages": d.num_pages,
                "results": CommentSerializer(d.threads, many=True).data,
            }
        )

    def _create(self, request: Request, **kwargs) -> Response:
        target = self.target(**kwargs)
        if comment_rate_limited(request._request):
            raise ApiError(
                "rate_limited",
                "You are posting faster than we allow. Wait a minute, then post again.",
                status_code=429,
            )
        data = validated(CommentWriteSerializer, request.data)
        parent = None
        if data.get("parent"):
            parent = Comment.objects.filter(pk=data["parent"]).first()
            if parent is None:
                raise ApiError(
                    "invalid",
                    "The request has invalid fields.",
                    {"parent": ["That comment no longer exists."]},
                )
        comment = call_service(
            discussion_services.comment_create,
            user=request.user,
            body=data["body"],
            parent=parent,
            **target,
        )
        return Response(ReplySerializer(comment).data, status=status.HTTP_201_CREATED)


DISCUSSION_SCHEMA = inline_serializer(
    "DiscussionPage",
    {
        "count": serializers.IntegerField(help_text="Visible comments, replies included"),
        "sort": serializers.CharField(),
        "page": serializers.IntegerField(),
        "pages": serializers.IntegerField(),
        "results": CommentSerializer(many=True),
    },
)


class QuestionCommentsView(_DiscussionView):
    def target(self, pk: int) -> dict[str, Any]:
        return {"question": get_question(pk)}

    @extend_schema(
        summary="A question's discussion",
        parameters=[SORT_PARAM, PAGE_PARAM],
        responses=DISCUSSION_SCHEMA,
        tags=["community"],
    )
    def get(self, request: Request, pk: int) -> Response:
        return self._list(request, pk=pk)

    @extend_schema(
        summary="Post a comment or reply (signed in, rate limited)",
        request=CommentWriteSerializer,
        responses={201: ReplySerializer},
        tags=["community"],
    )
    def post(self, request: Request, pk: int) -> Response:
        return self._create(request, pk=pk)


class ConceptCommentsView(_DiscussionView):
    def target(self, slug: str) -> dict[str, Any]:
        return {"concept": get_concept(slug)}

    @extend_schema(
        summary="A concept's discussion",
        parameters=[SORT_PARAM, PAGE_PARAM],
        responses=DISCUSSION_SCHEMA,
        tags=["community"],
    )
    def get(self, request: Request, slug: str) -> Response:
        return self._list(request, slug=slug)

    @extend_schema(
        summary="Post a comment or reply on a concept",
        request=CommentWriteSerializer,
        responses={201: ReplySerializer},
        tags=["community"],
    )
    def post(self, request: Request, slug: str) -> Response:
        return self._create(request, slug=slug)


class CommentDetailView(APIView):
    permission_classes = [IsAuthenticated]

    def _comment(self, pk: int) -> Comment:
        return get_object_or_404(Comment, pk=pk)

    @extend_schema(
        summary="Edit your comment",
        request=CommentEditSerializer,
        responses=ReplySerializer,
        tags=["community"],
    )
    def patch(self, request: Request, pk: int) -> Response:
        data = validated(CommentEditSerializer, request.data)
        comment = call_service(
            discussion_services.comment_edit,
            user=request.user,
            comment=self._comment(pk),
            body=data["body"],
        )
        return Response(ReplySerializer(comment).data)

    @extend_schema(
        summary="Delete your comment (replies stay)", responses={204: None}, tags=["community"]
    )
    def delete(self, request: Request, pk: int) -> Response:
        call_service(
            discussion_services.comment_delete, user=request.user, comment=self._comment(pk)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class CommentReportView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Report a comment to the moderators",
        request=ReportWriteSerializer,
        responses={201: None},
        tags=["community"],
    )
    def post(self, request: Request, pk: int) -> Response:
        data = validated(ReportWriteSerializer, request.data)
        comment = get_object_or_404(discussion_selectors.reportable_comments(), pk=pk)
        call_service(
            discussion_services.comment_report,
            user=request.user,
            comment=comment,
            reason=data["reason"],
            note=data.get("note", ""),
        )
        return Response(status=status.HTTP_201_CREATED)


# --- Difficulty and up next ------------------------------------------------------------------


class DifficultyView(APIView):
    def get_permissions(self):
        return [IsAuthenticated()] if self.request.method == "PUT" else [AllowAny()]

    def _payload(self, request: Request, question: Question) -> dict:
        tally = practice_selectors.difficulty_tally(question, request.user)
        return {
            "difficulty": question.difficulty,
            "easier": tally.easier,
            "as_labelled": tally.as_labelled,
            "harder": tally.harder,
            "felt": tally.mine,
        }

    @extend_schema(
        summary="How hard learners found a question, beside the authors' label",
        responses=DifficultySerializer,
        tags=["community"],
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(self._payload(request, get_question(pk)))

    @extend_schema(
        summary="Say how hard it felt to you",
        request=DifficultyWriteSerializer,
        responses=DifficultySerializer,
        tags=["community"],
    )
    def put(self, request: Request, pk: int) -> Response:
        question = get_question(pk)
        data = validated(DifficultyWriteSerializer, request.data)
        call_service(
            practice_services.difficulty_vote,
            user=request.user,
            question=question,
            felt=data["felt"],
        )
        return Response(self._payload(request, question))
