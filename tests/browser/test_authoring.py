"""An author in Chromium (issue 30): edits a live question into a draft (title, answer and
key points in the list editor: add, reorder, remove), previews the draft as an anonymous
visitor and as a premium reader, compares it with live, schedules it, and sees it live
once the publishing task has run after the due time (the service called with ``now``, as
beat's task would at that moment). Learners see the live text throughout.

At 1280 and 360 px the change form's toolbar (the previews, Compare with live, History)
never covers the title, no page scrolls sideways, axe finds nothing serious or critical
on the change form, the comparison and the previews, and screenshots go to
``var/screenshots/authoring-<page>-<width>.png``.
"""

from __future__ import annotations

import datetime as dt

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from django.utils import timezone
from playwright.sync_api import Page, expect

from questions import scheduling
from questions.models import ContentDraft, Question
from questions.roles import ensure_authors_group
from tests.factories import QuestionFactory, TrackFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = settings.VAR_DIR / "screenshots"
BLOCKING = {"serious", "critical"}
NARROW = {"width": 360, "height": 780}
WIDE = {"width": 1280, "height": 900}

LIVE_TITLE = "Half the weights are zero. Why did serving not get faster?"
DRAFT_TITLE = "Half the weights are zero, yet decode is no faster at batch one. Why?"
LIVE_ANSWER = "Decode reads every weight per token; sparsity saves FLOPs decode never spent."
DRAFT_ANSWER = "Unstructured zeros still travel from HBM: the bytes per token did not shrink."
POINTS = [
    "Decode at batch one is bound by bytes read, not FLOPs.",
    "Unstructured zeros are still stored and read from memory.",
    "Only a packed 2:4 format cuts the bytes and uses sparse tensor cores.",
]
NEW_POINT = "Batching amortises each weight read across sequences."


def _no_overlap(page: Page, where: str) -> list[str]:
    """The titles ("Change question" and the item's own, Django's subhead) and each
    toolbar link must not share a pixel, and nothing scrolls sideways."""
    problems = []
    titles = [page.locator("#content > h1").first, page.locator("#content > h2").first]
    links = page.locator("ul.object-tools li")
    assert links.count() >= 2, where
    for heading in titles:
        title = _text_box(heading)
        for i in range(links.count()):
            tool = links.nth(i).bounding_box()
            assert title and tool, where
            apart = (
                tool["y"] >= title["y"] + title["height"]
                or title["y"] >= tool["y"] + tool["height"]
                or tool["x"] >= title["x"] + title["width"]
                or title["x"] >= tool["x"] + tool["width"]
            )
            if not apart:
                problems.append(f"{where}: a toolbar link {tool} covers the title {title}")
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    if overflow > 0:
        problems.append(f"{where}: the page scrolls {overflow}px sideways")
    return problems


def _text_box(heading) -> dict | None:
    """The box of a heading's text (a block heading spans the column even where its text
    stops short of the toolbar, so its own box would overlap a toolbar beside it)."""
    return heading.evaluate(
        """h => { const r = document.createRange(); r.selectNodeContents(h);
                  const b = r.getBoundingClientRect();
                  return {x: b.x + scrollX, y: b.y + scrollY, width: b.width, height: b.height}; }"""
    )


def _axe(page: Page, where: str) -> list[str]:
    results = Axe().run(page)
    return [
        f"{where}: axe {v['impact']} {v['id']}: {v['help']} {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in BLOCKING
    ]


@pytest.fixture
def live_question(db):
    track = TrackFactory(title="Inference and serving", slug="serving")
    question = QuestionFactory(
        track=track,
        number=1,
        title=LIVE_TITLE,
        slug="half-the-weights-are-zero",
        access="premium",
        answer=LIVE_ANSWER,
        key_points=POINTS,
        published=True,
    )
    return question


@pytest.fixture
def author(db):
    """As ``add_author`` makes one; the factory gives staff the authenticator app the
    admin requires of them."""
    user = UserFactory(is_staff=True, email="author@example.com")
    user.groups.add(ensure_authors_group())
    return user


