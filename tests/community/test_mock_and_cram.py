"""Mock interviews and cram plans through their pages, and the admin's author check."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.urls import reverse
from django.utils import timezone

from inferview.community.models import CramItem, KeyPointScore, MockItem, MockSession, ReviewCard
from inferview.community.practice import cram, mock
from questions.models import PracticeCheck
from tests.community.practice_data import POINTS, SPEC
from tests.factories import QuestionFactory, TrackFactory


@pytest.fixture
def track_with_questions(db):
    track = TrackFactory(slug="serving")
    open_qs = [QuestionFactory(track=track, key_points=POINTS, difficulty="easy") for _ in range(4)]
    calc = QuestionFactory(track=track, kind="calculation", practice=SPEC, key_points=POINTS)
    premium = [QuestionFactory(track=track, access="premium", key_points=POINTS) for _ in range(3)]
    return track, open_qs + [calc], premium


def test_a_three_question_mock_runs_to_its_summary(client_for, free_user, track_with_questions):
    track, readable, premium = track_with_questions
    c = client_for(free_user)
    start = c.post(reverse("community:mocks"), {"track": track.slug, "size": 3, "minutes": 5})
    assert start.status_code == 302
    session = MockSession.objects.get(user=free_user)
    items = list(session.items.order_by("position"))
    assert len(items) == 3
    assert all(i.question_id not in {p.pk for p in premium} for i in items)
    for item in items:
        page = c.get(start["Location"]).content.decode()
        assert item.question.title in page and 'id="mock-clock"' in page
        # key points are not shown while answering
        assert POINTS[0] not in page
        r = c.post(
            start["Location"], {"position": item.position, "response": f"answer {item.position}"}
        )
        assert r.status_code == 302
    page = c.get(start["Location"]).content.decode()
    assert "Which key points did you make?" in page and POINTS[0] in page
    c.post(start["Location"], {"made-1": ["1", "2", "3"], "made-2": ["1"], "made-3": []})
    summary = c.get(start["Location"]).content.decode()
    assert 'data-testid="mock-summary"' in summary
    assert "3 of 3" in summary and "1 of 3" in summary and "0 of 3" in summary
    session.refresh_from_db()
    assert session.finished_at is not None
    assert KeyPointScore.objects.filter(user=free_user).count() == 3
    assert all(i.answered_at and i.seconds is not None for i in session.items.all())
    assert "Yes" in summary  # the weak ones are flagged to review next
    history = c.get(reverse("community:mocks")).content.decode()
    assert "Finished" in history


def test_a_mock_only_draws_questions_the_learner_may_read(free_user, track_with_questions):
    track, readable, premium = track_with_questions
    for seed in range(20):
        session = mock.start(user=free_user, size=5, track=track.slug, rng=random.Random(seed))
        assert {i.question_id for i in session.items.all()} == {q.pk for q in readable}


def test_mock_errors_name_the_field(client_for, free_user, track_with_questions):
    c = client_for(free_user)
    r = c.post(reverse("community:mocks"), {"size": 10, "track": "serving", "minutes": 5})
    assert r.status_code == 400 and "Only 5 question(s) you can read match" in r.content.decode()
    r = c.post(reverse("community:mocks"), {"size": 4, "minutes": 5})
    assert r.status_code == 400 and "Select a valid choice" in r.content.decode()
    assert not MockSession.objects.exists()


def test_answers_go_in_order_and_a_mock_belongs_to_its_learner(
    client_for, free_user, verified_user, track_with_questions
):
    session = mock.start(user=free_user, size=3, track="serving")
    c = client_for(free_user)
    r = c.post(reverse("community:mock", args=[session.pk]), {"position": 2, "response": "x"})
    assert r.status_code == 400 and "Answer question 1" in r.content.decode()
    other = client_for(verified_user)
    assert other.get(reverse("community:mock", args=[session.pk])).status_code == 404
    assert (
        other.post(reverse("community:mock", args=[session.pk]), {"position": 1}).status_code == 404
    )
    assert client_for(None).get(reverse("community:mock", args=[session.pk])).status_code == 302


def test_a_mock_grades_the_numeric_part(client_for, free_user, db):
    track = TrackFactory(slug="numbers")
    q = QuestionFactory(track=track, kind="calculation", practice=SPEC, key_points=POINTS)
    c = client_for(free_user)
    c.post(reverse("community:mocks"), {"track": "numbers", "size": 3, "minutes": 5})
    # one calculation question is not enough for three
    assert not MockSession.objects.exists()
    QuestionFactory(track=track, key_points=POINTS)
    QuestionFactory(track=track, key_points=POINTS)
    c.post(reverse("community:mocks"), {"track": "numbers", "size": 3, "minutes": 5})
    session = MockSession.objects.get()
    for item in session.items.order_by("position"):
        data = {"position": item.position, "response": "r"}
        if item.question_id == q.pk:
            data |= {"value": "1", "unit": "GB"}
        c.post(reverse("community:mock", args=[session.pk]), data)
    graded_item = MockItem.objects.get(session=session, question=q)
    assert graded_item.numeric is not None and graded_item.numeric.correct is False


def test_a_cram_plan_lays_out_due_weak_and_new_without_rescheduling(
    client_for, free_user, track_with_questions, fsrs_exact
):
    from inferview.community.practice import services

    track, readable, premium = track_with_questions
    now = timezone.now()
    services.review_rate(user=free_user, question=readable[0], rating=1, now=now)  # due soon
    services.review_rate(user=free_user, question=readable[1], rating=4, now=now)
    card = ReviewCard.objects.get(user=free_user, question=readable[1])
    card.due = now + dt.timedelta(days=90)  # not due before the interview
    card.last_rating = 2  # but it was hard: weak
    card.save()
    before = {c.pk: (c.due, c.stability, c.reps) for c in ReviewCard.objects.all()}

    c = client_for(free_user)
    interview = timezone.localdate() + dt.timedelta(days=3)
    r = c.post(
        reverse("community:cram"), {"interview_on": interview.isoformat(), "tracks": ["serving"]}
    )
    assert r.status_code == 302
    items = list(CramItem.objects.order_by("day", "id"))
    reasons = {i.question_id: i.reason for i in items}
    assert reasons[readable[0].pk] == "due" and reasons[readable[1].pk] == "weak"
    assert {i.question_id for i in items} == {q.pk for q in readable}  # no premium item
    assert items[0].question_id == readable[0].pk  # due first
    assert all(timezone.localdate() <= i.day < interview for i in items)
    page = c.get(reverse("community:cram")).content.decode()
    assert 'data-testid="cram-plan"' in page and "0 of 5 done" in page

    c.post(reverse("community:cram"), {"item": items[0].pk, "done": "1"})
    assert CramItem.objects.get(pk=items[0].pk).done_at is not None
    assert {c.pk: (c.due, c.stability, c.reps) for c in ReviewCard.objects.all()} == before
    assert "1 of 5 done" in c.get(reverse("community:dashboard")).content.decode()


@pytest.mark.parametrize(
    ("data", "text"),
    [
        ({"interview_on": "2001-01-01", "tracks": ["serving"]}, "Choose a date after today."),
        ({"interview_on": "someday", "tracks": ["serving"]}, "Enter a valid date."),
        ({"interview_on": "2099-01-01", "tracks": ["serving"]}, "within 180 days"),
        ({"interview_on": "TOMORROW", "tracks": []}, "This field is required"),
        ({"interview_on": "TOMORROW", "tracks": ["nope"]}, "Select a valid choice"),
    ],
)
def test_cram_errors_name_the_field(client_for, free_user, track_with_questions, data, text):
    if data["interview_on"] == "TOMORROW":
        data = {**data, "interview_on": (timezone.localdate() + dt.timedelta(days=1)).isoformat()}
    r = client_for(free_user).post(reverse("community:cram"), data)
    assert r.status_code == 400 and text in r.content.decode()


def test_cram_items_of_someone_else_cannot_be_ticked(
    client_for, free_user, verified_user, track_with_questions
):
    plan = cram.create(
        user=free_user,
        interview_on=timezone.localdate() + dt.timedelta(days=2),
        track_slugs=["serving"],
    )
    item = plan.items.first()
    r = client_for(verified_user).post(reverse("community:cram"), {"item": item.pk})
    assert r.status_code == 404
    assert CramItem.objects.get(pk=item.pk).done_at is None


def test_ticking_an_item_goes_back_to_the_plan_whatever_back_says(
    client_for, free_user, track_with_questions
):
    plan = cram.create(
        user=free_user,
        interview_on=timezone.localdate() + dt.timedelta(days=2),
        track_slugs=["serving"],
    )
    item = plan.items.first()
    r = client_for(free_user).post(
        reverse("community:cram"), {"item": item.pk, "back": "https://evil.example/"}
    )
    # back to the plan, at the item ticked (the place is kept), never to "back"
    assert (r.status_code, r["Location"]) == (
        302,
        f"{reverse('community:cram')}#cram-item-{item.pk}",
    )
    assert CramItem.objects.get(pk=item.pk).done_at is not None


def test_the_planner_spreads_evenly_and_orders_due_weak_new():
    start = dt.date(2026, 12, 1)
    cands = [cram.Candidate(i, "new", (i,)) for i in range(5)] + [
        cram.Candidate(10, "weak", (0.2,)),
        cram.Candidate(11, "due", (1,)),
        cram.Candidate(12, "due", (0,)),
    ]
    plan = cram.plan_days(cands, start=start, end=start + dt.timedelta(days=4))
    assert [pk for pk, _, _ in plan][:4] == [12, 11, 10, 0]
    per_day = {}
    for _, day, _ in plan:
        per_day[day] = per_day.get(day, 0) + 1
    assert max(per_day.values()) == 2 and len(plan) == 8
    assert cram.plan_days(cands, start=start, end=start) == []
    assert len(cram.plan_days(cands, start=start, end=start + dt.timedelta(days=1), per_day=3)) == 3


def test_saving_a_spec_in_admin_runs_the_author_check(
    client_for, staff_user, db, monkeypatch, django_capture_on_commit_callbacks
):
    from django.contrib.auth.models import Permission

    from questions import tasks

    staff_user.user_permissions.add(*Permission.objects.filter(codename__endswith="_question"))
    q = QuestionFactory(kind="calculation")
    c = client_for(staff_user)
    monkeypatch.setattr(tasks.check_practice, "delay", lambda pk: tasks.check_practice(pk))
    change = reverse("admin:questions_question_change", args=[q.pk])
    page = c.get(change)
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None}
    import json

    data.update(
        {
            "track": q.track_id,
            "concepts": [],
            "key_points": list(POINTS),  # the list editor posts one row per point
            "practice": json.dumps({**SPEC, "tolerance": 0.1}),  # accepts GB vs GiB
            "published_at_0": "",
            "calculator_embeds-TOTAL_FORMS": 0,
            "calculator_embeds-INITIAL_FORMS": 0,
        }
    )
    with django_capture_on_commit_callbacks(execute=True):
        r = c.post(change, data)
    assert r.status_code == 302, r.context["adminform"].form.errors if r.context else r
    check = PracticeCheck.objects.get(question=q)
    assert check.status == "done" and check.ok is False
    assert any(p["kind"] == "tolerance-accepts-mistake" for p in check.report["problems"])
    page = c.get(change).content.decode()
    assert "tolerance-accepts-mistake" in page

    data["practice"] = json.dumps({**SPEC, "mistakes": ["typo"]})
    r = c.post(change, data)
    assert r.status_code == 200
    assert "unknown mistake" in r.content.decode()
    assert PracticeCheck.objects.count() == 1  # a refused edit queues nothing


CHECK_SCRIPT = """
import json
from django.db import transaction
from questions.models import Question, Track
from questions.tasks import schedule_practice_check
spec = json.loads('''{spec}''')
track = Track.objects.create(slug="w", title="W", category="serving", summary="S.", order=1)
with transaction.atomic():
    q = Question.objects.create(
        track=track, number=1, slug="q", title="Q?", summary="S.", answer="A.",
        difficulty="easy", kind="calculation", practice=spec,
    )
    schedule_practice_check(q)
