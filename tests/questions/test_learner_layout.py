"""The question page, concept cards and guides as a learner reads them (issue 15's bugs)."""

import re

import pytest

from tests.factories import (
    ConceptFactory,
    GuideItemFactory,
    GuideSectionFactory,
    QuestionFactory,
    TrackFactory,
)

pytestmark = pytest.mark.django_db


def _main(html: str) -> str:
    return html[html.index("<main") : html.index("</main>")]


def test_question_page_names_track_and_number_once(client):
    track = TrackFactory(title="Kernels and compilers")
    q = QuestionFactory(track=track, number=7, title="Why did the fused kernel get slower?")
    html = _main(client.get(q.get_absolute_url()).content.decode())
    header = html[: html.index("</header>")]
    # "Kernels and compilers / 7" once, in the breadcrumb; the title is the question alone.
    assert header.count("Kernels and compilers") == 1
    assert "Question 7</li>" not in header and "Curriculum</a>" not in header
    crumb = re.search(
        r'<nav class="breadcrumbs[^"]*" aria-label="Breadcrumb">(.*?)</nav>', header, re.S
    )
    assert crumb and re.sub(r"<[^>]+>", " ", crumb.group(1)).split() == [
        "Kernels", "and", "compilers", "Question", "7"
    ]  # fmt: skip
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", header, re.S).group(1)
    assert h1.strip() == "Why did the fused kernel get slower?"


def test_discussion_heading_counts_with_a_dot_and_invites_the_first_approach(client):
    q = QuestionFactory()
    html = client.get(q.get_absolute_url()).content.decode()
    assert 'Discussion <span class="count">· 0</span>' in html
    assert "Be the first to share your approach" in html


def test_question_page_links_previous_and_next_for_shortcuts(client):
    track = TrackFactory()
    first, second, third = (QuestionFactory(track=track, number=n) for n in (1, 2, 3))
    html = client.get(second.get_absolute_url()).content.decode()
    assert f'<link rel="next" href="{third.get_absolute_url()}">' in html
    assert f'<link rel="prev" href="{first.get_absolute_url()}">' in html
    # the shortcut list is on the page, behind "?"
    assert 'id="shortcuts-dialog"' in html and "<kbd>?</kbd>" in html
    first_html = client.get(first.get_absolute_url()).content.decode()
    assert 'rel="prev"' not in first_html


@pytest.mark.parametrize(
    ("access", "signed_in", "label", "state"),
    [
        ("account", False, "Sign in", "(locked for you)"),
        ("account", True, "Sign in", "(open to you)"),
        ("premium", False, "Premium", "(locked for you)"),
        ("premium", True, "Premium", "(locked for you)"),
    ],
)
def test_concept_card_shows_track_label_and_lock_for_this_viewer(
    client_for, free_user, access, signed_in, label, state
):
    concept = ConceptFactory(category="kernels", access=access, level="advanced")
    q = QuestionFactory(access="open")
    q.concepts.add(concept)
    html = client_for(free_user if signed_in else None).get(q.get_absolute_url()).content.decode()
    card = html.split('class="concept-card"', 1)[1].split("</li>", 1)[0]
    assert '<span class="concept-card-track">Kernels and compilers</span>' in card
    assert 'class="icon icon-kernels"' in card and "Advanced" in card
    badge = re.search(r'<span class="badge badge-lock[^"]*"[^>]*>(.*?)</span></span>', card, re.S)
    assert badge, card
    text = re.sub(r"<[^>]+>", "", badge.group(1))
    assert text == f"{label} {state}"
    assert ("lock-icon" in badge.group(1)) == (state == "(locked for you)")


def test_guide_shows_summary_and_links_every_concept_it_covers(client):
    a, b, c = (ConceptFactory(title=t) for t in ("Occupancy", "Roofline", "Draft"))
    c.published = False
    c.save()
    s1 = GuideSectionFactory(title="Foundations")
    s1.concepts.set([a, c])
    s2 = GuideSectionFactory(guide=s1.guide, title="Kernels", order=1)
    s2.concepts.set([a, b])
    GuideItemFactory(section=s1)
    GuideItemFactory(section=s2)
    guide = s1.guide
    guide.summary = "Short answers for the week before."
    guide.save()
    html = _main(client.get(guide.get_absolute_url()).content.decode())
    header = html[: html.index("</header>")]
    assert '<p class="lead">Short answers for the week before.</p>' in header
    covered = header[header.index("Concepts this guide covers") :]
    links = re.findall(r'<a href="([^"]+)">([^<]+)</a>', covered)
    assert links == [(a.get_absolute_url(), "Occupancy"), (b.get_absolute_url(), "Roofline")]
    assert "2 short answers" in header


