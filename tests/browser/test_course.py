"""The course in a browser (issue 26): an anonymous reader opens the course's first lesson
and meets the paywall on a premium one; a free learner passes a check yourself and sees
the progress on /course/ and the dashboard. At 360 and 1280 px: no serious or critical
axe finding, no sideways scroll; screenshots in var/screenshots/course/."""

from __future__ import annotations

import pytest
from django.conf import settings

from tests.browser.test_graded_practice import axe_problems, sign_in
from tests.factories import ConceptFactory, LessonFactory, PartFactory, QuestionFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = settings.VAR_DIR / "screenshots" / "course"
SECRET = "PREMIUMLESSONSECRET"


def body(slug: str, secret: str = "") -> str:
    return (
        f"## Why it matters\n\n{secret} Decode reads every weight once per token, so the "
        "cache and the weights share one bandwidth budget.\n\n"
        "{{calc kv_cache model=llama-3.1-8b batch_size=1 seq_len=8192}}\n\n"
        "One 8k sequence needs {{calc kv_cache model=llama-3.1-8b batch_size=1 "
        "seq_len=8192 -> total_gb}} of cache.\n\n"
        '![Bytes read per decode step](diagrams/c-decode-bytes-per-step.svg "What one step reads")'
        "\n\n## Where it goes wrong\n\nCounting K and V once halves the answer.\n\n"
        "## Summary\n\n- The cache grows with context.\n- Decode is memory-bound at batch 1."
    )


def build_course():
    concept = ConceptFactory(slug="kv-cache", title="The KV cache")
    question = QuestionFactory(title="How much KV cache does one user need?")
    one = PartFactory(number=1, slug="foundations", title="Foundations: how a model answers")
    first = LessonFactory(
        part=one, number=1, slug="how-a-request-flows", title="How a request flows",
        access="open", body=body("first"), checked="2026-12",
        references=[{"title": "PagedAttention", "publisher": "arXiv:2309.06180", "year": 2023,
                     "url": "https://arxiv.org/abs/2309.06180"}],
    )  # fmt: skip
    second = LessonFactory(
        part=one, number=2, slug="where-the-memory-goes", title="Where the memory goes",
        access="account", body=body("second"), checked="2026-12",
    )  # fmt: skip
    three = PartFactory(number=3, slug="hardware", title="Hardware: GPUs and memory")
    LessonFactory(part=three, number=1, slug="inside-a-gpu", title="Inside a GPU", access="open")
    premium = LessonFactory(
        part=three, number=2, slug="the-memory-hierarchy", title="The memory hierarchy",
        access="premium", body=body("premium", SECRET),
    )  # fmt: skip
    for lesson in (first, second, premium):
        lesson.concepts.add(concept)
        lesson.questions.add(question)
    return first, second, premium


@pytest.mark.parametrize("width", [360, 1280])
def test_reading_the_course_and_passing_a_check(browser, live_server, width):
    first, second, premium = build_course()
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []

    # An anonymous reader: the course, its first lesson, then a premium lesson's paywall.
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(live_server.url + "/")
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Course").click()
        page.wait_for_url("**/course/")
        problems += axe_problems(page, f"course-anonymous-{width}")
        page.screenshot(path=str(SHOTS / f"course-anonymous-{width}.png"), full_page=True)
        page.get_by_role("link", name="How a request flows").click()
        page.wait_for_url(f"**{first.get_absolute_url()}")
        assert page.get_by_role("heading", name="How a request flows", level=1).is_visible()
        assert page.locator(".calc-block, .calc-steps, .calc-table").count() > 0
        assert page.locator("figure.diagram img").count() == 1
        page.get_by_role("link", name="Where it goes wrong").click()  # the contents
        problems += axe_problems(page, f"lesson-open-{width}")
        page.screenshot(path=str(SHOTS / f"lesson-open-{width}.png"), full_page=True)

        page.goto(live_server.url + premium.get_absolute_url())
        paywall = page.locator(".paywall")
        assert paywall.is_visible()
        assert "This lesson is part of Premium" in paywall.inner_text()
        assert "Why it matters" in page.locator(".lesson-toc").inner_text()
        assert SECRET not in page.content()
        assert page.locator("#check").count() == 0
        problems += axe_problems(page, f"lesson-paywall-{width}")
        page.screenshot(path=str(SHOTS / f"lesson-paywall-{width}.png"), full_page=True)
    finally:
        context.close()

    # A free learner: passes the check of an account lesson, sees it on /course/ and the
    # dashboard.
    learner = UserFactory()
    context = browser.new_context(viewport={"width": width, "height": 900})
    sign_in(context, live_server, learner)
    page = context.new_page()
    try:
        page.goto(live_server.url + second.get_absolute_url())
        assert page.locator(".paywall").count() == 0
        check = page.locator("#check")
        check.get_by_label("Decode").check()
        check.get_by_label("Your answer").fill("1070")
        check.get_by_label("Unit").select_option("MB")
        check.get_by_label("The KV cache").check()
        check.get_by_role("button", name="Check my answers").click()
        result = page.get_by_test_id("check-result")
        result.wait_for()
        assert "check passed" in result.inner_text()
        assert page.get_by_test_id("lesson-status").inner_text() == "Check passed"
        problems += axe_problems(page, f"lesson-checked-{width}")
        page.screenshot(path=str(SHOTS / f"lesson-checked-{width}.png"), full_page=True)

        page.goto(live_server.url + "/course/")
        progress = page.get_by_test_id("part-progress").first.inner_text()
        assert "1 of 2 lessons done" in progress
        problems += axe_problems(page, f"course-learner-{width}")
        page.screenshot(path=str(SHOTS / f"course-learner-{width}.png"), full_page=True)

        page.goto(live_server.url + "/dashboard/")
        assert "1 of 4 lessons done" in page.get_by_test_id("dash-course").inner_text()
        problems += axe_problems(page, f"dashboard-{width}")
        page.screenshot(path=str(SHOTS / f"dashboard-{width}.png"), full_page=True)
    finally:
        context.close()
    assert problems == []
