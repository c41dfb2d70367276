"""The signed-in header's Practice menu opens inside the screen at every width: at 390 px it
opened from x = -105 (its right edge pinned to a trigger that wraps to the start of a row),
its items cut off and out of reach (the browser walkthrough of 2026-12-07)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (360, 390, 480, 640, 700, 768, 900, 1024, 1099, 1280)


def test_the_practice_menu_opens_inside_the_screen_at_every_width(browser, live_server):
    c = Client()
    c.force_login(UserFactory())
    cookie = c.cookies[settings.SESSION_COOKIE_NAME].value
    outside = []
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 800})
        context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
        )
        page = context.new_page()
        try:
            page.goto(live_server.url + "/calculators/")
            page.get_by_test_id("nav-practice").locator("summary").click()
            menu = page.get_by_test_id("nav-practice").locator("ul")
            box = menu.bounding_box()
            assert box is not None, width
            if box["x"] < 0 or box["x"] + box["width"] > width:
                outside.append((width, round(box["x"]), round(box["x"] + box["width"])))
                continue
            if width == 390:
                page.screenshot(path=str(settings.TEST_ARTIFACTS_DIR / "practice-menu-390.png"))
            menu.locator("a").last.click()  # the items can be followed
            page.wait_for_url("**/cram/**")
        finally:
            context.close()
    assert outside == []