def test_an_author_drafts_previews_compares_schedules_and_publishes(
    browser, live_server, signed_in_page, live_question, author
):
    SHOTS.mkdir(parents=True, exist_ok=True)
    q = live_question
    change_url = f"{live_server.url}/admin/questions/question/{q.pk}/change/"
    public_url = live_server.url + q.get_absolute_url()
    problems: list[str] = []
    errors: list[str] = []

    admin = signed_in_page(browser.new_context(viewport=WIDE).new_page(), author)
    admin.on("pageerror", lambda exc: errors.append(str(exc)))
    learner = browser.new_context(viewport=WIDE).new_page()

    # 1. The live question, edited into a draft: title, answer, and key points as rows.
    admin.goto(change_url)
    expect(admin.locator("#content h1")).to_be_visible()
    problems += _no_overlap(admin, "change form 1280")
    admin.locator("#id_title").fill(DRAFT_TITLE)
    admin.locator("#id_answer").fill(DRAFT_ANSWER)
    rows = admin.locator('[data-list-editor="key_points"] .list-row')
    expect(rows).to_have_count(len(POINTS) + 2)  # the points and two spare rows
    rows.nth(len(POINTS)).locator("input").fill(NEW_POINT)  # a spare row
    admin.get_by_role("button", name=f"Move key point {len(POINTS) + 1} up").click()  # 4th -> 3rd
    admin.get_by_role("button", name="Move key point 1 down").click()  # 1st -> 2nd
    admin.get_by_role("button", name="Remove key point 4").click()  # POINTS[2], now 4th
    admin.locator('[data-list-editor="key_points"] .list-add').click()
    expect(rows).to_have_count(len(POINTS) + 2)
    admin.get_by_role("button", name="Save as draft").click()
    expect(admin.locator(".messagelist")).to_contain_text("Saved as a draft")
    expect(admin.locator(".draft-note")).to_contain_text("You are editing a draft")
    expected_points = [POINTS[1], POINTS[0], NEW_POINT]

    q.refresh_from_db()
    assert q.title == LIVE_TITLE and q.key_points == POINTS  # the live row is untouched
    draft = ContentDraft.objects.get()
    assert draft.data["title"] == DRAFT_TITLE and draft.data["key_points"] == expected_points
    learner.goto(public_url)
    expect(learner.locator("main h1")).to_have_text(LIVE_TITLE)

    problems += _no_overlap(admin, "draft form 1280")
    problems += _axe(admin, "draft form")
    admin.screenshot(path=str(SHOTS / "authoring-draft-form-1280.png"), full_page=False)

    # 2. The draft previewed as an anonymous visitor (locked) and as a premium reader.
    admin.get_by_role("link", name="Preview draft as anonymous").click()
    expect(admin.locator("main h1")).to_have_text(DRAFT_TITLE)
    expect(admin.get_by_text("Author preview")).to_be_visible()
    assert DRAFT_ANSWER not in admin.content() and LIVE_ANSWER not in admin.content()
    problems += _axe(admin, "preview as anonymous")
    admin.screenshot(path=str(SHOTS / "authoring-preview-anonymous-1280.png"), full_page=False)
    admin.go_back()
    admin.get_by_role("link", name="as premium").click()
    expect(admin.locator("main h1")).to_have_text(DRAFT_TITLE)
    expect(admin.get_by_text(DRAFT_ANSWER)).to_be_attached()
    problems += _axe(admin, "preview as premium")
    admin.screenshot(path=str(SHOTS / "authoring-preview-premium-1280.png"), full_page=False)
    admin.go_back()

    # 3. Compare with live: only the fields the author changed, old and new.
    admin.get_by_role("link", name="Compare with live").click()
    diff = admin.locator("#content-main")
    expect(diff).to_contain_text(f"-{LIVE_TITLE}")
    expect(diff).to_contain_text(f"+{DRAFT_TITLE}")
    expect(diff).to_contain_text(f"+{DRAFT_ANSWER}")
    expect(admin.locator("#content-main h2")).to_have_text(["Title", "Answer", "Key points"])
    expect(diff).to_contain_text(f"+{NEW_POINT}")  # one line per point
    expect(diff).to_contain_text(f"-{POINTS[2]}")
    problems += _axe(admin, "compare with live")
    admin.screenshot(path=str(SHOTS / "authoring-compare-1280.png"), full_page=True)

    # 4. Schedule the draft an hour from now (the form shows it in the server's zone).
    due = (timezone.localtime() + dt.timedelta(hours=1)).replace(second=0, microsecond=0)
    admin.goto(change_url)
    admin.locator("#id_publish_at_0").fill(due.strftime("%d/%m/%Y"))
    admin.locator("#id_publish_at_1").fill(due.strftime("%H:%M:%S"))
    admin.get_by_role("button", name="Save as draft").click()
    expect(admin.locator(".draft-note")).to_contain_text("scheduled to publish at")
    expect(admin.locator(".draft-note")).to_contain_text("author@example.com")
    draft.refresh_from_db()
    assert draft.publish_at == due and draft.scheduled_by == "author@example.com"
    admin.goto(f"{live_server.url}/admin/questions/question/")
    expect(admin.locator("td.field-schedule")).to_contain_text(
        f"publishes its draft {due:%Y-%m-%d %H:%M}"
    )

    # 5. The task: nothing a minute early; at the due time (plus a beat tick) it goes live.
    assert scheduling.publish_due(now=due - dt.timedelta(minutes=1)).count == 0
    learner.goto(public_url)
    expect(learner.locator("main h1")).to_have_text(LIVE_TITLE)
    report = scheduling.publish_due(now=due + dt.timedelta(seconds=30))
    assert len(report.drafts) == 1
    assert scheduling.publish_due(now=due + dt.timedelta(minutes=1)).count == 0  # once
    learner.goto(public_url)
    expect(learner.locator("main h1")).to_have_text(DRAFT_TITLE)
    q.refresh_from_db()
    assert q.title == DRAFT_TITLE and q.answer == DRAFT_ANSWER
    assert q.key_points == expected_points
    assert not ContentDraft.objects.exists()
    admin.goto(change_url)
    expect(admin.locator(".draft-note")).to_have_count(0)
    expect(admin.locator("#id_title")).to_have_value(DRAFT_TITLE)
    problems += _no_overlap(admin, "change form after publishing 1280")
    admin.screenshot(path=str(SHOTS / "authoring-change-form-1280.png"), full_page=False)

    admin.context.close()
    learner.context.close()
    assert problems == [], "\n".join(problems)
    assert errors == []