def test_home_lists_free_calculators_and_only_questions_this_visitor_can_read(
    client_for, free_user
):
    track = TrackFactory(title="Inference and serving")
    open_q = QuestionFactory(track=track, number=1, access="open", title="Open one")
    account_q = QuestionFactory(track=track, number=2, access="account", title="Account one")
    premium_q = QuestionFactory(track=track, number=3, access="premium", title="Premium one")
    anonymous = client_for(None).get("/").content.decode()
    latest = anonymous[anonymous.index('id="latest-heading"') :]
    assert open_q.title in latest
    assert account_q.title not in latest and premium_q.title not in latest
    signed_in = client_for(free_user).get("/").content.decode()
    latest = signed_in[signed_in.index('id="latest-heading"') :]
    assert open_q.title in latest and account_q.title in latest
    assert premium_q.title not in latest
    # the free calculators, linked, with the count of all of them
    assert 'id="calculators-heading">Free calculators' in anonymous
    assert 'href="/calculators/decode_bound/"' in anonymous
    from calculators.specs import SPECS

    assert f"All {len(SPECS)} calculators" in anonymous
    # one sentence says what the site is
    assert anonymous.count('<p class="lead">') == 1


def test_curriculum_filters_by_track_level_and_access(client):
    a, b = TrackFactory(title="Track A", slug="a"), TrackFactory(title="Track B", slug="b")
    basic = ConceptFactory(title="Basic", level="foundations", access="open")
    deep = ConceptFactory(title="Deep", level="advanced", access="premium")
    other = ConceptFactory(title="Other", level="advanced", access="open")
    QuestionFactory(track=a).concepts.set([basic, deep])
    QuestionFactory(track=a).concepts.set([basic])
    QuestionFactory(track=b).concepts.set([other])

    def shown(query: str) -> tuple[list[str], list[str]]:
        html = client.get(f"/curriculum/{query}").content.decode()
        assert 'aria-label="Filter the curriculum"' in html
        tracks = re.findall(r'<h4><a href="[^"]+">([^<]+)</a></h4>', html)
        concepts = re.findall(r'class="concept-card-title" href="[^"]+">([^<]+)</a>', html)
        return tracks, concepts

    assert shown("") == (["Track A", "Track B"], ["Basic", "Deep", "Other"])
    assert shown("?track=a") == (["Track A"], ["Basic", "Deep"])
    assert shown("?level=advanced") == (["Track A", "Track B"], ["Deep", "Other"])
    assert shown("?access=premium") == (["Track A", "Track B"], ["Deep"])
    assert shown("?track=a&level=advanced&access=open") == (["Track A"], [])
    # an unknown value is ignored, never a 500
    assert shown("?level=wizard&access=%00&track=nope")[1] == ["Basic", "Deep", "Other"]
    html = client.get("/curriculum/?track=a&level=advanced&access=open").content.decode()
    assert "Showing 1 track and 0 concepts." in html
    assert '<option value="a" selected>Track A</option>' in html


def test_dashboard_suggests_reviews_and_next_unread_per_track_with_a_streak_and_chart(
    client_for, free_user
):
    import datetime as dt

    from django.utils import timezone

    from inferview.community.models import Attempt, ReviewCard
    from tests.community.factories import ProgressFactory

    a, b = TrackFactory(title="Track A"), TrackFactory(title="Track B")
    a1, a2 = QuestionFactory(track=a, number=1), QuestionFactory(track=a, number=2)
    b1 = QuestionFactory(track=b, number=1, title="First of B")
    QuestionFactory(track=b, number=2, access="premium")
    ProgressFactory(user=free_user, question=a1, status="confident")
    now = timezone.now()
    ReviewCard.objects.create(user=free_user, question=a1, due=now - dt.timedelta(hours=1))
    for back in (0, 1, 2):
        Attempt.objects.create(
            user=free_user,
            question=a1,
            rating=3,
            reviewed_at=now - dt.timedelta(days=back),
            due_after=now,
        )
    html = client_for(free_user).get("/dashboard/").content.decode()
    nxt = html[html.index('id="dash-next"') : html.index('id="dash-streak"')]
    assert "Review 1 question due now" in nxt
    assert f'href="{a2.get_absolute_url()}"' in nxt and f'href="{b1.get_absolute_url()}"' in nxt
    assert f'href="{a1.get_absolute_url()}"' not in nxt  # already practised
    assert '<p class="streak">3 <small>days in a row</small></p>' in html
    chart = html[html.index('<svg class="chart track-chart"') : html.index("</svg>")]
    assert '<title id="chart-title">Progress by track</title>' in chart
    assert 'class="bar-confident" x="0" y="21" width="50%"' in chart  # 1 of Track A's 2
    assert "Track B: 0 confident, 0 attempted of 2." in chart
