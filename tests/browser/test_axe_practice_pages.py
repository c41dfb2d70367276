"""axe (serious and critical) on the pages issue 29 changed that had no axe run: Start
here, a track page with its filters applied, receipts and a receipt, the cram plan, the
sign-up page with its public name, and the account page with its time zone; at 360 and
1280 px, light and dark. Screenshots in var/screenshots/axe-*.png."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings

from tests.browser.test_graded_practice import sign_in
from tests.browser.test_width_walk import learner_with_everything

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = settings.VAR_DIR / "screenshots"


def findings(page, name: str) -> list[str]:
    out = []
    for v in Axe().run(page).response["violations"]:
        if v["impact"] in {"serious", "critical"}:
            targets = [n["target"] for n in v["nodes"]][:3]
            out.append(f"{name}: axe {v['impact']} {v['id']}: {v['help']} {targets}")
    return out


def test_issue_29_pages_have_no_serious_axe_finding(browser, live_server):
    learner, pages = learner_with_everything()
    signed_in = {
        "start": pages["start"],
        "track-filtered": pages["track"] + "?difficulty=hard&kind=calculation&progress=attempted",
        "receipts": pages["receipts"],
        "receipt": pages["receipt"],
        "cram": pages["cram"],
        "account": pages["account"],
    }
    problems: list[str] = []
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, scheme in ((360, "light"), (360, "dark"), (1280, "light"), (1280, "dark")):
        context = browser.new_context(viewport={"width": width, "height": 780}, color_scheme=scheme)
        try:
            page = context.new_page()
            page.goto(live_server.url + "/accounts/signup/")
            problems += findings(page, f"signup ({width}, {scheme})")
            page.screenshot(path=str(SHOTS / f"axe-signup-{width}-{scheme}.png"), full_page=True)
            sign_in(context, live_server, learner)
            for name, path in signed_in.items():
                response = page.goto(live_server.url + path)
                assert response is not None and response.ok, (name, response and response.status)
                problems += findings(page, f"{name} ({width}, {scheme})")
                page.screenshot(
                    path=str(SHOTS / f"axe-{name}-{width}-{scheme}.png"), full_page=True
                )
        finally:
            context.close()
    assert problems == []
