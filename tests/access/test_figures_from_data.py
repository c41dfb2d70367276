"""Every tier figure a learner reads (premium page, sign-up page, paywall) is counted from
the published questions, so changing the data changes the words."""

import re

import pytest

from tests.factories import QuestionFactory, TrackFactory


def build_track(open_: int, account: int, premium: int):
    track = TrackFactory()
    levels = ["open"] * open_ + ["account"] * account + ["premium"] * premium
    questions = [QuestionFactory(track=track, number=i, access=a) for i, a in enumerate(levels, 1)]
    return track, questions


@pytest.mark.django_db
def test_premium_and_signup_pages_count_answers_per_track(client):
    build_track(10, 10, 5)
    build_track(10, 10, 8)
    premium = client.get("/premium/").content.decode()
    assert "Open answers (10 per track)" in premium
    assert "Open and account answers (20 per track)" in premium
    assert "(25–28 answers per track)" in premium
    signup = client.get("/accounts/signup/").content.decode()
    assert "20 per track instead of 10" in signup


@pytest.mark.django_db
def test_figures_follow_a_change_in_the_data(client):
    _, questions = build_track(10, 10, 5)
    questions[0].access = "premium"
    questions[0].save()
    premium = client.get("/premium/").content.decode()
    assert "Open answers (9 per track)" in premium
    assert "Open and account answers (19 per track)" in premium


@pytest.mark.django_db
def test_paywall_offers_the_counted_answers_and_remaining_n(client):
    _, first = build_track(10, 10, 5)
    build_track(10, 10, 8)
    locked = first[-1]  # premium
    page = client.get(locked.get_absolute_url()).content.decode()
    assert "<strong>20 answers in this track instead of 10</strong>" in page
    # 25 + 28 = 53 answers; an anonymous visitor reads the 20 open ones, so 33 remain.
    assert re.search(r'data-remaining="33"', page)
