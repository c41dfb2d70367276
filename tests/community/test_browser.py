"""Learners' tools in Chromium (Playwright, Debian's browser): the whole journey, and the
XSS corpus rendered with listeners for dialogs and console errors."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import expect

from inferview.community.bookmarks import services as bookmark_services
from inferview.community.discussion import services as discussion_services
from inferview.community.practice import services as practice_services
from questions.markdown import plain_text
from questions.models import Question
from tests.community.test_xss import PAYLOADS
from tests.conftest import DESKTOP, PASSWORD, PHONE
from tests.factories import QuestionFactory, TrackFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp/community-shots")


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def watch(page):
    problems = []
    page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("pageerror", lambda exc: problems.append(f"pageerror: {exc}"))
    page.on(
        "console",
        lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )
    return problems


def open_question_with_phrase():
    from questions.content_io import import_content

    import_content(settings.CONTENT_DIR)
    question = (
        Question.objects.filter(published=True, access="open")
        .select_related("track")
        .order_by("track__order", "number")
        .first()
    )
    words = plain_text(question.answer).split()
    phrase = " ".join(w.strip(".,:;()*`") for w in words[10:15])
    return question, phrase


def test_learner_journey(browser, live_server, verified_user):
    question, phrase = open_question_with_phrase()
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    problems = watch(page)
    url = live_server.url + question.get_absolute_url()

    # Sign in through the form.
    page.goto(f"{live_server.url}/accounts/login/?next={question.get_absolute_url()}")
    page.fill("input[name=login]", verified_user.email)
    page.fill("input[name=password]", PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(re.escape(question.get_absolute_url())))

    # Bookmark without a reload: a marker on window survives the toggle.
    page.evaluate("window.__noReload = 1")
    button = page.locator(".question-tools .bookmark-button")
    assert button.get_attribute("aria-pressed") == "false"
    button.click()
    page.wait_for_selector(".question-tools .bookmark-button[aria-pressed=true]")
    assert page.evaluate("window.__noReload") == 1
    expect(button).to_contain_text("Bookmarked")

    # Write an approach, reveal, rate.
    expect(page.locator("#answer-text")).to_be_hidden()
    shot(page, "question-before-reveal")
    page.fill("#id_approach", "Start from bytes per token, then multiply by layers.")
    page.get_by_role("button", name="Save and reveal the answer").click()
    page.wait_for_selector("#answer-text", state="visible")
    assert (
        page.locator("#id_approach").input_value()
        == "Start from bytes per token, then multiply by layers."
    )
    shot(page, "question-revealed")
    page.locator(".rating-form").get_by_role("button", name=re.compile("^Good")).click()
    page.wait_for_selector("text=Rated Good")

    # Dashboard and review page.
    page.goto(live_server.url + "/dashboard/")
    assert (
        page.locator("#dash-bookmarks").locator("xpath=..").get_by_text(question.title).count() == 1
    )
    assert page.locator("#dash-due").locator("xpath=..").get_by_text(question.title).count() == 1
    expect(page.get_by_text("rated Good")).to_be_visible()
    shot(page, "dashboard")
    page.goto(live_server.url + "/review/")
    expect(page.get_by_text(question.title).first).to_be_visible()
    shot(page, "review")

    # Comment, reply, edit, delete.
    page.goto(url)
    page.fill("#id_body", "I started from the **memory** side.")
    page.get_by_role("button", name="Post comment").click()
    page.wait_for_selector(".comment-body strong:text('memory')")
    thread = page.locator(".comment-thread").first
    thread.locator("summary", has_text="Reply").click()
    thread.locator("textarea[name=body]").fill("Good point, and the batch size matters too.")
    thread.get_by_role("button", name="Post reply").click()
    page.wait_for_selector(".comment-reply >> text=batch size matters")
    page.locator(".comment-thread").first.locator(".comment:not(.comment-reply)").get_by_role(
        "link", name="Edit"
    ).click()
    page.fill("textarea[name=body]", "I started from the memory side (edited).")
    page.get_by_role("button", name="Save changes").click()
    page.wait_for_selector("text=I started from the memory side (edited).")
    assert page.locator(".comment-thread").first.get_by_text("edited", exact=True).count() == 1
    shot(page, "discussion")
    page.locator(".comment-thread").first.locator(".comment:not(.comment-reply)").get_by_role(
        "link", name="Delete"
    ).click()
    page.get_by_role("button", name="Delete comment").click()
    page.wait_for_selector(".comment-placeholder:text('[deleted]')")
    expect(page.get_by_text("batch size matters")).to_be_visible()  # the reply keeps its thread
    assert page.get_by_text("(edited)").count() == 0
    shot(page, "discussion-after-delete")

    # Search for a phrase from the open answer from the header box.
    page.fill("#nav-q", phrase)
    page.press("#nav-q", "Enter")
    page.wait_for_url(re.compile(r"/search/\?q="))
    hit = page.locator(".search-hit").filter(has_text=question.title).first
    expect(hit).to_be_visible()
    assert hit.locator("mark").count() >= 1
    shot(page, "search")

    assert problems == []
    context.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_pages_look_right(browser, live_server, signed_in_page, viewport):
    """Screenshots of each community page, and nothing overflowing sideways on a phone."""
    question, phrase = open_question_with_phrase()
    user = UserFactory()
    bookmark_services.bookmark_toggle(user=user, question=question)
    practice_services.approach_save(user=user, question=question, text="My plan", reveal=True)
    practice_services.review_rate(user=user, question=question, rating=3)
    top = discussion_services.comment_create(
        user=UserFactory(), question=question, body="A **first** thought with `code`."
    )
    discussion_services.comment_create(user=user, question=question, body="A reply.", parent=top)
    practice_services.difficulty_vote(user=user, question=question, felt="harder")
    name = "phone" if viewport is PHONE else "desktop"
    context = browser.new_context(viewport=viewport)
    page = signed_in_page(context.new_page(), user)
    problems = watch(page)
    for label, path in [
        ("question", question.get_absolute_url()),
        ("track", question.track.get_absolute_url()),
        ("home", "/"),
        ("curriculum", "/curriculum/"),
        ("concept", question.concepts.first().get_absolute_url()),
        ("dashboard", "/dashboard/"),
        ("bookmarks", "/bookmarks/"),
        ("review", "/review/"),
        ("search", f"/search/?q={phrase}"),
    ]:
        page.goto(live_server.url + path)
        shot(page, f"{label}-{name}")
        if label == "home":
            page.locator(".track-card").first.screenshot(
                path=str(SHOTS / f"part-track-card-{name}.png")
            )
        if label == "question":
            for part in ("page-header", "practice", "discussion"):
                page.locator(f".{part}").first.screenshot(
                    path=str(SHOTS / f"part-{part}-{name}.png")
                )
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"] + 1, (label, width)
    assert problems == []
    context.close()


def test_bookmark_toggle_without_javascript(browser, live_server, signed_in_page):
    q = QuestionFactory(track=TrackFactory())
    user = UserFactory()
    context = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    page = signed_in_page(context.new_page(), user)
    page.goto(live_server.url + q.track.get_absolute_url())
    page.locator(".question-row .bookmark-button").first.click()
    page.wait_for_selector(".question-row .bookmark-button[aria-pressed=true]")
    assert page.url.endswith(q.track.get_absolute_url())
    expect(page.get_by_text("Bookmarked.").first).to_be_visible()
    context.close()


def test_xss_corpus_runs_no_script_in_chromium(browser, live_server, signed_in_page):
    q = QuestionFactory(track=TrackFactory())
    author = UserFactory()
    tops = []
    # NUL is refused at the door (see test_xss); the rest of that payload still runs here.
    bodies = [p.replace("\u0000", "") for p in PAYLOADS]
    for body in bodies:
        tops.append(discussion_services.comment_create(user=author, question=q, body=body))
    for body in bodies[:10]:
        discussion_services.comment_create(user=author, question=q, body=body, parent=tops[0])
    viewer = UserFactory()
    context = browser.new_context(viewport=DESKTOP)
    page = signed_in_page(context.new_page(), viewer)
    problems = watch(page)
    page.add_init_script(
        "window.__xss = 0; for (const f of ['alert','confirm','prompt']) { const o = window[f]; window[f] = function () { window.__xss++; }; }"
    )
    for page_number in (1, 2, 3):
        page.goto(f"{live_server.url}{q.get_absolute_url()}?cpage={page_number}")
        # Poke every element a handler could hang on.
        for el in page.locator(".comment-body *").all()[:200]:
            try:
                el.hover(timeout=300)
                el.focus(timeout=300)
            except Exception:
                pass
        assert (
            page.locator(
                ".comment-body script, .comment-body svg, .comment-body iframe, .comment-body img, .comment-body object, .comment-body embed, .comment-body style"
            ).count()
            == 0
        )
        hrefs = page.eval_on_selector_all(
            ".comment-body a[href]", "els => els.map(e => e.getAttribute('href'))"
        )
        assert all(re.match(r"^(https?:|mailto:)", h) for h in hrefs), hrefs
        handlers = page.eval_on_selector_all(
            ".comment-body *",
            "els => els.flatMap(e => [...e.attributes].map(a => a.name)).filter(n => n.startsWith('on') || n === 'style' || n === 'src')",
        )
        assert handlers == []
        page.wait_for_load_state("load")  # every resource the page asked for has settled
        assert page.evaluate("window.__xss") == 0
    shot(page, "xss-corpus")
    assert problems == []
    context.close()
