"""The URLconf as a list of concrete paths, and the objects those paths name, for the
URL-status table and the CSRF test (Zulip's PublicURLTest is the model: every route must
have an entry, so a new URL without an expectation fails)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver


def routes() -> list[str]:
    """Every route of the URLconf except Django admin's own, as its pattern string."""

    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                if str(p.pattern) == "admin/":
                    continue
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                yield prefix + str(p.pattern)

    return list(dict.fromkeys(walk(get_resolver().url_patterns)))


@dataclass
class World:
    """The rows the concrete paths point at: one of everything, owned by ``owner``."""

    owner: object
    track: object
    open_q: object
    account_q: object
    premium_q: object
    concept: object
    premium_concept: object
    guide: object
    comment: object
    purchase: object
    run: object
    mock: object
    cram_item: object
    premium_lesson: object = None


def build_world(owner) -> World:
    from calculators.models import CalculationRun
    from inferview.access.models import Purchase
    from tests.community.factories import CommentFactory
    from tests.factories import (
        ConceptFactory,
        GuideItemFactory,
        LessonFactory,
        QuestionFactory,
        TrackFactory,
    )

    track = TrackFactory(slug="sec-track")
    from inferview.community.models import CramItem, CramPlan, MockItem, MockSession
    from tests.community.practice_data import POINTS, SPEC

    qs = [
        QuestionFactory(
            track=track,
            number=n,
            slug=f"sec-q{n}",
            access=a,
            kind="calculation",
            practice=SPEC,
            key_points=POINTS,
        )
        for n, a in enumerate(["open", "account", "premium"], start=1)
    ]
    mock = MockSession.objects.create(user=owner)
    MockItem.objects.create(session=mock, position=1, question=qs[0])
    plan = CramPlan.objects.create(
        user=owner, interview_on=dt.date.today() + dt.timedelta(days=5), track_slugs=[track.slug]
    )
    cram_item = CramItem.objects.create(
        plan=plan, question=qs[0], day=dt.date.today(), reason="new"
    )
    item = GuideItemFactory(section__guide__slug="sec-guide")
    run = CalculationRun.objects.create(
        calculator="roofline", inputs={}, inputs_hash="0" * 64, requested_by=owner
    )
    return World(
        owner=owner,
        track=track,
        open_q=qs[0],
        account_q=qs[1],
        premium_q=qs[2],
        concept=ConceptFactory(slug="sec-concept"),
        premium_concept=ConceptFactory(slug="sec-premium-concept", access="premium"),
        guide=item.section.guide,
        comment=CommentFactory(question=qs[0], author=owner),
        purchase=Purchase.objects.create(
            user=owner,
            provider="local",
            checkout_session_id="cs_local_sec",
            currency="USD",
            amount=2500,
        ),
        run=run,
        mock=mock,
        cram_item=cram_item,
        premium_lesson=LessonFactory(
            slug="sec-lesson", part__slug="sec-part", number=2, access="premium"
        ),
    )
