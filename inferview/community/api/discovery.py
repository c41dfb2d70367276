"""Up next and search API: public, shaped by the viewer (skips, gating)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
)
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from inferview.access import policy
from inferview.api.errors import ApiError
from inferview.community import discovery as discovery_selectors
from questions import search as site_search
from questions.models import Difficulty, Kind
from questions.selectors import published_questions

from .serializers import (
    QuestionBriefSerializer,
    SearchHitSerializer,
    UpNextSerializer,
)


class UpNextView(APIView):
    @extend_schema(
        summary="Next in the track and closest questions (skips ones you are confident in)",
        responses=UpNextSerializer,
        tags=["community"],
    )
    def get(self, request: Request, pk: int) -> Response:
        question = get_object_or_404(
            published_questions().select_related("track").prefetch_related("concepts"), pk=pk
        )
        nxt, closest = discovery_selectors.up_next(question, request.user)
        return Response(
            {
                "next_in_track": QuestionBriefSerializer(nxt).data if nxt else None,
                "closest": QuestionBriefSerializer(closest, many=True).data,
            }
        )


# --- Search and dashboard --------------------------------------------------------------------


NO_NUL = "^[^\\u0000]*$"
#: Search hits per API page (``?page=``); ``X-Total-Count`` gives the total.
API_PAGE_SIZE = 50


class SearchView(APIView):
    @extend_schema(
        summary="Search questions, concepts, guide items, lessons, guides and tracks",
        description="Snippets come only from text this viewer may read: a locked answer is neither matched nor quoted.",
        # What the view accepts, exactly: absent or empty filters mean "any", an absent or
        # empty q finds nothing, and no parameter may hold a NUL (400).
        parameters=[
            OpenApiParameter("q", OpenApiTypes.STR, pattern=NO_NUL),
            OpenApiParameter("type", OpenApiTypes.STR, enum=["", *site_search.TYPES]),
            OpenApiParameter(
                "track", OpenApiTypes.STR, pattern=NO_NUL, description="Track slug (questions only)"
            ),
            OpenApiParameter("difficulty", OpenApiTypes.STR, enum=["", *Difficulty.values]),
            OpenApiParameter(
                "kind", OpenApiTypes.STR, enum=["", *Kind.values], description="Question kind"
            ),
            OpenApiParameter(
                "page",
                OpenApiTypes.STR,
                pattern="^([1-9][0-9]{0,8})?$",
                description=f"1 (the default) for the first {API_PAGE_SIZE} hits, 2 for the "
                "next, and so on; a page past the last is an empty list",
            ),
            OpenApiParameter(
                "X-Total-Count",
                OpenApiTypes.INT,
                location=OpenApiParameter.HEADER,
                response=True,
                description="How many hits the query has in all (every page)",
            ),
        ],
        responses=SearchHitSerializer(many=True),
        tags=["search"],
    )
    def get(self, request: Request) -> Response:
        p = request.query_params
        errors = {}
        if p.get("type") and p["type"] not in site_search.TYPES:
            errors["type"] = [f"Choose one of {', '.join(site_search.TYPES)}."]
        if p.get("difficulty") and p["difficulty"] not in Difficulty.values:
            errors["difficulty"] = [f"Choose one of {', '.join(Difficulty.values)}."]
        if p.get("kind") and p["kind"] not in Kind.values:
            errors["kind"] = [f"Choose one of {', '.join(Kind.values)}."]
        for name in ("q", "track"):
            if "\x00" in p.get(name, ""):
                errors[name] = ["Null characters are not allowed."]
        page = p.get("page") or "1"
        if not page.isascii() or not page.isdigit() or len(page) > 9 or int(page) < 1:
            errors["page"] = ["must be a whole number from 1, such as 2"]
        if errors:
            raise ApiError("invalid", "The request has invalid fields.", errors)
        filters = site_search.SearchFilters.from_params(p)  # validated above
        results = site_search.run(
            p.get("q", ""),
            levels=policy.readable_levels(request.user),
            filters=filters,
            page=int(page),
            per_page=API_PAGE_SIZE,
            correct=False,
        )
        hits = results.hits if results.page == int(page) else []  # past the last page
        response = Response(SearchHitSerializer(hits, many=True).data)
        response["X-Total-Count"] = str(results.total)
        return response
