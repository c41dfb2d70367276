"""The search page in Chromium at a phone's 360 px and a desktop's 1280 px: results with
kinds and pages, a kind filter, a corrected query, "Did you mean" and the empty state. The
page does not scroll sideways, axe finds nothing (any impact, as on the learner pages'
search), and a screenshot of each goes to ``var/screenshots/search-<state>-<width>.png``.
"""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from playwright.sync_api import expect

from tests.factories import (
    ConceptFactory,
    GuideFactory,
    GuideItemFactory,
    GuideSectionFactory,
    LessonFactory,
    QuestionFactory,
    TrackFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = settings.VAR_DIR / "screenshots"


def build_site() -> None:
    serving = TrackFactory(slug="inference-serving", title="Inference serving")
    ConceptFactory(title="The KV cache", summary="Keys and values kept per token.", access="open")
    ConceptFactory(title="KV cache quantization", summary="Fewer bits per cached value.")
    for n in range(1, 24):
        QuestionFactory(
            track=serving,
            number=n,
            title=f"How big is the KV cache for case {n}?",
            summary="Size the cache from layers, heads and context.",
            access=("open", "account", "premium")[n % 3],
            answer="Two tensors per layer: keys and values. SECRET premium words.",
        )
    QuestionFactory(
        track=serving, number=30, title="Drafts", access="open", answer="A speculatve draft."
    )
    QuestionFactory(track=serving, number=31, title="Speculative decoding acceptance")
    guide = GuideFactory(title="Interview week")
    GuideItemFactory(
        section=GuideSectionFactory(guide=guide, title="Memory"),
        title="What is KV cache offloading, and when does it pay?",
        body="Move cold blocks to host memory.",
    )
    LessonFactory(title="Paged KV cache and prefix caching", summary="Blocks of the cache.")


STATES = [
    ("results", "/search/?q=kv+cache", "1–20 of"),
    ("filtered", "/search/?q=kv+cache&type=concept", "2 results for"),
    ("corrected", "/search/?q=kv+cahce", "Showing results for"),
    ("did-you-mean", "/search/?q=speculatve", "Did you mean"),
    ("empty", "/search/?q=zzqxv+wombat", "Nothing matched"),
]


@pytest.mark.parametrize("width", [360, 1280])
def test_search_states_fit_pass_axe_and_are_captured(browser, live_server, width):
    build_site()
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    axe = Axe()
    problems = []
    try:
        for name, path, text in STATES:
            response = page.goto(live_server.url + path)
            assert response is not None and response.status == 200, name
            expect(page.locator("main")).to_contain_text(text)
            assert "SECRET" not in page.content(), name
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            if overflow > 0:
                problems.append(f"{name}: scrolls {overflow}px sideways")
            for v in axe.run(page).response["violations"]:
                problems.append(f"{name}: axe {v['impact']} {v['id']}: {v['help']}")
            page.screenshot(path=str(SHOTS / f"search-{name}-{width}.png"), full_page=True)
        # the kind links and the pages work as links, without JavaScript
        page.goto(live_server.url + "/search/?q=kv+cache")
        page.get_by_role("navigation", name="Result pages").get_by_role("link", name="Next").click()
        expect(page.locator("main")).to_contain_text("21–")
        page.get_by_role("navigation", name="Kind of result").get_by_role(
            "link", name="Concepts"
        ).click()
        expect(page.locator(".search-hit")).to_have_count(2)
    finally:
        context.close()
    assert problems == []
