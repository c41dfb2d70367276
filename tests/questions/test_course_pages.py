"""The course's logic, pages and API: grading a check yourself (plain), /course/ and a
lesson page per tier (200s, 404s, the paywall, no body or answer leak), the check form,
"Mark as done", progress on /course/ and the dashboard, the lesson API and its progress
PUT, and the lessons a question page and a guide section link."""

from __future__ import annotations

import pytest
from django.test import Client

from questions import lessons
from questions.lesson_checks import check_item_problems, expected_value, grade_check
from questions.models import LessonProgress
from tests.factories import (
    LESSON_CHECK,
    ConceptFactory,
    GuideSectionFactory,
    LessonFactory,
    PartFactory,
    QuestionFactory,
)

BODY = "## The idea\n\nSECRETLESSONBODY decode reads every weight.\n\n## Summary\n\n- Decode."


# ---------------------------------------------------------------------------- grading


def test_a_number_item_is_graded_by_the_kernel_in_any_unit_of_its_kind():
    item = LESSON_CHECK[1]
    right = expected_value(item)  # kv_cache, Llama 3.1 8B, one 8k sequence
    assert right == pytest.approx(1.073741824)
    assert grade_check([item], [{"value": "1.07", "unit": "GB"}]).passed
    assert grade_check([item], [{"value": "1073.7", "unit": "MB"}]).passed
    assert grade_check([item], [{"value": "1.0", "unit": "GiB"}]).passed  # 1.074 GB
    assert not grade_check([item], [{"value": "2.15", "unit": "GB"}]).passed  # K and V twice


def test_choices_are_graded_by_index_and_bad_input_names_the_item():
    items = LESSON_CHECK
    good = grade_check(items, [1, {"value": 1.07, "unit": "GB"}, "1"])
    assert good.passed and good.score == 3
    wrong = grade_check(items, [0, {"value": 1.07, "unit": "GB"}, 1])
    assert not wrong.passed and wrong.score == 2 and not wrong.errors
    bad = grade_check(items, [7, {"value": "lots", "unit": "GB"}, None])
    assert not bad.passed
    assert set(bad.errors) == {"item-1", "item-2", "item-3"}
    assert "not a number" in bad.errors["item-2"][0]
    assert "unit" in grade_check(items, [1, {"value": 1, "unit": "ms"}, 1]).errors["item-2"][0]


def test_a_check_the_server_cannot_grade_is_refused():
    assert check_item_problems(LESSON_CHECK) == []
    assert check_item_problems(LESSON_CHECK[:2])  # too few
    broken = [*LESSON_CHECK[:2], {**LESSON_CHECK[1], "inputs": {"seq_len": -3}}]
    assert any("inputs" in p for p in check_item_problems(broken))


# ---------------------------------------------------------------------------- pages


@pytest.fixture
def course(db):
    part = PartFactory(number=1, slug="foundations", title="Foundations")
    first = LessonFactory(part=part, number=1, slug="first", access="open")
    second = LessonFactory(part=part, number=2, slug="second", access="account", body=BODY)
    hw = PartFactory(number=3, slug="hardware", title="Hardware")
    premium = LessonFactory(part=hw, number=2, slug="premium-one", access="premium", body=BODY)
    return {"first": first, "second": second, "premium": premium}


@pytest.fixture
def free_client(free_user):
    client = Client()
    client.force_login(free_user)
    return client


@pytest.fixture
def premium_client(premium_user):
    client = Client()
    client.force_login(premium_user)
    return client


def test_course_page_lists_parts_in_order_with_minutes_and_badges(client, course):
    response = client.get("/course/")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.index("Foundations") < html.index("Hardware")
    assert "9 min" in html and "Premium" in html and "Sign in" in html
    assert "SECRETLESSONBODY" not in html


def test_a_locked_lesson_shows_title_summary_toc_and_paywall_never_body_or_check(
    client, free_client, premium_client, course
):
    url = course["premium"].get_absolute_url()
    for reader in (client, free_client):
        html = reader.get(url).content.decode()
        assert course["premium"].title in html and "The idea" in html  # the ToC
        assert 'class="paywall"' in html and "This lesson is part of Premium" in html
        assert "SECRETLESSONBODY" not in html
        assert LESSON_CHECK[0]["prompt"] not in html
        assert LESSON_CHECK[0]["explain"] not in html
    html = premium_client.get(url).content.decode()
    assert "SECRETLESSONBODY" in html and 'id="s-the-idea"' in html
    assert LESSON_CHECK[0]["prompt"] in html and LESSON_CHECK[0]["explain"] not in html


def test_an_account_lesson_asks_an_anonymous_reader_to_sign_in(client, free_client, course):
    url = course["second"].get_absolute_url()
    html = client.get(url).content.decode()
    assert "Sign in to read this lesson" in html and "SECRETLESSONBODY" not in html
    assert "SECRETLESSONBODY" in free_client.get(url).content.decode()