def test_the_toolbar_never_covers_the_title_at_360px(
    browser, live_server, signed_in_page, live_question, author
):
    """A phone's width, with a draft (so the toolbar has every link) and a long title."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    Question.objects.filter(pk=live_question.pk).update(title=LIVE_TITLE + " " + LIVE_TITLE)
    from questions import drafts

    drafts.save_draft(live_question, {"title": DRAFT_TITLE}, user=author)
    admin = signed_in_page(browser.new_context(viewport=NARROW).new_page(), author)
    problems: list[str] = []
    try:
        admin.goto(f"{live_server.url}/admin/questions/question/{live_question.pk}/change/")
        expect(admin.get_by_role("link", name="Compare with live")).to_be_visible()
        problems += _no_overlap(admin, "draft form 360")
        problems += _axe(admin, "draft form 360")
        admin.screenshot(path=str(SHOTS / "authoring-draft-form-360.png"), full_page=False)
        admin.locator('[data-list-editor="key_points"]').scroll_into_view_if_needed()
        admin.screenshot(path=str(SHOTS / "authoring-key-points-360.png"), full_page=False)
        admin.get_by_role("link", name="Compare with live").click()
        expect(admin.locator("#content-main")).to_contain_text(f"+{DRAFT_TITLE}")
        overflow = admin.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        if overflow > 0:
            problems.append(f"compare 360: the page scrolls {overflow}px sideways")
        problems += _axe(admin, "compare 360")
        admin.screenshot(path=str(SHOTS / "authoring-compare-360.png"), full_page=True)
    finally:
        admin.context.close()
    assert problems == [], "\n".join(problems)
