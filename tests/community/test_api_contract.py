"""The API held to its schema where schemathesis found it was not (issue 28): JSON only,
JSON types not coerced, query parameters given once and not empty, page numbers that are
numbers, answer units from a known set, and the statuses the schema documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from calculators import grading
from inferview.api.strict import type_problems
from inferview.community.api.graded_serializers import ANSWER_UNITS
from inferview.community.api.serializers import PracticeWriteSerializer
from questions.content_format import PRACTICE_KEYS
from tests.community.practice_data import SPEC
from tests.factories import ConceptFactory, QuestionFactory

pytestmark = pytest.mark.django_db


def put(c, path, data):
    return c.put(path, json.dumps(data), content_type="application/json")


def fields(response) -> dict:
    return response.json()["error"]["fields"]


@pytest.fixture
def schema(client):
    return client.get("/api/schema/", {"format": "json"}).json()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"approach": "x", "reveal": "yes"}, "reveal"),
        ({"approach": "x", "reveal": 1}, "reveal"),
        ({"approach": 123, "reveal": False}, "approach"),
        ({"approach": ["x"]}, "approach"),
        ({"approach": None}, "approach"),
    ],
)
def test_practice_put_refuses_json_of_the_wrong_type(client_for, free_user, body, field):
    q = QuestionFactory()
    r = put(client_for(free_user), f"/api/v1/questions/{q.pk}/practice/", body)
    assert r.status_code == 400, r.content
    assert field in fields(r)


def test_practice_put_takes_the_documented_types(client_for, free_user):
    q = QuestionFactory()
    body = {"approach": "my plan", "reveal": True}
    r = put(client_for(free_user), f"/api/v1/questions/{q.pk}/practice/", body)
    assert r.status_code == 200, r.content
    assert r.json()["approach"] == "my plan" and r.json()["revealed_at"]


def test_type_problems_walk_nested_lists():
    assert type_problems(PracticeWriteSerializer(), {"approach": "x", "reveal": True}) == {}
    assert type_problems(PracticeWriteSerializer(), [1]) == {
        "non_field_errors": ["the body must be a JSON object"]
    }
    from inferview.community.api.graded_serializers import KeyPointsWriteSerializer

    problems = type_problems(KeyPointsWriteSerializer(), {"made": [1, "2", True]})
    assert set(problems) == {"made.1", "made.2"}


def test_the_api_takes_json_only(client_for, free_user):
    q = QuestionFactory()
    c = client_for(free_user)
    r = c.put(
        f"/api/v1/questions/{q.pk}/practice/",
        "approach=x&reveal=true",
        content_type="application/x-www-form-urlencoded",
    )
    assert r.status_code == 415
    assert settings.REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"] == [
        "inferview.api.parsers.DepthLimitedJSONParser"
    ]


def test_nothing_on_the_site_posts_a_form_to_the_api():
    root = Path(settings.BASE_DIR)
    for folder in ("templates", "static"):
        for path in (root / folder).rglob("*"):
            if path.suffix in (".html", ".js") and "vendor" not in path.parts:
                assert "/api/v1/" not in path.read_text(encoding="utf-8"), path


@pytest.mark.parametrize("query", ["level=", "level=beginner&level=advanced", "category="])
def test_concept_filters_refuse_empty_and_repeated_values(client, query):
    ConceptFactory()
    r = client.get(f"/api/v1/concepts/?{query}")
    assert r.status_code == 400, r.content
    assert set(fields(r)) & {"level", "category"}


def test_an_empty_free_text_filter_is_schema_valid_and_taken(client):
    QuestionFactory()
    assert client.get("/api/v1/questions/?track=").status_code == 200
    assert client.get("/api/v1/questions/?track=a&track=b").status_code == 400


def test_concept_filters_still_filter(client):
    ConceptFactory(slug="one")
    level = ConceptFactory._meta.model._meta.get_field("level").choices[0][0]
    r = client.get(f"/api/v1/concepts/?level={level}")
    assert r.status_code == 200


@pytest.mark.parametrize("page", ["", "x", "1.5", " 2"])
def test_a_page_that_is_not_a_whole_number_is_a_400(client, page):
    r = client.get(f"/api/v1/concepts/?page={page}")
    assert r.status_code == 400 and "page" in fields(r)


def test_a_page_past_the_end_is_still_a_404(client):
    assert client.get("/api/v1/concepts/?page=99").status_code == 404


def test_rating_documents_the_201_it_answers(client_for, free_user, schema):
    q = QuestionFactory()
    r = client_for(free_user).post(
        f"/api/v1/questions/{q.pk}/rating/",
        json.dumps({"rating": "good"}),
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    responses = schema["paths"]["/api/v1/questions/{id}/rating/"]["post"]["responses"]
    assert "201" in responses and "200" not in responses


def test_answer_units_are_an_enum_of_the_known_units(schema):
    body = schema["paths"]["/api/v1/practice/answers/"]["post"]["requestBody"]
    ref = body["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    unit = schema["components"]["schemas"][ref]["properties"]["unit"]
    enums = [  # drf-spectacular gives the blank choice an enum of its own
        schema["components"]["schemas"][one["$ref"].rsplit("/", 1)[1]]["enum"]
        for one in unit["oneOf"]
    ]
    assert sorted(v for enum in enums for v in enum) == sorted(ANSWER_UNITS)
    assert set(body["content"]) == {"application/json"}  # JSON only


def test_every_practice_unit_in_content_is_a_known_answer_unit():
    """A question graded in a unit outside grading's table could not be answered through
    the API (its unit is an enum): every practice spec in content/ uses a known unit."""
    seen = 0
    for path in (Path(settings.BASE_DIR) / "content" / "tracks").rglob("*.md"):
        text = path.read_text(encoding="utf-8")
        if not text.startswith("---"):
            continue
        front = yaml.safe_load(text.split("---", 2)[1]) or {}
        spec = grading.parse_spec({k: front[k] for k in PRACTICE_KEYS if k in front})
        if spec is not None:
            seen += 1
            assert set(spec.units) <= set(ANSWER_UNITS), (path, spec.unit)
    assert seen > 10


def test_the_fixture_spec_unit_is_known():
    assert SPEC["target"]["unit"] in grading.MENU_UNITS


# --- Lessons: check yourself and progress --------------------------------------------------


@pytest.fixture
def lesson(db):
    from tests.factories import LessonFactory

    return LessonFactory(slug="contract-lesson", access="open")


def post_json(c, path, data):
    return c.post(path, json.dumps(data), content_type="application/json")


@pytest.mark.parametrize(
    "answers",
    [
        [True],  # a boolean is not a number
        ["1"],  # text only as an object's value
        [[1]],
        [{"value": 1, "unit": "GB", "extra": 1}],
        [{"unit": "GB"}],
        [{"value": 1, "unit": "furlongs"}],
        [{"value": ""}],
        "1",
        list(range(11)),  # more than MAX_CHECK_ITEMS
    ],
)
def test_a_malformed_check_is_a_400(client, lesson, answers):
    r = post_json(client, f"/api/v1/lessons/{lesson.slug}/check/", {"answers": answers})
    assert r.status_code == 400, r.content
    assert any(k.startswith("answers") for k in fields(r))


def test_a_well_formed_check_that_does_not_fit_the_lesson_is_a_422(client, lesson):
    n = len(lesson.check_items)
    r = post_json(client, f"/api/v1/lessons/{lesson.slug}/check/", {"answers": [0] * (n + 1)})
    assert r.status_code == 422 and "answers" in fields(r)


def test_lesson_progress_refuses_a_done_that_is_not_a_boolean(client_for, free_user, lesson):
    c = client_for(free_user)
    for done in ("yes", 1, None):
        r = c.put(
            f"/api/v1/lessons/{lesson.slug}/progress/",
            json.dumps({"done": done}),
            content_type="application/json",
        )
        assert r.status_code == 400 and "done" in fields(r), done
    r = c.put(
        f"/api/v1/lessons/{lesson.slug}/progress/",
        json.dumps({"done": True}),
        content_type="application/json",
    )
    assert r.status_code == 200 and r.json()["done"] is True