def test_unknown_and_draft_lessons_are_404(client, course):
    assert client.get("/course/foundations/nope/").status_code == 404
    assert client.get("/course/hardware/first/").status_code == 404  # wrong part
    course["first"].published = False
    course["first"].save()
    assert client.get("/course/foundations/first/").status_code == 404


def test_previous_and_next_cross_parts(client, course):
    html = client.get(course["second"].get_absolute_url()).content.decode()
    assert course["first"].get_absolute_url() in html
    assert course["premium"].get_absolute_url() in html


def test_the_check_is_graded_on_the_server_and_a_pass_is_recorded(free_client, free_user, course):
    url = course["second"].get_absolute_url() + "check/"
    wrong = free_client.post(
        url, {"item-1": "0", "item-2": "1.07", "item-2-unit": "GB", "item-3": "1"}
    )
    assert wrong.status_code == 200 and "2 of 3 right" in wrong.content.decode()
    assert LESSON_CHECK[0]["explain"] in wrong.content.decode()  # after answering
    assert not LessonProgress.objects.filter(user=free_user).exists()
    bad = free_client.post(url, {"item-1": "1", "item-2": "lots", "item-3": "1"})
    assert bad.status_code == 400 and "is not a number" in bad.content.decode()
    ok = free_client.post(
        url, {"item-1": "1", "item-2": "1073", "item-2-unit": "MB", "item-3": "1"}
    )
    assert ok.status_code == 200 and "check passed" in ok.content.decode()
    row = LessonProgress.objects.get(user=free_user, lesson=course["second"])
    assert row.check_passed_at is not None and row.done_at is None
    page = free_client.get("/course/").content.decode()
    assert "1 of 2 lessons done" in page and "Check passed" in page
    dash = free_client.get("/dashboard/").content.decode()
    assert "1 of 3 lessons" in dash


def test_a_locked_check_is_refused_without_grading(client, free_client, course):
    url = course["premium"].get_absolute_url() + "check/"
    for reader in (client, free_client):
        response = reader.post(url, {"item-1": "1", "item-2": "1.07", "item-3": "1"})
        assert response.status_code == 403
        assert LESSON_CHECK[0]["explain"] not in response.content.decode()
        assert "SECRETLESSONBODY" not in response.content.decode()


def test_mark_as_done_and_undone(free_client, free_user, course, client):
    url = course["first"].get_absolute_url() + "done/"
    assert client.post(url).status_code == 302  # to sign in
    assert not LessonProgress.objects.exists()
    assert free_client.post(url).status_code == 302
    assert LessonProgress.objects.get(user=free_user).done_at is not None
    assert "Done" in free_client.get(course["first"].get_absolute_url()).content.decode()
    free_client.post(url, {"done": "0"})
    assert LessonProgress.objects.get(user=free_user).done_at is None
    assert free_client.post(course["premium"].get_absolute_url() + "done/").status_code == 403


def test_a_question_page_and_a_guide_section_link_the_lessons_that_teach_them(client, course):
    concept = ConceptFactory(slug="roofline-model")
    question = QuestionFactory()
    course["first"].questions.add(question)
    course["first"].concepts.add(concept)
    html = client.get(question.get_absolute_url()).content.decode()
    assert course["first"].get_absolute_url() in html and "Learn it in" in html
    section = GuideSectionFactory()
    section.concepts.add(concept)
    html = client.get(section.guide.get_absolute_url()).content.decode()
    assert course["first"].get_absolute_url() in html
    assert lessons.lessons_for_sections([section])[section.pk] == [course["first"]]


# ---------------------------------------------------------------------------- API


def test_api_lists_and_gates_lessons(client, free_client, premium_client, course):
    listing = client.get("/api/v1/lessons/").json()
    slugs = [row["slug"] for row in listing["results"]] if "results" in listing else None
    assert slugs == ["first", "second", "premium-one"]
    for reader in (client, free_client):
        data = reader.get("/api/v1/lessons/premium-one/").json()
        assert data["body_html"] is None and data["check"] == []
        assert data["locked"] == {"tier": "premium", "label": "Premium"}
        assert data["toc"][0]["title"] == "The idea"
        assert "SECRETLESSONBODY" not in str(data)
    data = premium_client.get("/api/v1/lessons/premium-one/").json()
    assert "SECRETLESSONBODY" in data["body_html"] and data["locked"] is None
    assert data["check"][0] == {
        "kind": "choice",
        "prompt": LESSON_CHECK[0]["prompt"],
        "choices": LESSON_CHECK[0]["choices"],
    }
    assert "answer" not in str(data["check"]) and "explain" not in str(data["check"])
    assert client.get("/api/v1/lessons/nope/").status_code == 404


