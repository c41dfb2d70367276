"""The answers every API operation can give besides its own, added to the OpenAPI schema
in one place (a drf-spectacular postprocessing hook), so the schema describes every status
the API actually sends and the fuzz test (tests/fuzz/test_api_schema.py) holds it to that.

Which operation gets which answer follows from what the shared code does:

* 400: anything that takes a body or parameters (serializer errors, bad JSON, JSON nested
  past MAX_JSON_DEPTH, a query parameter that is out of range);
* 403: anything that needs a signed-in user (DRF answers 403, not 401, to a caller with no
  session: session authentication has no WWW-Authenticate challenge to offer) and every
  write (CSRF failure, another user's object);
* 404: anything with a path parameter or a page number;
* 429: every write (comment and calculator rate limits, sign-in throttles);
* 503: everything (a backing service away: ``inferview.outage``), with Retry-After.

All of them carry the shared error body (``inferview.api.errors``).
"""

from __future__ import annotations

from typing import Any

ERROR_COMPONENT = "Error"
ERROR_REF = {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}
ERROR_SCHEMA = {
    "type": "object",
    "description": "The one error shape every API error has.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "A stable machine-readable code."},
                "message": {"type": "string"},
                "fields": {
                    "type": "object",
                    "description": "Field (or dotted path) to the reasons it was refused.",
                    "additionalProperties": {"type": "array", "items": {"type": "string"}},
                },
            },
            "required": ["code", "message", "fields"],
        }
    },
    "required": ["error"],
}
RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "integer"},
        "description": "Seconds to wait before trying again.",
    }
}
UNSAFE = {"post", "put", "patch", "delete"}

DESCRIPTIONS = {
    "400": "The request has invalid fields; `error.fields` names each one.",
    "403": "Not signed in, a missing CSRF token, or not allowed to do this.",
    "404": "No such object or page, or not one this viewer may see.",
    "429": "Too many requests; wait and try again.",
    "503": "A backing service is briefly unavailable; retry after Retry-After seconds.",
}


def _needs_sign_in(operation: dict[str, Any]) -> bool:
    security = operation.get("security")
    return bool(security) and {} not in security


def _answers(path: str, method: str, operation: dict[str, Any]) -> list[str]:
    params = operation.get("parameters", [])
    answers = []
    if "requestBody" in operation or params:
        answers.append("400")
    if _needs_sign_in(operation) or method in UNSAFE:
        answers.append("403")
    # A path parameter naming nothing, or a page number past the end (DRF's pagination).
    if any(p.get("in") == "path" or p.get("name") == "page" for p in params):
        answers.append("404")
    if method in UNSAFE:
        answers.append("429")
    answers.append("503")
    return answers


def add_error_responses(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular POSTPROCESSING_HOOKS entry."""
    result.setdefault("components", {}).setdefault("schemas", {})[ERROR_COMPONENT] = ERROR_SCHEMA
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            # An error an operation declares itself (401, say) with a description only
            # carries the shared error body too.
            for code, declared in responses.items():
                if str(code).startswith(("4", "5")) and not declared.get("content"):
                    declared["content"] = {"application/json": {"schema": ERROR_REF}}
            for code in _answers(path, method, operation):
                if code in responses:
                    continue
                response: dict[str, Any] = {
                    "description": DESCRIPTIONS[code],
                    "content": {"application/json": {"schema": ERROR_REF}},
                }
                if code in ("429", "503"):
                    response["headers"] = RETRY_AFTER
                responses[code] = response
    return result


#: OpenAPI links schemathesis cannot infer (tests/fuzz's stateful test follows them): the
#: practice paths name a question id that comes from elsewhere, and a new comment's id
#: leads to /comments/{id}/. (path, method, status) -> link name -> link.
LINKS: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {
    ("/api/v1/questions/", "get", "200"): {
        "PracticeVariant": {
            "operationId": "v1_practice_questions_variant_retrieve",
            "parameters": {"path.id": "$response.body#/results/0/id"},
        },
        "NewAttempt": {
            "operationId": "v1_practice_questions_new_attempt_create",
            "parameters": {"path.id": "$response.body#/results/0/id"},
        },
        "KeyPoints": {
            "operationId": "v1_practice_questions_key_points_retrieve",
            "parameters": {"path.id": "$response.body#/results/0/id"},
        },
    },
    ("/api/v1/practice/questions/{id}/new-attempt/", "post", "201"): {
        "ThisAttempt": {
            "operationId": "v1_practice_questions_variant_retrieve",
            "parameters": {
                "path.id": "$response.body#/question",
                "query.attempt": "$response.body#/attempt",
            },
        },
        "AnswerIt": {
            "operationId": "v1_practice_answers_create",
            "requestBody": {
                "question": "$response.body#/question",
                "attempt": "$response.body#/attempt",
            },
        },
    },
    ("/api/v1/practice/questions/{id}/variant/", "get", "200"): {
        "AnswerIt": {
            "operationId": "v1_practice_answers_create",
            "requestBody": {
                "question": "$response.body#/question",
                "attempt": "$response.body#/attempt",
            },
        },
    },
    **{
        (path, "post", "201"): {
            "EditComment": {
                "operationId": "v1_comments_partial_update",
                "parameters": {"path.id": "$response.body#/id"},
            },
            "ReportComment": {
                "operationId": "v1_comments_report_create",
                "parameters": {"path.id": "$response.body#/id"},
            },
            "DeleteComment": {
                "operationId": "v1_comments_destroy",
                "parameters": {"path.id": "$response.body#/id"},
            },
        }
        for path in ("/api/v1/questions/{id}/comments/", "/api/v1/concepts/{slug}/comments/")
    },
}


def add_links(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular POSTPROCESSING_HOOKS entry: the ``LINKS`` above, on operations that
    exist (a link to an operation that is gone is dropped rather than left dangling)."""
    paths = result.get("paths", {})
    known = {
        op.get("operationId")
        for ops in paths.values()
        for op in ops.values()
        if isinstance(op, dict)
    }
    for (path, method, code), links in LINKS.items():
        response = paths.get(path, {}).get(method, {}).get("responses", {}).get(code)
        if response is None:
            continue
        kept = {n: link for n, link in links.items() if link["operationId"] in known}
        if kept:
            response.setdefault("links", {}).update(kept)
    return result
