"""Helpers shared by the community API views: lookups and service-error mapping."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import QueryDict
from django.shortcuts import get_object_or_404
from rest_framework import status

from inferview.api.errors import ApiError
from inferview.api.strict import type_problems
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
    """The serializer's validated data, or the 400 naming each field. A JSON body (not a
    query string, whose values are all text) is first held to the JSON types the schema
    documents, with no coercion (``inferview.api.strict``)."""
    s = serializer_class(data=data)
    if not isinstance(data, QueryDict):
        problems = type_problems(s, data)
        if problems:
            raise ApiError("invalid", "The request has invalid fields.", problems)
    s.is_valid(raise_exception=True)
    return s.validated_data
