"""Corrections API: a signed-in reader reports a mistake and lists their reports; an author
decides on a report. Anonymous callers get 401 (not DRF's 403), as the issue asks: there
is a sign-in to offer them."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import ListAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from inferview.api.errors import ApiError
from inferview.api.pagination import StrictPageNumberPagination
from inferview.community.corrections import selectors, services
from inferview.community.corrections.models import Correction
from inferview.community.ratelimits import correction_retry_after

from .common import call_service, validated
from .corrections_serializers import (
    CorrectionDecisionSerializer,
    CorrectionSerializer,
    CorrectionWriteSerializer,
)

TAGS = ["corrections"]
NOT_SIGNED_IN = OpenApiResponse(description="Not signed in.")


class _SignedIn:
    """401 with a challenge for a caller with no session; 403 stays for the signed in."""

    permission_classes = [IsAuthenticated]

    def permission_denied(self, request: Request, message: Any = None, code: Any = None) -> None:
        if not request.user.is_authenticated:
            raise ApiError(
                "not_authenticated",
                "Sign in to report a mistake.",
                status_code=status.HTTP_401_UNAUTHORIZED,
                headers={"WWW-Authenticate": 'Session realm="inferview"'},
            )
        super().permission_denied(request, message=message, code=code)  # type: ignore[misc]


class CorrectionPagination(StrictPageNumberPagination):
    page_size = 50


class CorrectionListView(_SignedIn, ListAPIView):
    serializer_class = CorrectionSerializer
    pagination_class = CorrectionPagination

    def get_queryset(self):  # the list is built by the selector; paginated as a list
        if getattr(self, "swagger_fake_view", False):  # the schema generator, signed out
            return Correction.objects.none()
        return selectors.reports_for(self.request.user)

    @extend_schema(
        summary="Your reports of mistakes and their states, newest first",
        responses={200: CorrectionSerializer(many=True), 401: NOT_SIGNED_IN},
        tags=TAGS,
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Report a mistake in a question, concept or guide item you can read "
        "(10 a day; a report of an open report's passage joins it)",
        request=CorrectionWriteSerializer,
        responses={
            201: CorrectionSerializer,
            401: NOT_SIGNED_IN,
            404: OpenApiResponse(description="No such item, or not one this reader may see."),
        },
        tags=TAGS,
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        retry_after = correction_retry_after(request._request)
        if retry_after is not None:
            raise ApiError(
                "rate_limited",
                "That is ten reports today; thank you. Report more tomorrow.",
                status_code=status.HTTP_429_TOO_MANY_REQUESTS,
                headers={"Retry-After": str(retry_after)},
            )
        data = validated(CorrectionWriteSerializer, request.data)
        target = selectors.target_for(target_type=data["target_type"], target_id=data["target_id"])
        if target is None:
            raise ApiError("not_found", "No such item.", status_code=status.HTTP_404_NOT_FOUND)
        reported = call_service(
            services.correction_report,
            user=request.user,
            target=target,
            quote=data["quote"],
            kind=data["kind"],
            note=data["note"],
        )
        body = CorrectionSerializer(
            reported.correction, context={"user": request.user, "joined": not reported.created}
        ).data
        return Response(body, status=status.HTTP_201_CREATED)


class CorrectionDetailView(_SignedIn, APIView):
    @extend_schema(
        summary="Decide on a report (authors only): accepted, declined or fixed, with a "
        "change note for fixed and declined",
        request=CorrectionDecisionSerializer,
        responses={200: CorrectionSerializer, 401: NOT_SIGNED_IN},
        tags=TAGS,
    )
    def patch(self, request: Request, pk: int) -> Response:
        # The body is parsed first (a malformed or over-deep body is a 400 for anyone, as on
        # every route); then refused before the lookup, so a reader cannot tell which ids exist.
        body = request.data
        if not selectors.is_author(request.user):
            raise ApiError(
                "permission_denied",
                "Only authors decide on reported mistakes.",
                status_code=status.HTTP_403_FORBIDDEN,
            )
        data = validated(CorrectionDecisionSerializer, body)
        correction = call_service(
            services.correction_decide,
            user=request.user,
            correction=get_object_or_404(Correction, pk=pk),
            state=data["state"],
            change_note=data.get("change_note", ""),
        )
        return Response(CorrectionSerializer(correction, context={"user": request.user}).data)
