"""Account API: the reader's data export, the same document as ``/account/export/``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from inferview.api.errors import ApiError

from . import export


def _export_serializer() -> type[serializers.Serializer]:
    """The export's shape for the schema: one field per section of the registry, so the
    schema cannot drift from what ``export.SECTIONS`` writes."""
    fields: dict[str, Any] = {
        "format": serializers.IntegerField(help_text="Version of this document's layout."),
        "exported_at": serializers.DateTimeField(),
    }
    for section in export.SECTIONS:
        if section.name == "profile":
            fields[section.name] = serializers.DictField(child=serializers.JSONField())
        else:
            fields[section.name] = serializers.ListField(
                child=serializers.DictField(child=serializers.JSONField()),
                help_text=f"Your rows: {', '.join(section.covers)}.",
            )
    return type("AccountExportSerializer", (serializers.Serializer,), fields)


AccountExportSerializer = _export_serializer()


class AccountExportView(APIView):
    permission_classes = [IsAuthenticated]

    def permission_denied(self, request: Request, message: Any = None, code: Any = None) -> None:
        # 401 with a challenge, not DRF's 403: there is a sign-in to offer.
        if not request.user.is_authenticated:
            raise ApiError(
                "not_authenticated",
                "Sign in to export your data.",
                status_code=status.HTTP_401_UNAUTHORIZED,
                headers={"WWW-Authenticate": 'Session realm="inferview"'},
            )
        super().permission_denied(request, message=message, code=code)

    @extend_schema(
        summary="Everything the site holds about you (profile, bookmarks, progress, "
        "approaches, reviews, graded answers, mocks, cram plans, comments, corrections "
        "you reported, purchases), as one JSON document",
        responses={
            200: AccountExportSerializer,
            401: OpenApiResponse(description="Not signed in."),
        },
        tags=["account"],
    )
    def get(self, request: Request) -> Response:
        response = Response(export.export_for(user=request.user))
        response["Cache-Control"] = "private, no-store"
        return response
