"""Helpers shared by the community API views: lookups and service-error mapping."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404
from rest_framework import status

from inferview.api.errors import ApiError
from questions.models import Concept, Question
from questions.selectors import published_questions

# --- Helpers ---------------------------------------------------------------------------------


def get_question(pk: int) -> Question:
    return get_object_or_404(published_questions().select_related("track"), pk=pk)


def get_concept(slug: str) -> Concept:
    return get_object_or_404(Concept.objects.published(), slug=slug)


def call_service(fn, **kwargs):
    """Run a service, turning its Django exceptions into the API's error shape."""
    try:
        return fn(**kwargs)
    except ValidationError as exc:
        fields = (
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
        raise ApiError("invalid", "The request has invalid fields.", fields) from exc
    except PermissionDenied as exc:
        raise ApiError(
            "permission_denied", str(exc) or "Not allowed.", status_code=status.HTTP_403_FORBIDDEN
        ) from exc


def validated(serializer_class, data) -> dict[str, Any]:
    s = serializer_class(data=data)
    s.is_valid(raise_exception=True)
    return s.validated_data
