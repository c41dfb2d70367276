"""The shipped content imported into an empty database serves every sitemap page, and no
page shows a calculator directive error."""

import re

import pytest
from django.conf import settings

from questions.content_io import import_content
from questions.models import Concept, Guide, GuideItem, Question, Track


@pytest.mark.once  # content correctness, the same on either database: CI runs it once
@pytest.mark.django_db
def test_import_serves_every_sitemap_page_without_directive_errors(client, staff_user):
    report = import_content(settings.CONTENT_DIR)
    assert not report.conflicts
    assert Question.objects.count() >= 300 and Track.objects.count() >= 6
    for track in Track.objects.all():
        levels = dict(
            (level, track.questions.filter(access=level).count())
            for level in ("open", "account", "premium")
        )
        assert levels["open"] == levels["account"] == 10 and levels["premium"] >= 30, track.slug
    assert Concept.objects.count() >= 90
    assert Guide.objects.count() >= 4 and GuideItem.objects.count() >= 200

    sitemap = client.get("/sitemap.xml").content.decode()
    paths = [re.sub(r"^https?://[^/]+", "", u) for u in re.findall(r"<loc>([^<]+)</loc>", sitemap)]
    assert len(paths) >= 300 + 90 + 4 + 6
    client.force_login(staff_user)  # staff read every answer, so every directive renders
    failures, errors = [], []
    for path in paths:
        response = client.get(path)
        if response.status_code != 200:
            failures.append((path, response.status_code))
        elif b"calc-error" in response.content:
            errors.append(path)
    assert failures == [] and errors == []
