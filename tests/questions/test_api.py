import pytest

from tests.factories import QuestionFactory, TrackFactory

pytestmark = pytest.mark.django_db


def test_question_list_filters_and_paginates(client):
    t1, t2 = TrackFactory(), TrackFactory()
    for i in range(1, 31):
        QuestionFactory(
            track=t1,
            number=i,
            difficulty="hard" if i % 2 else "easy",
            kind="calculation" if i % 3 == 0 else "explain",
        )
    QuestionFactory(track=t2, number=1)
    data = client.get("/api/v1/questions/").json()
    assert data["count"] == 31 and len(data["results"]) == 25 and data["next"]
    assert client.get(f"/api/v1/questions/?track={t2.slug}").json()["count"] == 1
    assert client.get(f"/api/v1/questions/?track={t1.slug}&difficulty=hard").json()["count"] == 15
    assert client.get("/api/v1/questions/?kind=calculation").json()["count"] == 10


def test_list_never_carries_answer_text(client):
    q = QuestionFactory(access="open")
    body = client.get("/api/v1/questions/").content.decode()
    assert q.answer not in body


def test_detail_gates_answer(client):
    open_q = QuestionFactory(access="open")
    premium_q = QuestionFactory(track=open_q.track, access="premium")
    assert open_q.answer in client.get(f"/api/v1/questions/{open_q.pk}/").json()["answer_markdown"]
    data = client.get(f"/api/v1/questions/{premium_q.pk}/").json()
    assert data["answer_html"] is None and data["answer_markdown"] is None
    assert data["locked"] == {"tier": "premium", "label": "Premium"}
    assert premium_q.answer not in str(data)


def test_bad_filter_is_a_400_in_the_shared_error_shape(client):
    response = client.get("/api/v1/questions/?difficulty=impossible")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and "difficulty" in error["fields"]


def test_unknown_object_is_a_404_in_the_shared_shape(client):
    response = client.get("/api/v1/tracks/nope/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_schema_and_docs_are_served(client):
    schema = client.get("/api/schema/")
    assert schema.status_code == 200 and b"/api/v1/questions/" in schema.content
    assert client.get("/api/docs/").status_code == 200


@pytest.mark.django_db
def test_a_track_filter_holding_a_nul_is_refused_as_the_schema_says(client):
    """The form field refuses a NUL (a 400 naming the parameter), so the schema's pattern
    excludes it: a schema-valid request is never refused (found by schemathesis)."""
    response = client.get("/api/v1/questions/", {"track": "a\x00b"})
    assert response.status_code == 400 and "track" in response.json()["error"]["fields"]
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    params = schema["paths"]["/api/v1/questions/"]["get"]["parameters"]
    (track,) = [p for p in params if p["name"] == "track"]
    assert track["schema"]["pattern"] == "^[^\\u0000]*$"