def test_api_progress_put_validates_and_gates(client, free_client, free_user, course):
    url = "/api/v1/lessons/first/progress/"
    assert client.put(url, {"done": True}, content_type="application/json").status_code == 403
    bad = free_client.put(url, {"done": "perhaps"}, content_type="application/json")
    assert bad.status_code == 400 and "done" in bad.json()["error"]["fields"]
    ok = free_client.put(url, {"done": True}, content_type="application/json")
    assert ok.status_code == 200 and ok.json()["done"] is True
    assert LessonProgress.objects.get(user=free_user).done_at is not None
    locked = free_client.put(
        "/api/v1/lessons/premium-one/progress/", {"done": True}, content_type="application/json"
    )
    assert locked.status_code == 403


def test_api_check_grades_and_records(free_client, free_user, course):
    url = "/api/v1/lessons/second/check/"
    answers = [1, {"value": 1.07, "unit": "GB"}, 1]
    ok = free_client.post(url, {"answers": answers}, content_type="application/json")
    assert ok.status_code == 200 and ok.json() == {"passed": True, "score": 3, "items": [True] * 3}
    assert LessonProgress.objects.get(user=free_user).check_passed_at is not None
    # well formed but not this lesson's answers: 422 (the operation documents the rules)
    short = free_client.post(url, {"answers": [1]}, content_type="application/json")
    assert short.status_code == 422 and "answers" in short.json()["error"]["fields"]
    unread = free_client.post(
        url, {"answers": [1, {"value": "x"}, 1]}, content_type="application/json"
    )
    assert unread.status_code == 422
    # malformed (the schema refuses a nested list): 400
    bad = free_client.post(
        url, {"answers": [1, {"value": "x"}, [1]]}, content_type="application/json"
    )
    assert bad.status_code == 400
    locked = free_client.post(
        "/api/v1/lessons/premium-one/check/", {"answers": answers}, content_type="application/json"
    )
    assert locked.status_code == 403


# ---------------------------------------------------------------------------- search


def test_search_finds_a_locked_lesson_by_its_headings_never_by_or_quoting_its_body(
    client, premium_client, course
):
    from questions.search import search

    premium = course["premium"]
    # body words find it only for a reader of premium
    assert premium not in [h.obj for h in search("SECRETLESSONBODY", levels=("open", "account"))]
    assert course["second"] in [
        h.obj for h in search("SECRETLESSONBODY", levels=("open", "account"))
    ]
    found = search("SECRETLESSONBODY", levels=("open", "account", "premium"))
    assert premium in [h.obj for h in found]
    # a heading (public: the table of contents) finds it for anyone, quoting no body
    hits = [h for h in search("idea", levels=("open",)) if h.obj == premium]
    assert hits and hits[0].type == "lesson" and not hits[0].guarded_searched
    assert "SECRETLESSONBODY" not in hits[0].snippet
    # through the pages and the API, as the policy says
    assert (
        premium.get_absolute_url() not in client.get("/search/?q=SECRETLESSONBODY").content.decode()
    )
    assert (
        premium.get_absolute_url()
        in premium_client.get("/search/?q=SECRETLESSONBODY").content.decode()
    )
    api = client.get("/api/v1/search/?q=idea").content.decode()
    assert premium.get_absolute_url() in api and "SECRETLESSONBODY" not in api


# ---------------------------------------------------------------------------- progress elsewhere


def test_the_cram_plan_schedules_the_lessons_that_teach_its_questions(
    free_client, free_user, course
):
    import datetime as dt

    from django.utils import timezone

    from inferview.community.practice import cram

    question = QuestionFactory(access="open")
    course["second"].questions.add(question)  # account: readable by a free learner
    course["premium"].questions.add(question)  # premium: not scheduled for them
    plan = cram.create(
        user=free_user,
        interview_on=timezone.localdate() + dt.timedelta(days=3),
        track_slugs=[question.track.slug],
    )
    view = cram.view(plan)
    scheduled = [(le, done) for _, day_lessons, _ in view.schedule for le, done in day_lessons]
    assert scheduled == [(course["second"], False)]
    lessons.mark_done(user=free_user, lesson=course["second"])
    assert [d for _, ls, _ in cram.view(plan).schedule for _, d in ls] == [True]
    page = free_client.get("/practice/cram/").content.decode()
    assert course["second"].get_absolute_url() in page and "read first" in page
    assert course["premium"].get_absolute_url() not in page


def test_the_data_export_holds_lesson_progress(free_user, course):
    from inferview.accounts.export import export_for

    lessons.record_check(user=free_user, lesson=course["first"], passed=True)
    rows = export_for(user=free_user)["lesson_progress"]
    assert [r["lesson__slug"] for r in rows] == ["first"] and rows[0]["check_passed_at"]
