"""Try first, numbers readable everywhere, a visible path (issue 29), in Chromium.

- The answer is folded for every reader until revealed (anonymous and signed in); its
  text is in the HTML all along; the question's calculators show their inputs, not their
  results, until the reveal or Calculate; a signed-in learner's reveal is recorded.
- Graded numbers: a wrong answer, a hint, a right second try; Show answer, then an answer
  that does not count (not on the dashboard).
- Charts in dark mode: every label's contrast against the card, computed in the browser
  from the computed colours, is 3:1 or more; the chart fits its box at 360 px.
- The header's Practice links, for a signed-in learner.

Screenshots of each page at 360 and 1280 px, light and dark, go to var/screenshots/.
"""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from playwright.sync_api import expect

from tests.browser.test_graded_practice import sign_in
from tests.community.practice_data import POINTS, SPEC
from tests.factories import QuestionFactory, TrackFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = settings.VAR_DIR / "screenshots"
ANSWER = "Decode reads every weight once per step, so memory bandwidth bounds it."
PROMPT = re.compile(r"does (.+?) need for (\d+) sequences of ([\d,]+) tokens")


def problems_on(page, name: str) -> list[str]:
    """Serious or critical axe findings, and sideways scrolling."""
    out = [
        f"{name}: axe {v['impact']} {v['id']}: {v['help']}"
        for v in Axe().run(page).response["violations"]
        if v["impact"] in {"serious", "critical"}
    ]
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    if overflow > 0:
        out.append(f"{name}: scrolls {overflow}px sideways")
    return out


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def question_with_calculator():
    from questions.models import CalculatorEmbed

    q = QuestionFactory(
        title="Why is decode memory bound?", answer=ANSWER, key_points=POINTS, access="open"
    )
    CalculatorEmbed.objects.create(
        question=q,
        calculator="decode_bound",
        preset="h100-sxm",
        inputs={"params_b": 70, "bytes_per_param": 2, "batch_size": [1, 16, 256]},
    )
    return q


@pytest.mark.parametrize(("width", "scheme"), [(360, "light"), (1280, "dark")])
def test_an_anonymous_reader_reveals_the_answer_and_calculates(browser, live_server, width, scheme):
    q = question_with_calculator()
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    problems: list[str] = []
    try:
        page.goto(live_server.url + q.get_absolute_url())
        answer = page.locator("#answer-text")
        assert ANSWER in page.content()  # in the HTML for search engines, folded
        expect(answer).to_be_hidden()
        embed = page.locator(".calc-embed").first
        expect(embed.locator(".meta")).to_contain_text("Assumptions")  # inputs in view
        expect(embed.locator(".calc-result")).to_be_hidden()  # results not
        problems += problems_on(page, f"try-first-folded-{width}-{scheme}")
        shot(page, f"try-first-folded-{width}-{scheme}")
        embed.get_by_role("button", name="Calculate").click()
        expect(embed.locator(".calc-result")).to_be_visible()
        page.get_by_text("Reveal the answer", exact=True).click()
        expect(answer).to_be_visible()
        expect(answer).to_contain_text(ANSWER)
        expect(page.locator("#answer-fold summary")).to_contain_text("Fold the answer")
        problems += problems_on(page, f"try-first-revealed-{width}-{scheme}")
        shot(page, f"try-first-revealed-{width}-{scheme}")
    finally:
        context.close()
    assert problems == []


