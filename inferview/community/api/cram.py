"""Cram plans, under ``/api/v1/practice/plans/``: lay out the days to an interview, tick
items. Thin adapters over ``community.practice.cram``; ticking an item never touches the
review card ("study ahead without rescheduling")."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from inferview.api.schema import ERROR_REF
from inferview.community.models import CramPlan
from inferview.community.practice import cram

from .common import call_service, validated
from .cram_serializers import (
    CramItemSerializer,
    CramItemWriteSerializer,
    CramPlanStateSerializer,
    CramPlanWriteSerializer,
)

TAGS = ["practice"]


def _plan_payload(plan: CramPlan | None) -> dict[str, Any]:
    if plan is None:
        return {"plan": None}
    pv = cram.view(plan)
    return {
        "plan": {
            "id": plan.pk,
            "interview_on": plan.interview_on,
            "tracks": plan.track_slugs,
            "created_at": plan.created_at,
            "today": pv.today,
            "days_left": pv.days_left,
            "done": pv.done,
            "total": pv.total,
            "percent": pv.percent,
            "behind": pv.behind,
            "days": [{"day": day, "items": items} for day, items in pv.days],
        }
    }


class CramPlanView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Your current cram plan, day by day (plan is null without one)",
        responses=CramPlanStateSerializer,
        tags=TAGS,
    )
    def get(self, request: Request) -> Response:
        return Response(CramPlanStateSerializer(_plan_payload(cram.active(request.user))).data)

    @extend_schema(
        summary="Make a cram plan up to an interview date (replaces the current one); "
        "FSRS reviews are not rescheduled",
        request=CramPlanWriteSerializer,
        responses={201: CramPlanStateSerializer},
        tags=TAGS,
    )
    def post(self, request: Request) -> Response:
        data = validated(CramPlanWriteSerializer, request.data)
        plan = call_service(
            cram.create,
            user=request.user,
            interview_on=data["interview_on"],
            track_slugs=data["tracks"],
        )
        return Response(
            CramPlanStateSerializer(_plan_payload(plan)).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        summary="End the current cram plan (nothing to do without one)",
        request=None,
        responses={
            204: None,
            # a JSON body is parsed (and refused when malformed) by the CSRF check
            400: OpenApiResponse(response=ERROR_REF, description="A malformed request body."),
        },
        tags=TAGS,
    )
    def delete(self, request: Request) -> Response:
        plan = cram.active(request.user)
        if plan is not None:
            call_service(cram.archive, user=request.user, plan=plan)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CramItemView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Mark an item of your plan done (or not); its review schedule is untouched",
        request=CramItemWriteSerializer,
        responses=CramItemSerializer,
        tags=TAGS,
    )
    def post(self, request: Request, pk: int) -> Response:
        data = validated(CramItemWriteSerializer, request.data)
        try:
            item = cram.mark_done(user=request.user, item_id=pk, done=data["done"])
        except PermissionDenied as exc:  # not an item of this learner's plan
            raise NotFound("No such item.") from exc
        return Response(CramItemSerializer(item).data)
