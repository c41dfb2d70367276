"""Personal API: bookmarks, practice and review, progress, dashboard (signed in)."""

from __future__ import annotations

from drf_spectacular.utils import (
    extend_schema,
    inline_serializer,
)
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from inferview.community import dashboard as learner_dashboard
from inferview.community.bookmarks import selectors as bookmark_selectors
from inferview.community.bookmarks import services as bookmark_services
from inferview.community.models import (
    Progress,
    ProgressStatus,
    Rating,
    ReviewCard,
)
from inferview.community.practice import selectors as practice_selectors
from inferview.community.practice import services as practice_services
from questions.models import Question

from .common import call_service, get_concept, get_question, validated
from .serializers import (
    BookmarkSerializer,
    BookmarkStateSerializer,
    BookmarkToggleSerializer,
    DashboardSerializer,
    PracticeSerializer,
    PracticeWriteSerializer,
    ProgressSerializer,
    ProgressWriteSerializer,
    RatingWriteSerializer,
    ReplySerializer,
    ReviewCardSerializer,
)

# --- Bookmarks -------------------------------------------------------------------------------


class BookmarkListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Your bookmarks", responses=BookmarkSerializer(many=True), tags=["community"]
    )
    def get(self, request: Request) -> Response:
        return Response(
            BookmarkSerializer(bookmark_selectors.bookmarks_for(request.user), many=True).data
        )

    @extend_schema(
        summary="Toggle a bookmark",
        request=BookmarkToggleSerializer,
        responses=BookmarkStateSerializer,
        tags=["community"],
    )
    def post(self, request: Request) -> Response:
        data = validated(BookmarkToggleSerializer, request.data)
        target = (
            {"question": get_question(data["question"])}
            if data.get("question")
            else {"concept": get_concept(data["concept"])}
        )
        on = call_service(bookmark_services.bookmark_toggle, user=request.user, **target)
        return Response(
            {"bookmarked": on, "count": bookmark_selectors.bookmark_count(request.user)}
        )


# --- Practice and review ---------------------------------------------------------------------


def _practice_payload(user, question: Question) -> dict:
    progress = Progress.objects.filter(user=user, question=question).first()
    card = (
        ReviewCard.objects.filter(user=user, question=question)
        .select_related("question__track")
        .first()
    )
    return {
        "status": progress.status if progress else ProgressStatus.NOT_STARTED,
        "approach": progress.approach if progress else "",
        "approach_updated_at": progress.approach_updated_at if progress else None,
        "revealed_at": progress.revealed_at if progress else None,
        "card": ReviewCardSerializer(card).data if card else None,
    }


class PracticeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Your practice on a question (approach is private to you)",
        responses=PracticeSerializer,
        tags=["community"],
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(_practice_payload(request.user, get_question(pk)))

    @extend_schema(
        summary="Save your approach; optionally reveal the answer",
        request=PracticeWriteSerializer,
        responses=PracticeSerializer,
        tags=["community"],
    )
    def put(self, request: Request, pk: int) -> Response:
        question = get_question(pk)
        data = validated(PracticeWriteSerializer, request.data)
        call_service(
            practice_services.approach_save,
            user=request.user,
            question=question,
            text=data["approach"],
            reveal=data["reveal"],
        )
        return Response(_practice_payload(request.user, question))


class RatingView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Rate your recall (again, hard, good, easy); schedules the next review with FSRS",
        request=RatingWriteSerializer,
        # 201: each rating is a new entry in the review log, so it says Created.
        responses={201: ReviewCardSerializer},
        tags=["community"],
    )
    def post(self, request: Request, pk: int) -> Response:
        question = get_question(pk)
        data = validated(RatingWriteSerializer, request.data)
        rating = {label.lower(): value for value, label in Rating.choices}[data["rating"]]
        card = call_service(
            practice_services.review_rate, user=request.user, question=question, rating=rating
        )
        return Response(ReviewCardSerializer(card).data, status=status.HTTP_201_CREATED)


class ProgressView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Your progress on every question you started",
        responses=ProgressSerializer(many=True),
        tags=["community"],
    )
    def get(self, request: Request) -> Response:
        rows = (
            Progress.objects.filter(
                user=request.user, question__published=True, question__track__published=True
            )
            .select_related("question__track")
            .order_by("-updated_at")
        )
        return Response(ProgressSerializer(rows, many=True).data)


class ProgressSetView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Set progress by hand (not_started clears it)",
        request=ProgressWriteSerializer,
        responses=PracticeSerializer,
        tags=["community"],
    )
    def put(self, request: Request, pk: int) -> Response:
        question = get_question(pk)
        data = validated(ProgressWriteSerializer, request.data)
        call_service(
            practice_services.progress_set,
            user=request.user,
            question=question,
            status=data["status"],
        )
        return Response(_practice_payload(request.user, question))


class ReviewsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Review cards: due now, and coming up",
        responses=inline_serializer(
            "Reviews",
            {"due": ReviewCardSerializer(many=True), "upcoming": ReviewCardSerializer(many=True)},
        ),
        tags=["community"],
    )
    def get(self, request: Request) -> Response:
        due, upcoming = practice_selectors.reviews_for(request.user)
        return Response(
            {
                "due": ReviewCardSerializer(due, many=True).data,
                "upcoming": ReviewCardSerializer(upcoming, many=True).data,
            }
        )


class DashboardView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Your dashboard: progress by track, reviews, bookmarks, recent comments",
        responses=DashboardSerializer,
        tags=["community"],
    )
    def get(self, request: Request) -> Response:
        d = learner_dashboard.dashboard(request.user)
        tracks = [
            {
                "slug": t.slug,
                "title": t.title,
                "total": t.progress.total,
                "attempted": t.progress.attempted,
                "confident": t.progress.confident,
            }
            for t in d["tracks"]
        ]
        return Response(
            {
                "tracks": tracks,
                "due": ReviewCardSerializer(d["due"], many=True).data,
                "upcoming": ReviewCardSerializer(d["upcoming"], many=True).data,
                "bookmarks": BookmarkSerializer(d["bookmarks"], many=True).data,
                "comments": ReplySerializer(d["comments"], many=True).data,
            }
        )
