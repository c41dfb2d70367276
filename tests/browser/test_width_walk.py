"""Every page a learner can reach, at 360 px, with data in it: signed in with a finished
mock, a purchase, a cram plan, graded answers, reviews, bookmarks and a comment. No page
may be wider than the screen (the mock summary was 398 px, receipts 378 px); each page
is also checked in dark mode and at 1280 px, and captured in var/screenshots/width-*.png.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.utils import timezone

from tests.browser.test_graded_practice import sign_in
from tests.browser.test_try_first import question_with_calculator
from tests.community.practice_data import POINTS, SPEC
from tests.factories import QuestionFactory, TrackFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = settings.VAR_DIR / "screenshots"
WIDTH = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


def learner_with_everything():

    from inferview.access.models import Purchase
    from inferview.community.bookmarks import services as bookmarks
    from inferview.community.discussion import services as discussion
    from inferview.community.practice import cram, graded, mock, services

    learner = UserFactory(display_name="Ada Lovelace-Byron, Countess of Lovelace")
    track = TrackFactory(slug="walk", title="Open-weights models and serving engines")
    calc = QuestionFactory(
        track=track, number=1, kind="calculation", practice=SPEC, key_points=POINTS
    )
    others = [QuestionFactory(track=track, number=n, key_points=POINTS) for n in (2, 3, 4)]
    embedded = question_with_calculator()
    session: dict = {}
    graded.answer(user=learner, session=session, question=calc, value="1", unit="GB")
    services.review_rate(user=learner, question=others[0], rating=2)
    bookmarks.bookmark_toggle(user=learner, question=others[1])
    discussion.comment_create(
        user=learner, question=others[0], body="A long comment " + "with many words " * 30
    )
    m = mock.start(user=learner, size=3, track="walk")
    for item in m.items.order_by("position"):
        data = {"value": "12.5", "unit": "GB"} if item.question_id == calc.pk else {}
        mock.answer(
            user=learner,
            session=m,
            position=item.position,
            response="My answer " + "at some length " * 20,
            value=data.get("value"),
            unit=data.get("unit"),
            http_session=session,
        )
    mock.finish(user=learner, session=m, ticks={i.position: ["1"] for i in m.items.all()})
    cram.create(
        user=learner,
        interview_on=timezone.localdate() + dt.timedelta(days=4),
        track_slugs=["walk"],
    )
    purchase = Purchase.objects.create(
        user=learner,
        provider="stripe",
        checkout_session_id="cs_walk_1",
        currency="USD",
        amount=2500,
        status="paid",
        paid_at=timezone.now(),
    )
    return learner, {
        "home": "/",
        "start": "/start/",
        "curriculum": "/curriculum/",
        "track": track.get_absolute_url(),
        "question-graded": calc.get_absolute_url(),
        "question-calculator": embedded.get_absolute_url(),
        "numbers": f"/practice/questions/{calc.pk}/numbers/",
        "dashboard": "/dashboard/",
        "review": "/review/",
        "bookmarks": "/bookmarks/",
        "mock-list": "/practice/mock/",
        "mock-summary": f"/practice/mock/{m.pk}/",
        "cram": "/practice/cram/",
        "receipts": "/account/receipts/",
        "receipt": f"/account/receipts/{purchase.pk}/",
        "account": "/account/",
        "calculators": "/calculators/",
    }


def test_no_page_is_wider_than_a_360_px_screen(browser, live_server):
    learner, pages = learner_with_everything()
    too_wide = []
    for width, scheme in ((360, "light"), (360, "dark"), (1280, "light"), (1280, "dark")):
        context = browser.new_context(viewport={"width": width, "height": 780}, color_scheme=scheme)
        sign_in(context, live_server, learner)
        page = context.new_page()
        try:
            for name, path in pages.items():
                response = page.goto(live_server.url + path)
                assert response is not None and response.ok, (name, response and response.status)
                fold = page.locator("#answer-fold summary")
                if fold.count() and not page.locator("#answer-fold[open]").count():
                    fold.click()  # the folded answer's tables count too
                overflow = page.evaluate(WIDTH)
                if overflow > 0:
                    too_wide.append(f"{name} ({width}, {scheme}): {width + overflow}px")
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(
                    path=str(SHOTS / f"width-{name}-{width}-{scheme}.png"), full_page=True
                )
        finally:
            context.close()
    assert too_wide == []