def test_a_signed_in_learner_reveals_rates_and_the_reveal_is_kept(browser, live_server):
    from inferview.community.models import Progress

    q = question_with_calculator()
    learner = UserFactory()
    context = browser.new_context(
        viewport={"width": 360, "height": 900}, timezone_id="Asia/Kolkata"
    )
    sign_in(context, live_server, learner)
    page = context.new_page()
    problems: list[str] = []
    try:
        page.goto(live_server.url + q.get_absolute_url())
        expect(page.locator("#answer-text")).to_be_hidden()
        expect(page.locator(".calc-embed .calc-result").first).to_be_hidden()
        page.fill("#id_approach", "Bandwidth over bytes per token.")
        with page.expect_response(lambda r: "/practice/" in r.url and r.status == 200):
            page.get_by_text("Reveal the answer", exact=True).click()
        expect(page.locator("#answer-text")).to_be_visible()
        expect(page.get_by_role("button", name="Save and reveal the answer")).to_have_count(0)
        # the calculators' results come with the answer
        expect(page.locator(".calc-embed .calc-result").first).to_be_visible()
        progress = Progress.objects.get(user=learner, question=q)
        assert progress.revealed_at is not None
        assert progress.approach == "Bandwidth over bytes per token."
        # the rating is after the answer and says what each choice does
        good = page.locator("#recall-rating").get_by_role("button", name=re.compile("^Good"))
        expect(good).to_contain_text("marks it Confident")
        expect(good).to_contain_text("next review in")
        assert page.evaluate(
            "document.getElementById('answer-text').compareDocumentPosition("
            "document.getElementById('recall-rating')) & Node.DOCUMENT_POSITION_FOLLOWING"
        )
        problems += problems_on(page, "try-first-signed-in-360")
        shot(page, "try-first-signed-in-360")
        page.locator("section.answer").screenshot(path=str(SHOTS / "try-first-answer-360.png"))
        page.reload()
        expect(page.locator("#answer-text")).to_be_visible()  # stays revealed
        # rate: the next review is shown in the reader's time zone, in the page and the message
        good = page.locator("#recall-rating").get_by_role("button", name=re.compile("^Good"))
        good.click()
        expect(page.locator(".messages")).to_contain_text("IST.")
        due = page.locator("#recall-rating time[data-local-time]")
        # (Chromium names the zone by its older alias, Asia/Calcutta)
        expect(due).to_have_attribute("title", re.compile(r"Asia/(Kolkata|Calcutta)"))
        expect(due).to_contain_text("GMT+5:30")
    finally:
        context.close()
    assert problems == []


def kv_gb(prompt: str, factor: float = 1.0) -> str:
    from calculators.model_catalog import MODELS

    m = PROMPT.search(prompt)
    assert m, prompt
    model = next(p for p in MODELS.values() if p.name == m.group(1))
    tokens = int(m.group(3).replace(",", "")) * int(m.group(2))
    return f"{2 * model.layers * model.kv_heads * model.head_dim * 2 * tokens / 1e9 * factor:.6g}"


@pytest.mark.parametrize("width", [360, 1280])
def test_wrong_hint_right_then_show_answer_does_not_count(browser, live_server, width):
    q = QuestionFactory(kind="calculation", practice=SPEC, key_points=POINTS)
    context = browser.new_context(viewport={"width": width, "height": 900})
    sign_in(context, live_server, UserFactory())
    page = context.new_page()
    problems: list[str] = []
    try:
        page.goto(live_server.url + q.get_absolute_url())
        page.get_by_test_id("try-numbers").click()
        prompt = page.get_by_test_id("prompt").inner_text()
        page.get_by_label("Your answer").fill(kv_gb(prompt, factor=3.3))
        page.get_by_role("button", name="Check my answer").click()
        expect(page.get_by_test_id("grade")).to_contain_text("Not quite")
        expect(page.get_by_test_id("hint")).to_contain_text("factor of about 3.3")
        expect(page.get_by_test_id("expected")).to_have_count(0)
        expect(page.locator(".calc-worked-steps")).to_have_count(0)
        problems += problems_on(page, f"graded-hint-{width}")
        shot(page, f"graded-hint-{width}")
        page.get_by_label("Your answer").fill(kv_gb(prompt))
        page.get_by_role("button", name="Try again").click()
        expect(page.get_by_test_id("grade")).to_contain_text("Right")
        expect(page.locator(".calc-worked-steps")).to_be_visible()

        page.get_by_role("button", name="New numbers").click()
        prompt = page.get_by_test_id("prompt").inner_text()
        page.get_by_test_id("show-answer").click()
        expect(page.get_by_test_id("expected")).to_contain_text(kv_gb(prompt)[:3])
        page.get_by_label("Your answer").fill(kv_gb(prompt))
        page.get_by_role("button", name="Check my answer").click()
        expect(page.get_by_test_id("after-shown")).to_contain_text("does not count")
        shot(page, f"graded-after-shown-{width}")
        page.goto(live_server.url + "/dashboard/")
        # first tries: attempt 1 wrong, attempt 2 not counted (shown first)
        expect(page.get_by_test_id("first-try")).to_contain_text("0 of 1")
    finally:
        context.close()
    assert problems == []


