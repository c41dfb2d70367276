"""The learner's pages at a phone's 360 px and a desktop's 1280 px, in Chromium.

For each of home, curriculum, a question (open; locked; signed in), a calculator with a
result, the dashboard, a guide and search: the page does not scroll sideways, axe (the
axe-core bundled with axe-playwright-python, so no network) finds nothing serious or
critical (nothing at all on search), and a full-page screenshot goes to
``var/screenshots/<page>-<width>.png`` for CI to keep. Another test records every request
those pages and the API docs make and finds none leaving the site's origin; the last one
checks reading comfort: the column, scrolling boxes, dark mode, shortcuts (r reveals the
answer) and print (on a question and on a guide).

The data is a small site built with the factories (a second or two), not the starter
content (half a minute to import). One browser (session fixture) and one live server.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from django.utils import timezone
from playwright.sync_api import expect

from tests.community.factories import BookmarkFactory, CommentFactory, ProgressFactory
from tests.factories import (
    ConceptFactory,
    GuideFactory,
    GuideItemFactory,
    GuideSectionFactory,
    QuestionFactory,
    TrackFactory,
    UserFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NARROW = {"width": 360, "height": 780}
WIDE = {"width": 1280, "height": 900}
SHOTS = settings.VAR_DIR / "screenshots"
BLOCKING = {"serious", "critical"}
#: Search had a moderate axe finding (issue 15): on its pages every impact counts.
EVERY_IMPACT = {"minor", "moderate", "serious", "critical"}

WIDE_TABLE = "\n".join(
    [
        "| " + " | ".join(f"column {i} heading" for i in range(9)) + " |",
        "|" + "---|" * 9,
        "| " + " | ".join(f"{i * 1000.5:,.1f} GB/s" for i in range(9)) + " |",
    ]
)
LONG_CODE = (
    "```python\nbytes_per_token = 2 * layers * kv_heads * head_dim * bytes_per_value  # "
    + ("a long comment that runs well past the reading column " * 3)
    + "\n```"
)
ANSWER = (
    "Decode reads every weight once per step, so memory bandwidth bounds it.\n\n"
    f"{WIDE_TABLE}\n\n{LONG_CODE}\n\n"
    "Sparsity halves the multiply-adds but not the bytes read, unless the format is packed."
)

TRACKS = [
    ("serving", "Inference and serving"),
    ("hardware", "GPU and accelerator architecture"),
    ("kernels", "Kernels and compilers"),
    ("systems", "AI systems design"),
    ("training", "Distributed training"),
    ("serving", "Open-weights models and serving engines"),
]


def build_site(monkeypatch) -> dict:
    """Six tracks of six questions (open, open, account, account, premium, premium), a
    concept of each access level, a guide, and a free learner with progress, bookmarks,
    a comment and a review due."""
    concepts = [
        ConceptFactory(title="Memory bandwidth", category="hardware", access="open"),
        ConceptFactory(title="KV cache", category="serving", access="account", level="intermediate"),
        ConceptFactory(title="Structured sparsity", category="kernels", access="premium", level="advanced"),
    ]  # fmt: skip
    levels = ["open", "open", "account", "account", "premium", "premium"]
    tracks = []
    for order, (category, title) in enumerate(TRACKS):
        track = TrackFactory(
            title=title, category=category, order=order, summary=f"{title}: the questions."
        )
        for n, access in enumerate(levels, 1):
            q = QuestionFactory(
                track=track,
                number=n,
                access=access,
                answer=ANSWER,
                title=f"Half the weights are zero. Why did serving not get faster? ({title} {n})",
                published_at=timezone.now() - dt.timedelta(days=n + order),
            )
            q.concepts.set(concepts)
        tracks.append(track)
    first = tracks[0].questions.order_by("number")
    guide = GuideFactory(
        title="The week before the interview", summary="Short answers, grouped by topic."
    )
    section = GuideSectionFactory(guide=guide, title="Foundations: latency metrics")
    section.concepts.set(concepts[:2])
    for i in range(3):
        GuideItemFactory(
            section=section,
            order=i,
            kind="calculation",
            title=f"Time per output token {i}",
            body=ANSWER,
        )
    learner = UserFactory(display_name="Ada Lovelace")
    ProgressFactory(user=learner, question=first[0], status="confident")
    ProgressFactory(user=learner, question=first[1], status="attempted")
    BookmarkFactory(user=learner, question=first[2])
    CommentFactory(author=learner, question=first[0], body="I started from **bandwidth**.")
    from inferview.community.models import ReviewCard

    ReviewCard.objects.create(
        user=learner, question=first[1], due=timezone.now() - dt.timedelta(hours=1)
    )
    return {
        "learner": learner,
        "open": first[0].get_absolute_url(),
        "second": first[1].get_absolute_url(),
        "locked": first[4].get_absolute_url(),  # premium: the paywall for everyone here
        "account": first[2].get_absolute_url(),  # readable once signed in
        "guide": guide.get_absolute_url(),
        "calculator": calculator_run_url(monkeypatch),
    }  # fmt: skip


def calculator_run_url(monkeypatch) -> str:
    """A finished decode_bound run, computed in this process (no worker needed)."""
    from calculators import services

    monkeypatch.setattr("calculators.services._publish", lambda run_id: True)
    run, _ = services.run_request(
        calculator="decode_bound",
        raw_inputs={"params_b": 70, "bytes_per_param": 2, "batch_size": [1, 16, 256]},
        preset="h100-sxm",
    )
    services.execute_run(run_id=str(run.pk))
    return f"/calculators/decode_bound/runs/{run.pk}/"


def pages(site: dict) -> list[tuple[str, str, bool]]:
    """(name, path, signed in) for every page the acceptance names."""
    return [
        ("home", "/", False),
        ("curriculum", "/curriculum/", False),
        ("question-open", site["open"], False),
        ("question-locked", site["locked"], False),
        ("question-signed-in", site["account"], True),
        ("calculator-result", site["calculator"], False),
        ("dashboard", "/dashboard/", True),
        ("guide", site["guide"], False),
        ("search", "/search/?q=structured", False),
    ]


def sign_in(context, live_server, user) -> None:
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": live_server.url}]
    )


@pytest.mark.parametrize("viewport", [NARROW, WIDE], ids=["360px", "1280px"])
def test_pages_fit_the_width_pass_axe_and_are_captured(browser, live_server, viewport, monkeypatch):
    site = build_site(monkeypatch)
    SHOTS.mkdir(parents=True, exist_ok=True)
    axe = Axe()
    anonymous = browser.new_context(viewport=viewport)
    signed_in = browser.new_context(viewport=viewport)
    sign_in(signed_in, live_server, site["learner"])
    problems: list[str] = []
    errors: list[str] = []
    current = {"name": ""}
    try:
        tabs = {False: anonymous.new_page(), True: signed_in.new_page()}
        for tab in tabs.values():
            tab.on("pageerror", lambda exc: errors.append(f"{current['name']}: {exc}"))
        for name, path, as_learner in pages(site):
            current["name"] = name
            page = tabs[as_learner]
            response = page.goto(live_server.url + path)
            assert response is not None and response.status == 200, (name, path)
            expect(page.locator("main h1")).to_be_visible()
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            if overflow > 0:
                problems.append(f"{name}: the page scrolls {overflow}px sideways")
            results = axe.run(page)
            for v in results.response["violations"]:
                if v["impact"] in (EVERY_IMPACT if name == "search" else BLOCKING):
                    targets = [n["target"] for n in v["nodes"]][:3]
                    problems.append(f"{name}: axe {v['impact']} {v['id']}: {v['help']} {targets}")
            width = viewport["width"]
            page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    finally:
        anonymous.close()
        signed_in.close()
    assert problems == []
    assert errors == []


def test_no_request_leaves_the_origin(browser, live_server, monkeypatch):
    site = build_site(monkeypatch)
    origin = urlsplit(live_server.url)
    context = browser.new_context(viewport=WIDE)
    sign_in(context, live_server, site["learner"])
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    paths = [path for _, path, _ in pages(site)] + ["/api/docs/", "/api/redoc/"]
    try:
        for path in paths:
            page.goto(live_server.url + path, wait_until="networkidle")
        expect(page.locator("redoc, #redoc, .redoc-wrap").first).to_be_attached()
    finally:
        context.close()
    assert len(requests) >= len(paths)
    foreign = [
        url
        for url in requests
        if not url.startswith(("data:", "blob:"))
        and (urlsplit(url).scheme, urlsplit(url).netloc) != (origin.scheme, origin.netloc)
    ]
    assert foreign == []


AVERAGE_CHARS_PER_LINE = """(selector) => {
  const el = document.querySelector(selector);
  const ctx = document.createElement("canvas").getContext("2d");
  ctx.font = getComputedStyle(el).font;
  const sample = "Decode reads every weight once per step, so memory bandwidth bounds it. ";
  const inner = el.clientWidth - parseFloat(getComputedStyle(el).paddingLeft) - parseFloat(getComputedStyle(el).paddingRight);
  return inner / (ctx.measureText(sample).width / sample.length);
}"""
BACKGROUND = "getComputedStyle(document.body).backgroundColor"


def test_reading_comfort_column_scrolling_shortcuts_dark_mode_and_print(
    browser, live_server, monkeypatch
):
    from django.contrib.auth import get_user_model

    site = build_site(monkeypatch)
    context = browser.new_context(viewport=WIDE, color_scheme="dark")
    page = context.new_page()
    try:
        page.goto(live_server.url + site["open"])
        # 65-75 characters of running text a line
        assert 65 <= page.evaluate(AVERAGE_CHARS_PER_LINE, "#answer-text p") <= 75
        # the wide table scrolls inside its box, which the keyboard can reach
        table = page.locator("#answer-text table")
        expect(table).to_have_attribute("tabindex", "0")
        assert table.evaluate("t => t.scrollWidth > t.clientWidth")
        # the system asks for dark, so the page is dark; the toggle switches and is remembered
        assert page.evaluate(BACKGROUND) == "rgb(15, 20, 25)"
        toggle = page.get_by_role("button", name="Dark mode")
        expect(toggle).to_have_attribute("aria-pressed", "true")
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "false")
        assert page.evaluate(BACKGROUND) == "rgb(247, 248, 250)"
        page.reload()
        expect(page.get_by_role("button", name="Dark mode")).to_have_attribute(
            "aria-pressed", "false"
        )
        assert page.evaluate(BACKGROUND) == "rgb(247, 248, 250)"
        # shortcuts: "?" lists them, j and k walk the track
        page.keyboard.press("?")
        dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
        expect(dialog).to_be_visible()
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        page.keyboard.press("j")
        expect(page).to_have_url(live_server.url + site["second"])
        page.keyboard.press("k")
        expect(page).to_have_url(live_server.url + site["open"])
        # print: the answer without the site around it
        page.emulate_media(media="print")
        expect(page.locator(".site-header")).to_be_hidden()
        expect(page.locator(".discussion")).to_be_hidden()
        expect(page.locator("#answer-text")).to_be_visible()
        page.emulate_media(media="screen")
        # dark mode passes axe's contrast rule too
        page.evaluate("localStorage.removeItem('inferview-theme')")
        page.reload()
        assert page.evaluate(BACKGROUND) == "rgb(15, 20, 25)"
        contrast = Axe().run(page, options={"runOnly": ["color-contrast"]})
        assert [v["nodes"][0]["target"] for v in contrast.response["violations"]] == []
        # r opens the folded answer for an anonymous reader too (try first)
        expect(page.locator("#answer-text")).to_be_hidden()
        page.keyboard.press("r")
        expect(page.locator("#answer-text")).to_be_visible()
        expect(page.locator("#answer-fold summary")).to_be_focused()
        # print on a guide: its items without the site's chrome around them
        page.goto(live_server.url + site["guide"])
        expect(page.locator(".site-header")).to_be_visible()
        page.emulate_media(media="print")
        for chrome in (".site-header", ".site-footer", ".theme-toggle"):
            expect(page.locator(chrome)).to_be_hidden()
        expect(page.locator("main h1")).to_be_visible()
        expect(page.locator(".guide-item")).to_have_count(3)
        for item in page.locator(".guide-item").all():
            expect(item).to_be_visible()
        page.emulate_media(media="screen")
        expect(page.locator(".site-header")).to_be_visible()
    finally:
        context.close()

    # signed in: the toggle saves the choice on the profile, and b bookmarks
    learner = site["learner"]
    context = browser.new_context(viewport=WIDE, color_scheme="light")
    sign_in(context, live_server, learner)
    page = context.new_page()
    try:
        page.goto(live_server.url + site["account"])
        with page.expect_response("**/account/theme/") as saved:
            page.get_by_role("button", name="Dark mode").click()
        assert saved.value.ok
        assert get_user_model().objects.get(pk=learner.pk).theme == "dark"
        bookmark = page.locator(".question-tools .bookmark-button")
        expect(bookmark).to_have_attribute("aria-pressed", "true")  # bookmarked in build_site
        with page.expect_response("**/bookmarks/**") as toggled:
            page.keyboard.press("b")
        assert toggled.value.ok
        expect(bookmark).to_have_attribute("aria-pressed", "false")
        # r reveals: the answer is hidden until the learner has tried, and r saves and shows it
        answer = page.locator("#answer-text")
        expect(answer).to_be_hidden()
        with page.expect_response("**/practice/") as revealed:  # recorded, no reload
            page.keyboard.press("r")
        assert revealed.value.ok
        expect(answer).to_be_visible()
        expect(answer).to_contain_text("memory bandwidth bounds it")
        expect(page.get_by_role("group", name="How well did you recall it?")).to_be_visible()
    finally:
        context.close()
