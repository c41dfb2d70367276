"""Deeply nested JSON is a 400 in the shared error shape on every JSON endpoint, never a
RecursionError 500: through DRF's parser (DepthLimitedJSONParser, the default), through
the calculator run parser, and through SessionAuthentication's CSRF check, which parses
the body before the view runs.

The endpoints come from the OpenAPI schema, so a new JSON write is covered without
editing this file."""

import json

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator

from inferview.api.parsers import MAX_JSON_DEPTH, nests_deeper_than
from tests.community.factories import CommentFactory
from tests.factories import ConceptFactory, QuestionFactory

UNSAFE = ("post", "put", "patch", "delete")


def json_operations() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        (path, method)
        for path, ops in schema["paths"].items()
        for method, op in ops.items()
        if method in UNSAFE and "application/json" in op.get("requestBody", {}).get("content", {})
    )


OPERATIONS = json_operations()


def test_every_json_write_is_listed():
    # The issue counted 10 JSON write endpoints; fewer means the schema lost some.
    assert len(OPERATIONS) >= 10, OPERATIONS


@pytest.fixture
def targets(db, free_user):
    question = QuestionFactory()
    concept = ConceptFactory()
    comment = CommentFactory(question=question, author=free_user)
    return {
        "{id}": str(question.pk),
        "{slug}": concept.slug,
        "{calculator}": "decode_bound",
        "{question_pk}": str(question.pk),
        "{comment_pk}": str(comment.pk),
    }


def concrete(path: str, targets: dict[str, str]) -> str:
    if path.startswith("/api/v1/calculators/{slug}"):
        return path.replace("{slug}", "decode_bound")
    if path.startswith("/api/v1/comments/{id}"):
        return path.replace("{id}", targets["{comment_pk}"])
    for key, value in targets.items():
        path = path.replace(key, value)
    assert "{" not in path, path
    return path


def nested(depth: int) -> bytes:
    return b'{"inputs": ' + b"[" * depth + b"]" * depth + b"}"


@pytest.mark.parametrize("csrf", [False, True], ids=["no-csrf-check", "csrf-check"])
@pytest.mark.parametrize("path,method", OPERATIONS)
def test_deep_json_is_a_400_naming_the_body(path, method, csrf, targets, free_user):
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(free_user)
    headers = {}
    if csrf:
        client.get("/")  # a page that sets the CSRF cookie
        token = client.cookies["csrftoken"].value
        headers = {"HTTP_X_CSRFTOKEN": token}
    url = concrete(path, targets)
    r = getattr(client, method)(url, data=nested(5000), content_type="application/json", **headers)
    assert r.status_code == 400, (url, r.status_code, r.content[:300])
    error = r.json()["error"]
    assert error["code"] == "invalid" and "nests deeper" in error["message"]
    assert "body" in error["fields"]


def test_the_limit_is_exact():
    ok = json.loads(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH)
    over = json.loads(b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1))
    assert not nests_deeper_than(ok) and nests_deeper_than(over)
    mixed = {"a": [{"b": [1, {"c": []}]}]}  # object, array, object, array, object, array
    assert nests_deeper_than(mixed, 5) and not nests_deeper_than(mixed, 6)


def test_ordinary_nesting_still_parses(client_for, free_user, targets):
    client = client_for(free_user)
    r = client.post(
        "/api/v1/bookmarks/",
        data={"question": int(targets["{id}"])},
        content_type="application/json",
    )
    assert r.status_code == 200, r.content


def test_a_big_flat_sweep_is_not_slowed_by_the_check(client_for, free_user):
    # One "[" in 10^5 points: the bracket count settles it without walking the value.
    client = client_for(free_user)
    body = {"inputs": {"params_b": 8, "batch_size": list(range(1, 100_001))}}
    r = client.post(
        "/api/v1/calculators/decode_bound/runs/", data=body, content_type="application/json"
    )
    assert r.status_code in (200, 202, 400, 422), r.content[:300]
    assert "nests deeper" not in r.content.decode()