CONTRAST = """(svg) => {
  function rgb(s) { const m = s.match(/[\\d.]+/g).map(Number); return m.slice(0, 3); }
  function lum(c) {
    const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }
  let el = svg, bg = null;
  while (el && !bg) {
    const c = getComputedStyle(el).backgroundColor;
    if (c && c !== "rgba(0, 0, 0, 0)" && c !== "transparent") bg = rgb(c);
    el = el.parentElement;
  }
  const lb = lum(bg);
  let worst = 99;
  for (const t of svg.querySelectorAll("text")) {
    const fill = getComputedStyle(t).fill;
    if (!fill.startsWith("rgb")) continue;
    const lf = lum(rgb(fill));
    const ratio = (Math.max(lf, lb) + 0.05) / (Math.min(lf, lb) + 0.05);
    worst = Math.min(worst, ratio);
  }
  const axis = svg.querySelector(".axes line");
  const axisRatio = axis ? (() => { const la = lum(rgb(getComputedStyle(axis).stroke)); return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05); })() : 99;
  return {worst, axisRatio, texts: svg.querySelectorAll("text").length, box: svg.getBoundingClientRect().width, parent: svg.parentElement.clientWidth};
}"""


@pytest.mark.parametrize(("width", "scheme"), [(360, "dark"), (1280, "dark"), (360, "light")])
def test_charts_follow_the_theme_and_fit_their_box(browser, live_server, width, scheme):
    q = question_with_calculator()
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    try:
        page.goto(live_server.url + q.get_absolute_url())
        page.get_by_text("Reveal the answer", exact=True).click()
        svg = page.locator(".calc-embed svg.calc-chart").first
        expect(svg).to_be_visible()
        measured = svg.evaluate(CONTRAST)
        assert measured["texts"] > 5
        assert measured["worst"] >= 3, measured  # every label, in the browser's colours
        assert measured["axisRatio"] >= 3, measured
        assert measured["box"] <= measured["parent"] + 1, measured  # scales, no 600 px
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0
        svg.scroll_into_view_if_needed()
        shot(page, f"chart-page-{width}-{scheme}")
        page.locator(".calc-embed .calc-figure").first.screenshot(
            path=str(SHOTS / f"chart-{width}-{scheme}.png")
        )
        page.locator(".calc-embed .calc-table-wrap").first.screenshot(
            path=str(SHOTS / f"calc-table-{width}-{scheme}.png")
        )
    finally:
        context.close()


def test_the_header_gives_a_learner_practice_links(browser, live_server):
    TrackFactory()
    context = browser.new_context(viewport={"width": 360, "height": 800})
    sign_in(context, live_server, UserFactory())
    page = context.new_page()
    try:
        page.goto(live_server.url + "/")
        menu = page.get_by_test_id("nav-practice")
        menu.get_by_text("Practice").click()
        for name, path in [
            ("Start here", "/start/"),
            ("Reviews due", "/review/"),
            ("Mock interview", "/practice/mock/"),
            ("Cram plan", "/practice/cram/"),
        ]:
            expect(menu.get_by_role("link", name=name)).to_have_attribute("href", path)
        shot(page, "header-practice-360")
        problems = problems_on(page, "header-practice-360")
        menu.get_by_role("link", name="Mock interview").click()
        expect(page).to_have_url(re.compile("/practice/mock/$"))
    finally:
        context.close()
    assert problems == []


VALUE_IN_VIEW = """(table) => {
  const box = table.getBoundingClientRect();
  const cell = table.querySelector("tbody td");
  const c = cell.getBoundingClientRect();
  return {cellRight: c.right, tableRight: box.left + table.clientWidth, text: cell.innerText};
}"""


@pytest.mark.parametrize("width", [360, 1280])
def test_a_calc_table_in_an_answer_keeps_its_value_column_in_view(browser, live_server, width):
    q = QuestionFactory(
        access="open",
        answer="Decode at batch 1:\n\n"
        "{{calc decode_bound params_b=8 bytes_per_param=2 bandwidth_tbs=3.35}}",
    )
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(live_server.url + q.get_absolute_url())
        page.get_by_text("Reveal the answer", exact=True).click()
        tables = page.locator("#answer-text table.calc-table")
        assert tables.count() >= 1
        for i in range(tables.count()):
            seen = tables.nth(i).evaluate(VALUE_IN_VIEW)
            assert seen["cellRight"] <= seen["tableRight"] + 1, seen  # no scrolling needed
        tables.first.screenshot(path=str(SHOTS / f"answer-calc-table-{width}.png"))
    finally:
        context.close()
