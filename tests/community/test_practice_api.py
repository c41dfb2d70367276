"""The practice API under /api/v1/practice/: variants, graded numeric answers, key points,
mock interviews and cram plans, and the question detail's key points. Errors name their
field; personal endpoints need an account; another learner's objects are 404; a locked
question's number, steps and key points never leave the server."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from calculators import grading
from inferview.community.models import (
    Attempt,
    CramItem,
    CramPlan,
    Draw,
    KeyPointScore,
    MockSession,
    NumericAnswer,
    ReviewCard,
)
from inferview.community.practice import cram, mock
from tests.community.practice_data import LOCKED_POINT, POINTS, SPEC
from tests.community.test_graded_practice import total_gb, variant_on_page
from tests.factories import QuestionFactory, TrackFactory, UserFactory

pytestmark = pytest.mark.django_db

API = "/api/v1/practice"


@pytest.fixture
def calc_track(db):
    """Three readable calculation questions with key points, and one premium one."""
    track = TrackFactory(slug="numbers")
    readable = [
        QuestionFactory(track=track, kind="calculation", practice=SPEC, key_points=POINTS)
        for _ in range(3)
    ]
    QuestionFactory(track=track, access="premium", key_points=POINTS)
    return track, readable


def post(c, path, data=None):
    return c.post(path, data if data is not None else {}, content_type="application/json")


def fields(response) -> dict:
    return response.json()["error"]["fields"]


def variant_of(c, q, **query) -> dict:
    r = c.get(f"{API}/questions/{q.pk}/variant/", query)
    assert r.status_code == 200, r.content
    return r.json()


def numbers_of(prompt: str) -> dict:
    return variant_on_page(prompt)


def answer(c, q, value, unit="GB", **extra):
    return post(c, f"{API}/answers/", {"question": q.pk, "value": value, "unit": unit, **extra})


# --- Who may call what -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/answers/"),
        ("post", "/questions/{q}/key-points/"),
        ("get", "/mocks/"),
        ("post", "/mocks/"),
        ("get", "/mocks/1/"),
        ("post", "/mocks/1/answer/"),
        ("post", "/mocks/1/finish/"),
        ("get", "/plans/"),
        ("post", "/plans/"),
        ("delete", "/plans/"),
        ("post", "/plans/items/1/"),
    ],
)
def test_personal_endpoints_need_an_account(client, open_q, method, path):
    r = getattr(client, method)(API + path.format(q=open_q.pk), content_type="application/json")
    assert r.status_code in (401, 403)
    assert set(r.json()["error"]) == {"code", "message", "fields"}


@pytest.mark.parametrize(
    "path", ["/questions/{q}/variant/", "/questions/{q}/key-points/", "/questions/{q}/new-attempt/"]
)
def test_variants_and_key_points_are_open_to_anonymous_visitors(client, open_q, path):
    method = client.post if path.endswith("new-attempt/") else client.get
    assert method(API + path.format(q=open_q.pk)).status_code in (200, 201)


# --- Variants and new attempts ---------------------------------------------------------------


def test_a_variant_is_stable_per_session_and_asks_its_follow_ups(client, open_q):
    v = variant_of(client, open_q)
    assert v["question"] == open_q.pk and v["attempt"] == 1 and v["follow_up"] is None
    assert v["prompt"] == v["base_prompt"] and "KV cache" in v["prompt"]
    assert v["unit"] == "GB" and {"GB", "GiB"} <= set(v["units"])
    assert v["tolerance"] == pytest.approx(0.02)
    assert v["follow_ups"] == [{"number": 1, "prompt": "Now at 128k context: how much?"}]
    assert variant_of(client, open_q) == v  # the same session keeps its numbers
    assert variant_of(client, open_q, attempt="", follow_up="") == v  # empty is "not given"
    follow = variant_of(client, open_q, attempt=1, follow_up=1)
    assert follow["prompt"] == "Now at 128k context: how much?"
    assert follow["base_prompt"] == v["prompt"] and follow["follow_up"] == 1


@pytest.mark.parametrize(
    ("query", "field", "status"),
    [
        # well formed, but naming an attempt not drawn yet (409) or a follow-up the
        # question does not have (404): never "malformed" (tests/fuzz holds the schema)
        ({"attempt": 5}, "attempt", 409),
        ({"attempt": 0}, "attempt", 400),
        ({"attempt": "x"}, "attempt", 400),
        ({"follow_up": 2}, "follow_up", 404),  # the question has one follow-up
        ({"follow_up": 9}, "follow_up", 400),  # past MAX_FOLLOW_UPS: the schema's maximum
        ({"follow_up": "one"}, "follow_up", 400),
    ],
)
def test_an_unknown_attempt_or_follow_up_is_refused_naming_it(client, open_q, query, field, status):
    r = client.get(f"{API}/questions/{open_q.pk}/variant/", query)
    assert r.status_code == status and field in fields(r)


def test_no_variant_without_practice_or_for_a_draft(client, db):
    plain = QuestionFactory()
    draft = QuestionFactory(kind="calculation", practice=SPEC, published=False)
    for q in (plain, draft):
        assert client.get(f"{API}/questions/{q.pk}/variant/").status_code == 404
        assert client.post(f"{API}/questions/{q.pk}/new-attempt/").status_code == 404
    assert client.get(f"{API}/questions/999999/variant/").status_code == 404


def test_new_attempts_count_up_and_attempt_one_keeps_its_numbers(client_for, free_user, open_q):
    c = client_for(free_user)
    first = variant_of(c, open_q)
    r = c.post(f"{API}/questions/{open_q.pk}/new-attempt/")
    assert r.status_code == 201 and r.json()["attempt"] == 2
    assert variant_of(c, open_q)["attempt"] == 2
    assert variant_of(c, open_q, attempt=1)["prompt"] == first["prompt"]
    assert Draw.objects.filter(user=free_user, question=open_q).count() == 2
    seed = grading.seed_for(f"user:{free_user.pk}", open_q.key, 2)
    assert Draw.objects.get(user=free_user, question=open_q, number=2).seed == seed


def test_an_anonymous_new_attempt_lives_in_the_session(client, open_q):
    assert client.post(f"{API}/questions/{open_q.pk}/new-attempt/").json()["attempt"] == 2
    assert variant_of(client, open_q)["attempt"] == 2
    assert not Draw.objects.exists()


# --- Graded answers --------------------------------------------------------------------------


def test_an_anonymous_answer_names_the_mistake_then_is_right(client, open_q):
    v = numbers_of(variant_of(client, open_q)["prompt"])
    r = answer(client, open_q, f"{total_gb(v) / 2:.6g}", attempt=1)
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["correct"] is False and body["direction"] == "low"
    assert body["mistake"] == {
        "slug": "kv-counted-once",
        "label": grading.MISTAKES["kv-counted-once"].label,
        "explanation": grading.MISTAKES["kv-counted-once"].explanation,
    }
    # try first: a wrong answer gets the slip, not the number or the steps
    assert body["expected"] is None and body["unit"] == "GB"
    assert body["steps"] is None and body["saved_id"] is None
    right = answer(client, open_q, total_gb(v) * 1e9 / 2**30, unit="GiB")  # a JSON number
    assert right.json()["correct"] is True and right.json()["mistake"] is None
    # an open question's number and steps are for everyone, after a right answer
    assert right.json()["expected"] == pytest.approx(total_gb(v), rel=1e-9)
    assert right.json()["steps"][0]["lines"]
    assert right.json()["direction"] == "" and right.json()["answer"] == pytest.approx(total_gb(v))
    assert not NumericAnswer.objects.exists()  # nothing stored without an account


def test_a_signed_in_answer_is_stored_and_its_first_grade_is_reviewed(
    client_for, free_user, open_q, fsrs_exact
):
    c = client_for(free_user)
    v = numbers_of(variant_of(c, open_q)["prompt"])
    r = answer(c, open_q, f"{total_gb(v) * 8:.6g}")
    saved = NumericAnswer.objects.get()
    assert r.json()["saved_id"] == saved.pk and r.json()["mistake"]["slug"] == "bits-for-bytes"
    assert (saved.correct, saved.mistake, saved.draw.user) == (False, "bits-for-bytes", free_user)
    assert Attempt.objects.get(user=free_user, question=open_q).rating == 1  # again
    answer(c, open_q, f"{total_gb(v):.6g}")
    assert Attempt.objects.filter(user=free_user).count() == 1  # one rating per attempt


def test_a_follow_up_is_graded_on_its_own_number(client, open_q):
    v = numbers_of(variant_of(client, open_q)["prompt"])
    r = answer(client, open_q, f"{total_gb(v, 131072):.6g}", attempt=1, follow_up=1)
    assert r.json()["correct"] is True and r.json()["follow_up"] == 1
    assert answer(client, open_q, f"{total_gb(v, 131072):.6g}").json()["correct"] is False


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"value": "lots"}, "value"),
        ({"value": "inf"}, "value"),
        ({"value": "1e400"}, "value"),
        ({"value": ""}, "value"),
        ({"value": True}, "value"),
        ({"value": [1]}, "value"),
        ({"value": "1" * 41}, "value"),
        ({"value": None}, "value"),
        ({"unit": "furlongs"}, "unit"),  # not a known unit: outside the schema's enum
        ({"unit": " GB"}, "unit"),
        ({"attempt": 0}, "attempt"),
        ({"follow_up": 9}, "follow_up"),
        ({"question": "abc"}, "question"),
        ({"question": None}, "question"),
    ],
)
def test_bad_answers_are_a_400_naming_the_field(client, open_q, data, field):
    r = post(
        client, f"{API}/answers/", {"question": open_q.pk, "value": "12", "unit": "GB", **data}
    )
    assert r.status_code == 400, r.content
    assert field in fields(r)


@pytest.mark.parametrize(
    ("data", "field", "status"),
    [
        ({"unit": "ms"}, "unit", 422),  # a known unit, of another kind than the question's
        ({"unit": ""}, "unit", 422),  # a plain number: known, but this question is in GB
        ({"attempt": 5}, "attempt", 409),  # not drawn yet
        ({"follow_up": 3}, "follow_up", 404),  # the question has one follow-up
        ({"question": 999999}, "question", 404),
    ],
)
def test_well_formed_answers_naming_what_is_not_there_are_not_a_400(
    client, open_q, data, field, status
):
    """The body fits the schema, so it is not refused as malformed: each answer is the
    one the operation documents (tests/fuzz/test_api_schema.py holds the schema to it)."""
    r = post(
        client, f"{API}/answers/", {"question": open_q.pk, "value": "12", "unit": "GB", **data}
    )
    assert r.status_code == status, r.content
    assert field in fields(r)


def test_missing_fields_are_named(client, db):
    r = post(client, f"{API}/answers/", {})
    assert r.status_code == 400 and {"question", "value", "unit"} <= set(fields(r))


def test_a_question_without_practice_or_unpublished_is_named(client, db):
    for q in (QuestionFactory(), QuestionFactory(practice=SPEC, published=False)):
        r = answer(client, q, "1")
        assert r.status_code == 404 and "question" in fields(r)


def test_grading_is_rate_limited_with_the_api_s_429(client, open_q, monkeypatch):
    from inferview.community import ratelimits

    monkeypatch.setattr(ratelimits, "GRADE_RATE", "2/m")
    assert answer(client, open_q, "1").status_code == 200
    assert answer(client, open_q, "1").status_code == 200
    r = answer(client, open_q, "1")
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
    assert r["Retry-After"] == "60"


def test_the_api_and_the_page_share_one_grading_limit(client, open_q, monkeypatch):
    from django.urls import reverse

    from inferview.community import ratelimits

    monkeypatch.setattr(ratelimits, "GRADE_RATE", "2/m")
    page = reverse("community:numbers", args=[open_q.pk])
    assert client.post(page, {"value": "1", "unit": "GB", "attempt": 1}).status_code == 200
    assert answer(client, open_q, "1").status_code == 200
    assert answer(client, open_q, "1").status_code == 429


# --- The gate: a locked question's number, steps and key points ------------------------------


@pytest.mark.parametrize("who", ["anonymous", "free"])
def test_a_locked_question_grades_but_keeps_its_number_steps_and_points(
    client_for, free_user, premium_q, who
):
    c = client_for(free_user if who == "free" else None)
    v = numbers_of(variant_of(c, premium_q)["prompt"])  # the variant is open to all
    r = answer(c, premium_q, f"{total_gb(v) / 2:.6g}", attempt=1)
    body = r.json()
    assert r.status_code == 200 and body["mistake"]["slug"] == "kv-counted-once"
    assert body["expected"] is None and body["steps"] is None
    expected = total_gb(v)
    text = r.content.decode()
    assert repr(expected) not in text and f"{expected:,.4g}" not in text
    assert "bytes_per_token" not in text  # no worked step
    detail = c.get(f"/api/v1/questions/{premium_q.pk}/").json()
    assert detail["key_points"] == [] and detail["answer_markdown"] is None
    assert detail["has_practice"] is True
    points = c.get(f"{API}/questions/{premium_q.pk}/key-points/").json()
    assert points["key_points"] == []
    assert LOCKED_POINT not in c.get(f"{API}/questions/{premium_q.pk}/key-points/").content.decode()
    if who == "free":
        listed = c.get(f"{API}/answers/").json()["results"]
        assert [a["expected"] for a in listed] == [None]
        assert NumericAnswer.objects.get().expected == pytest.approx(expected)  # stored, unsent


def test_premium_readers_get_the_number_steps_and_points(client_for, premium_user, premium_q):
    c = client_for(premium_user)
    v = numbers_of(variant_of(c, premium_q)["prompt"])
    wrong = answer(c, premium_q, "1").json()
    assert wrong["expected"] is None and wrong["steps"] is None  # try first
    assert c.get(f"{API}/answers/").json()["results"][0]["expected"] is None
    body = answer(c, premium_q, f"{total_gb(v):.6g}").json()
    assert body["expected"] == pytest.approx(total_gb(v), rel=1e-9)
    assert body["steps"] and any("bytes_per_token" in line for line in body["steps"][0]["lines"])
    detail = c.get(f"/api/v1/questions/{premium_q.pk}/").json()
    assert detail["key_points"][0] == LOCKED_POINT and detail["answer_markdown"]
    assert c.get(f"{API}/questions/{premium_q.pk}/key-points/").json()["key_points"][0] == (
        LOCKED_POINT
    )
    assert c.get(f"{API}/answers/").json()["results"][0]["expected"] == pytest.approx(total_gb(v))


def test_the_question_detail_says_whether_it_has_practice(client, open_q):
    detail = client.get(f"/api/v1/questions/{open_q.pk}/").json()
    assert detail["key_points"] == POINTS and detail["has_practice"] is True
    plain = client.get(f"/api/v1/questions/{QuestionFactory().pk}/").json()
    assert plain["key_points"] == [] and plain["has_practice"] is False
    account = QuestionFactory(access="account", key_points=POINTS)
    assert client.get(f"/api/v1/questions/{account.pk}/").json()["key_points"] == []


# --- Your answers ----------------------------------------------------------------------------


def test_your_answers_newest_first_paginated_and_only_yours(client_for, free_user, open_q):
    c = client_for(free_user)
    v = numbers_of(variant_of(c, open_q)["prompt"])
    answer(c, open_q, f"{total_gb(v) / 2:.6g}")
    answer(c, open_q, f"{total_gb(v):.6g}")
    page = c.get(f"{API}/answers/").json()
    assert set(page) == {"count", "next", "previous", "results"} and page["count"] == 2
    newest, oldest = page["results"]
    assert newest["correct"] is True and oldest["mistake"]["slug"] == "kv-counted-once"
    assert newest["question"]["id"] == open_q.pk and newest["attempt"] == 1
    assert newest["expected"] == pytest.approx(total_gb(v)) and newest["unit"] == "GB"
    other = client_for(UserFactory())
    assert other.get(f"{API}/answers/").json()["count"] == 0


def test_your_answers_page_on(client_for, free_user, open_q):
    draw = Draw.objects.create(user=free_user, question=open_q, number=1, seed=1, variant={})
    NumericAnswer.objects.bulk_create(
        NumericAnswer(
            draw=draw, value=i, unit="GB", answer=i, expected=1, correct=False, mistake=""
        )
        for i in range(26)
    )
    c = client_for(free_user)
    first = c.get(f"{API}/answers/").json()
    assert len(first["results"]) == 25 and first["next"]
    assert len(c.get(f"{API}/answers/", {"page": 2}).json()["results"]) == 1
    assert c.get(f"{API}/answers/", {"page": 3}).status_code == 404
    open_q.published = False
    open_q.save()
    assert c.get(f"{API}/answers/").json()["count"] == 0  # a draft leaves the list


# --- Key points ------------------------------------------------------------------------------


def test_key_points_are_scored_and_the_last_score_read_back(
    client_for, free_user, open_q, fsrs_exact
):
    c = client_for(free_user)
    url = f"{API}/questions/{open_q.pk}/key-points/"
    assert c.get(url).json() == {"key_points": POINTS, "last": None}
    r = post(c, url, {"made": [1, 3]})
    assert r.status_code == 201
    assert {k: r.json()[k] for k in ("made", "total", "percent")} == {
        "made": [1, 3],
        "total": 3,
        "percent": 67,
    }
    assert Attempt.objects.get(user=free_user).rating == 2  # 2 of 3: hard
    assert c.get(url).json()["last"]["made"] == [1, 3]
    assert post(c, url, {"made": []}).json()["made"] == []


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"made": [4]}, "made"),
        ({"made": [9]}, "made"),
        ({"made": ["x"]}, "made"),
        ({"made": "1"}, "made"),
        ({}, "made"),
    ],
)
def test_bad_key_points_are_a_400_naming_the_field(client_for, free_user, open_q, data, field):
    r = post(client_for(free_user), f"{API}/questions/{open_q.pk}/key-points/", data)
    assert r.status_code == 400
    assert any(name.startswith(field) for name in fields(r)), fields(r)
    assert not KeyPointScore.objects.exists()


def test_key_points_of_a_locked_or_pointless_or_missing_question(
    client_for, free_user, premium_q, db
):
    c = client_for(free_user)
    assert post(c, f"{API}/questions/{premium_q.pk}/key-points/", {"made": [1]}).status_code == 403
    plain = QuestionFactory()
    r = post(c, f"{API}/questions/{plain.pk}/key-points/", {"made": [1]})
    assert r.status_code == 400 and "question" in fields(r)
    assert post(c, f"{API}/questions/999999/key-points/", {"made": [1]}).status_code == 404
    assert c.get(f"{API}/questions/999999/key-points/").status_code == 404
    assert not KeyPointScore.objects.exists()


# --- Mock interviews -------------------------------------------------------------------------


def test_a_mock_interview_runs_to_its_summary(client_for, free_user, calc_track):
    track, readable = calc_track
    c = client_for(free_user)
    r = post(c, f"{API}/mocks/", {"size": 3, "minutes": 5, "track": track.slug})
    assert r.status_code == 201, r.content
    session = r.json()
    url = f"{API}/mocks/{session['id']}/"
    assert session["stage"] == "answering" and session["size"] == 3
    assert session["filters"] == {"track": "numbers", "difficulty": "", "kind": ""}
    assert {i["question"]["id"] for i in session["items"]} == {q.pk for q in readable}
    first = session["items"][0]
    assert first["current"] and first["started_at"] and first["numeric"]["unit"] == "GB"
    assert "KV cache" in first["numeric"]["prompt"] and "GiB" in first["numeric"]["units"]
    assert all(i["key_points"] is None for i in session["items"])  # not while answering
    assert session["items"][1]["numeric"] is None and session["summary"] is None
    assert POINTS[0] not in r.content.decode()

    v = numbers_of(first["numeric"]["prompt"])
    r = post(c, url + "answer/", {"position": 1, "response": "mine", "value": total_gb(v)})
    assert r.status_code == 400 and "unit" in fields(r)  # a number needs its unit
    half = total_gb(v) / 2
    r = post(c, url + "answer/", {"position": 1, "response": "mine", "value": half, "unit": "GB"})
    assert r.status_code == 200, r.content
    items = r.json()["items"]
    assert items[0]["answered_at"] and items[0]["seconds"] is not None
    assert items[0]["response"] == "mine" and items[1]["current"] and items[1]["numeric"]
    r = post(c, url + "answer/", {"position": 2, "response": "two"})
    r = post(c, url + "answer/", {"position": 3, "value": "", "unit": None})
    detail = r.json()
    assert detail["stage"] == "key-points"
    assert all(i["key_points"] == POINTS for i in detail["items"])

    r = post(c, url + "finish/", {"ticks": {"1": [1, 2, 3], "2": [1], "3": []}})
    assert r.status_code == 200, r.content
    done = r.json()
    assert done["stage"] == "done" and done["finished_at"]
    rows = {row["position"]: row for row in done["summary"]}
    assert (rows[1]["made"], rows[1]["total"], rows[1]["correct"]) == (3, 3, False)
    assert rows[1]["mistake"] == grading.MISTAKES["kv-counted-once"].label
    assert rows[1]["review_next"] and rows[2]["review_next"] and rows[3]["made"] == 0
    assert rows[2]["correct"] is None and rows[2]["seconds"] is not None
    assert KeyPointScore.objects.filter(user=free_user).count() == 3
    assert c.get(url).json()["stage"] == "done"
    listed = c.get(f"{API}/mocks/").json()
    assert listed["count"] == 1 and listed["results"][0]["stage"] == "done"
    # a closed interview takes no more answers or ticks
    assert "position" in fields(post(c, url + "answer/", {"position": 1}))
    assert "ticks" in fields(post(c, url + "finish/", {"ticks": {}}))


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"size": 4}, "size"),
        ({"size": "three"}, "size"),
        ({}, "size"),
        ({"size": 3, "minutes": 7}, "minutes"),
        ({"size": 3, "track": "no-such-track"}, "track"),
        ({"size": 3, "track": "not a slug!"}, "track"),
        ({"size": 3, "difficulty": "brutal"}, "difficulty"),
        ({"size": 3, "kind": "riddle"}, "kind"),
        ({"size": 5, "track": "numbers"}, "size"),  # only 3 readable questions match
    ],
)
def test_mock_start_errors_name_the_field(client_for, free_user, calc_track, data, field):
    r = post(client_for(free_user), f"{API}/mocks/", data)
    assert r.status_code == 400 and field in fields(r), r.content
    assert not MockSession.objects.exists()


def test_mock_answers_go_in_order_and_errors_name_the_field(client_for, free_user, calc_track):
    session = mock.start(user=free_user, size=3, track="numbers")
    c = client_for(free_user)
    url = f"{API}/mocks/{session.pk}/"
    for data, field in [
        ({"position": 2}, "position"),
        ({"position": 0}, "position"),
        ({}, "position"),
        ({"position": 1, "response": "x" * 20_001}, "response"),
        ({"position": 1, "value": "12", "unit": "ms"}, "unit"),
        ({"position": 1, "value": "lots", "unit": "GB"}, "value"),
        ({"position": 1, "value": [1]}, "value"),
    ]:
        r = post(c, url + "answer/", data)
        assert r.status_code == 400 and field in fields(r), (data, r.content)
    assert c.get(url).json()["items"][0]["answered_at"] is None  # nothing half-saved
    r = post(c, url + "finish/", {"ticks": {}})
    assert r.status_code == 400 and "ticks" in fields(r)  # answer every question first
    for data in ({"ticks": {"x": [1]}}, {"ticks": {"1": [9]}}, {"ticks": [1]}):
        r = post(c, url + "finish/", data)
        assert r.status_code == 400 and any(k.startswith("ticks") for k in fields(r)), data


def test_a_tick_beyond_a_question_s_points_names_its_position(client_for, free_user, calc_track):
    session = mock.start(user=free_user, size=3, track="numbers")
    for item in session.items.all():
        mock.answer(
            user=free_user, session=mock.get(user=free_user, pk=session.pk), position=item.position
        )
    r = post(client_for(free_user), f"{API}/mocks/{session.pk}/finish/", {"ticks": {"2": [5]}})
    assert r.status_code == 400 and "ticks.2" in fields(r)
    assert MockSession.objects.get().finished_at is None


def test_another_learner_s_mock_is_404(client_for, free_user, calc_track):
    session = mock.start(user=free_user, size=3, track="numbers")
    other = client_for(UserFactory())
    url = f"{API}/mocks/{session.pk}/"
    assert other.get(url).status_code == 404
    assert post(other, url + "answer/", {"position": 1}).status_code == 404
    assert post(other, url + "finish/", {"ticks": {}}).status_code == 404
    assert other.get(f"{API}/mocks/").json()["count"] == 0
    assert client_for(free_user).get(f"{API}/mocks/999999/").status_code == 404
    assert MockSession.objects.get().items.filter(answered_at__isnull=False).count() == 0


# --- Cram plans ------------------------------------------------------------------------------


def test_a_cram_plan_is_made_ticked_and_ended_without_rescheduling(
    client_for, free_user, calc_track, fsrs_exact
):
    from inferview.community.practice import services

    track, readable = calc_track
    services.review_rate(user=free_user, question=readable[0], rating=1)
    before = list(ReviewCard.objects.values_list("due", "stability", "reps"))
    c = client_for(free_user)
    assert c.get(f"{API}/plans/").json() == {"plan": None}
    interview = timezone.localdate() + dt.timedelta(days=3)
    r = post(c, f"{API}/plans/", {"interview_on": interview.isoformat(), "tracks": ["numbers"]})
    assert r.status_code == 201, r.content
    plan = r.json()["plan"]
    assert plan["interview_on"] == interview.isoformat() and plan["tracks"] == ["numbers"]
    assert (plan["done"], plan["total"], plan["days_left"]) == (0, 3, 3)
    items = [i for day in plan["days"] for i in day["items"]]
    assert {i["question"]["id"] for i in items} == {q.pk for q in readable}  # none locked
    assert items[0]["reason"] == "due" and items[0]["question"]["id"] == readable[0].pk

    r = post(c, f"{API}/plans/items/{items[0]['id']}/", {"done": True})
    assert r.status_code == 200 and r.json()["done"] is True and r.json()["done_at"]
    assert c.get(f"{API}/plans/").json()["plan"]["done"] == 1
    assert list(ReviewCard.objects.values_list("due", "stability", "reps")) == before
    assert post(c, f"{API}/plans/items/{items[0]['id']}/", {"done": False}).json()["done"] is False

    assert c.delete(f"{API}/plans/").status_code == 204
    assert c.get(f"{API}/plans/").json() == {"plan": None}
    assert CramPlan.objects.get().archived_at is not None
    assert c.delete(f"{API}/plans/").status_code == 204  # nothing left to end


def test_a_new_plan_replaces_the_current_one(client_for, free_user, calc_track):
    c = client_for(free_user)
    day = (timezone.localdate() + dt.timedelta(days=2)).isoformat()
    first = post(c, f"{API}/plans/", {"interview_on": day, "tracks": ["numbers"]}).json()
    second = post(c, f"{API}/plans/", {"interview_on": day, "tracks": ["numbers"]}).json()
    assert c.get(f"{API}/plans/").json()["plan"]["id"] == second["plan"]["id"]
    assert CramPlan.objects.get(pk=first["plan"]["id"]).archived_at is not None


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"interview_on": "2001-01-01", "tracks": ["numbers"]}, "interview_on"),
        ({"interview_on": "someday", "tracks": ["numbers"]}, "interview_on"),
        ({"interview_on": "2099-01-01", "tracks": ["numbers"]}, "interview_on"),
        ({"tracks": ["numbers"]}, "interview_on"),
        ({"interview_on": "TOMORROW", "tracks": []}, "tracks"),
        ({"interview_on": "TOMORROW", "tracks": ["nope"]}, "tracks"),
        ({"interview_on": "TOMORROW", "tracks": "numbers"}, "tracks"),
        ({"interview_on": "TOMORROW"}, "tracks"),
    ],
)
def test_cram_plan_errors_name_the_field(client_for, free_user, calc_track, data, field):
    if data.get("interview_on") == "TOMORROW":
        data = {**data, "interview_on": (timezone.localdate() + dt.timedelta(days=1)).isoformat()}
    r = post(client_for(free_user), f"{API}/plans/", data)
    assert r.status_code == 400 and any(k.startswith(field) for k in fields(r)), r.content
    assert not CramPlan.objects.exists()


def test_cram_items_of_someone_else_are_404_and_done_is_required(client_for, free_user, calc_track):
    plan = cram.create(
        user=free_user,
        interview_on=timezone.localdate() + dt.timedelta(days=2),
        track_slugs=["numbers"],
    )
    item = plan.items.first()
    other = client_for(UserFactory())
    assert post(other, f"{API}/plans/items/{item.pk}/", {"done": True}).status_code == 404
    assert post(other, f"{API}/plans/items/999999/", {"done": True}).status_code == 404
    mine = client_for(free_user)
    for data in ({}, {"done": "maybe"}, {"done": None}):
        r = post(mine, f"{API}/plans/items/{item.pk}/", data)
        assert r.status_code == 400 and "done" in fields(r)
    assert CramItem.objects.get(pk=item.pk).done_at is None
    assert client_for(UserFactory()).delete(f"{API}/plans/").status_code == 204
    assert CramPlan.objects.get().archived_at is None  # another learner's plan stays


# --- The schema ------------------------------------------------------------------------------

PATHS = {
    "/api/v1/practice/questions/{id}/variant/": {"get": True},
    "/api/v1/practice/questions/{id}/new-attempt/": {"post": True},
    "/api/v1/practice/questions/{id}/key-points/": {"get": True, "post": False},
    "/api/v1/practice/answers/": {"get": False, "post": True},
    "/api/v1/practice/mocks/": {"get": False, "post": False},
    "/api/v1/practice/mocks/{id}/": {"get": False},
    "/api/v1/practice/mocks/{id}/answer/": {"post": False},
    "/api/v1/practice/mocks/{id}/finish/": {"post": False},
    "/api/v1/practice/plans/": {"get": False, "post": False, "delete": False},
    "/api/v1/practice/plans/items/{id}/": {"post": False},
}


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def test_the_schema_lists_every_practice_operation_and_who_may_call_it(schema):
    for path, methods in PATHS.items():
        assert path in schema["paths"], path
        ops = schema["paths"][path]
        assert set(ops) - {"parameters"} == set(methods), path
        for method, public in methods.items():
            op = ops[method]
            assert ({} in op["security"]) is public, (method, path)
            codes = set(op["responses"])
            assert "503" in codes
            if method in ("post", "delete"):
                assert {"400", "403", "429"} <= codes, (method, path)
            if "{" in path:
                assert "404" in codes, (method, path)
    detail = schema["components"]["schemas"]["QuestionDetail"]["properties"]
    assert {"key_points", "has_practice"} <= set(detail)
    grade = schema["components"]["schemas"]["Grade"]["properties"]
    assert grade["expected"]["nullable"] and grade["steps"]["nullable"]
