"""One error type and one exception handler, so every API error has the same shape::

{"error": {"code": "invalid", "message": "...", "fields": {"name": ["reason", ...]}}}
"""

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response


class ApiError(exceptions.APIException):
    """Raise from services or views; the handler renders it in the shared shape."""

    def __init__(
        self,
        code: str,
        message: str,
        fields: dict[str, list[str]] | None = None,
        status_code: int = status.HTTP_400_BAD_REQUEST,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail=message, code=code)
        self.code = code
        self.message = message
        self.fields = fields or {}
        self.status_code = status_code
        self.headers = headers or {}


def _flatten(detail: Any) -> dict[str, list[str]]:
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            if isinstance(value, dict):
                for sub, reasons in _flatten(value).items():
                    out[f"{key}.{sub}"] = reasons
            elif isinstance(value, list):
                out[str(key)] = [str(v) for v in value]
            else:
                out[str(key)] = [str(value)]
        return out
    if isinstance(detail, list):
        return {"non_field_errors": [str(v) for v in detail]}
    return {}


def error_body(code: str, message: str, fields: dict[str, list[str]] | None = None) -> dict:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, ApiError):
        return Response(
            error_body(exc.code, exc.message, exc.fields),
            status=exc.status_code,
            headers=exc.headers,
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    # Imported here: rest_framework.views reads DEFAULT_PARSER_CLASSES when it loads, and
    # our parsers import this module, so a module-level import is a cycle whenever this
    # module happens to load first (the benchmark settings, a worker's first import).
    from rest_framework.views import exception_handler as drf_exception_handler

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        body = error_body("invalid", "The request has invalid fields.", _flatten(exc.detail))
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = getattr(exc, "default_code", "error")
        body = error_body(str(code), str(detail))
    response.data = body
    return response
