"""JSON parsing with a nesting limit, for every DRF endpoint.

Python's json module recurses once per level of nesting, so a body of a few thousand
``[`` characters raised RecursionError (a 500) inside the parser, or inside the CSRF check
of SessionAuthentication, which reads ``request.POST`` and so parses the body before the
view runs. No request this API takes nests deeper than a handful of levels, so anything
past ``MAX_JSON_DEPTH`` is refused with a 400 in the shared error shape before it can
reach a view, a serializer or a service.

The parsed value is measured level by level (no recursion), and only when the body holds
more brackets than the limit, so an ordinary body, even a 10^6-point sweep with a single
``[``, costs one ``bytes.count``.
"""

from __future__ import annotations

import io
from typing import Any

from rest_framework.parsers import JSONParser

from inferview.api.errors import ApiError

#: Deepest nesting of arrays and objects a request body may have.
MAX_JSON_DEPTH = 64

_CONTAINERS = (list, dict)


def nests_deeper_than(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when the parsed JSON ``value`` nests arrays/objects more than ``limit`` deep."""
    level = [value] if isinstance(value, _CONTAINERS) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [
            child
            for container in level
            for child in (container.values() if isinstance(container, dict) else container)
            if isinstance(child, _CONTAINERS)
        ]
    return False


def depth_error() -> ApiError:
    return ApiError(
        "invalid",
        f"The JSON body nests deeper than {MAX_JSON_DEPTH} levels.",
        {"body": [f"arrays and objects may nest at most {MAX_JSON_DEPTH} levels deep"]},
    )


def check_depth(raw: bytes, value: Any) -> Any:
    """Return ``value`` parsed from ``raw``, or raise the 400 if it nests too deep."""
    if raw.count(b"[") + raw.count(b"{") > MAX_JSON_DEPTH and nests_deeper_than(value):
        raise depth_error()
    return value


class DepthLimitedJSONParser(JSONParser):
    """DRF's JSONParser (strict: no NaN or Infinity) with the nesting limit."""

    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: dict[str, Any] | None = None,
    ) -> Any:
        raw = stream.read() if stream is not None else b""
        try:
            value = super().parse(io.BytesIO(raw), media_type, parser_context)
        except RecursionError:
            raise depth_error() from None
        return check_depth(raw, value)