"""


@pytest.mark.worker
def test_the_author_check_runs_in_a_real_worker(tmp_path):
    """Saving a spec queues questions.check_practice on commit; a real Celery worker (the
    embedded transport, as ``make run``) runs the 200 seeds and stores the report."""
    import json
    import sqlite3
    import subprocess
    import time

    from tests.calculators.stack import PYTHON, ROOT, _stop, stack_env

    env = stack_env(tmp_path, redis_url=None)
    db = tmp_path / "stack.sqlite3"
    for command in (["migrate", "--noinput", "-v", "0"], ["createcachetable"]):
        subprocess.run([PYTHON, "manage.py", *command], cwd=ROOT, env=env, check=True, timeout=300)
    worker = subprocess.Popen(
        [PYTHON, "-m", "celery", "-A", "inferview", "worker", "-Q", "default", "-c", "1",
         "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "warning",
         "-n", f"check-test-{tmp_path.name}@%h"],
        cwd=ROOT, env=env, stdout=open(tmp_path / "worker.log", "w"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        loose = json.dumps({**SPEC, "tolerance": 0.1})
        subprocess.run(
            [PYTHON, "manage.py", "shell", "-c", CHECK_SCRIPT.replace("{spec}", loose)],
            cwd=ROOT, env=env, check=True, timeout=120,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        row = None
        while time.monotonic() < deadline:
            with sqlite3.connect(db) as conn:
                row = conn.execute(
                    "SELECT status, ok, report FROM questions_practicecheck"
                ).fetchone()
            if row and row[0] != "pending":
                break
            time.sleep(0.2)
        assert row and row[0] == "done", (row, (tmp_path / "worker.log").read_text()[-2000:])
        report = json.loads(row[2])
        assert row[1] == 0 and report["seeds"] == 200
        assert "tolerance-accepts-mistake" in {p["kind"] for p in report["problems"]}
    finally:
        _stop(worker)


def test_a_bad_number_in_a_mock_keeps_what_was_typed(client_for, free_user, db):
    track = TrackFactory(slug="keep")
    QuestionFactory(track=track, kind="calculation", practice=SPEC, key_points=POINTS)
    for _ in range(2):
        QuestionFactory(track=track, kind="calculation", practice=SPEC, key_points=POINTS)
    session = mock.start(user=free_user, size=3, track="keep")
    c = client_for(free_user)
    url = reverse("community:mock", args=[session.pk])
    r = c.post(url, {"position": 1, "response": "My long reasoning", "value": "lots", "unit": "GB"})
    html = r.content.decode()
    assert r.status_code == 400 and "Enter a number" in html
    assert "My long reasoning</textarea>" in html and 'value="lots"' in html
    assert MockItem.objects.get(session=session, position=1).answered_at is None


def test_a_mock_asks_one_scenario_and_debriefs_beside_the_right_number(client_for, free_user, db):
    track = TrackFactory(slug="scenario")
    q = QuestionFactory(
        track=track,
        kind="calculation",
        practice=SPEC,
        key_points=POINTS,
        body="A worked case: **300 ms** TTFT and 500 tokens.",
        answer="The model answer: multiply bytes per token by tokens.",
    )
    QuestionFactory(track=track, key_points=POINTS)
    QuestionFactory(track=track, key_points=POINTS)
    c = client_for(free_user)
    c.post(reverse("community:mocks"), {"track": "scenario", "size": 3, "minutes": 5})
    session = MockSession.objects.get()
    url = reverse("community:mock", args=[session.pk])
    for item in session.items.order_by("position"):
        page = c.get(url).content.decode()
        data = {"position": item.position, "response": f"my answer {item.position}"}
        if item.question_id == q.pk:
            assert "300 ms" not in page  # the worked case's numbers are not asked too
            assert 'data-testid="prompt"' in page
            data |= {"value": "12.5", "unit": "GB"}
        c.post(url, data)
    c.post(url, {f"made-{i.position}": ["1"] for i in session.items.all()})
    html = c.get(url).content.decode()
    assert 'data-testid="mock-debrief"' in html
    assert "Your number" in html and "12.5 GB" in html and "The right number" in html
    assert "The model answer: multiply" in html
    assert html.count("Made:") == 3 and html.count("Missed:") == 3 * (len(POINTS) - 1)


def test_a_confident_question_is_not_listed_as_new(free_user, track_with_questions):
    from inferview.community.practice import services

    track, readable, _ = track_with_questions
    first = readable[0]
    services.progress_set(user=free_user, question=first, status="confident")
    plan = cram.create(
        user=free_user,
        interview_on=timezone.localdate() + dt.timedelta(days=3),
        track_slugs=[track.slug],
    )
    listed = set(plan.items.values_list("question_id", flat=True))
    assert first.pk not in listed and listed  # the others are still new
