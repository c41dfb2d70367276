import pytest
from django.urls import reverse

from tests.factories import ConceptFactory, GuideItemFactory, GuideSectionFactory, QuestionFactory

pytestmark = pytest.mark.django_db


def test_home_curriculum_track_question_concept_render(client, make_track):
    track = make_track(3)
    q = track.questions.get(number=1)
    concept = q.concepts.first()
    for url in [
        "/",
        "/curriculum/",
        track.get_absolute_url(),
        q.get_absolute_url(),
        concept.get_absolute_url(),
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert b'rel="canonical"' in response.content


def test_question_page_sections_in_order(client, make_track):
    q = make_track(2).questions.get(number=1)
    html = client.get(q.get_absolute_url()).content.decode()
    html = html[html.index("<main") :]
    markers = [
        'aria-label="Breadcrumb"',
        "badge-medium",
        q.title,
        q.summary,
        "Updated",
        "The answer",
        "Work through the numbers",
        "The concepts behind this question",
        "Up next on your journey",
        "Discussion",
    ]
    positions = [html.index(m) for m in markers]
    assert positions == sorted(positions)
    # "Track / number" as the breadcrumb: the track linked, then the number
    assert (
        f'{q.track.title}</a></li><li aria-current="page"><span class="visually-hidden">Question </span>1</li>'
        in html
    )
    assert q.answer in html  # open answer, anonymous viewer


def test_short_url_redirects_to_canonical_and_a_wrong_slug_is_not_found(client, make_track):
    q = make_track(1).questions.get()
    short = reverse("questions:detail-short", args=[q.track.slug, q.number])
    assert client.get(short).headers["Location"] == q.get_absolute_url()
    # The slug is the question's identity in the URL: an unknown one is not "whatever
    # question holds this number", it is not found.
    wrong = reverse("questions:detail", args=[q.track.slug, q.number, "not-the-slug"])
    assert client.get(wrong).status_code == 404


def test_unknown_and_draft_content_is_404(client, make_track):
    track = make_track(2)
    draft = track.questions.get(number=2)
    draft.published = False
    draft.published_at = None  # never shown to readers
    draft.save()
    assert client.get(draft.get_absolute_url()).status_code == 404
    assert client.get("/tracks/no-such-track/").status_code == 404
    assert client.get(f"/tracks/{track.slug}/99/").status_code == 404
    assert client.get("/concepts/nope/").status_code == 404
    hidden = ConceptFactory(published=False)
    assert client.get(hidden.get_absolute_url()).status_code == 404
    response = client.get("/guides/nope/")
    assert response.status_code == 404 and b"Page not found" in response.content
    # the draft is not listed either
    assert draft.title.encode() not in client.get(track.get_absolute_url()).content


def test_new_badge_follows_published_at(client, make_track):
    from datetime import timedelta

    from django.utils import timezone

    track = make_track(2)
    fresh = track.questions.get(number=1)
    fresh.published_at = timezone.now() - timedelta(days=3)
    fresh.save()
    html = client.get(track.get_absolute_url()).content.decode()
    assert html.count("badge-new") == 1


def test_guide_numbers_items_across_sections(client):
    s1 = GuideSectionFactory(order=1)
    s2 = GuideSectionFactory(guide=s1.guide, order=2)
    for s in (s1, s2):
        GuideItemFactory.create_batch(2, section=s)
    html = client.get(s1.guide.get_absolute_url()).content.decode()
    assert 'id="item-4"' in html and 'id="item-5"' not in html


def test_sitemap_lists_published_pages_only(client, make_track):
    track = make_track(2)
    draft = QuestionFactory(track=track, number=3, published=False)
    xml = client.get("/sitemap.xml").content.decode()
    assert track.questions.get(number=1).get_absolute_url() in xml
    assert draft.get_absolute_url() not in xml
    assert "answer text" not in xml


def test_empty_site_shows_empty_states(client):
    assert b"No tracks are published yet" in client.get("/").content
    assert b"Nothing is published yet" in client.get("/curriculum/").content
    assert b"No guides are published yet" in client.get("/guides/").content


def test_a_long_track_is_paginated_by_fifty(client, make_track):
    track = make_track(120)
    first = client.get(track.get_absolute_url())
    html = first.content.decode()
    assert html.count('<li class="question-row') == 50 and "120 questions" in html
    assert 'href="?page=2"' in html and 'start="1"' in html
    last = client.get(track.get_absolute_url() + "?page=3").content.decode()
    assert last.count('<li class="question-row') == 20 and 'start="101"' in last
    q101 = track.questions.get(number=101)
    assert f'href="{q101.get_absolute_url()}"' in last  # the prefix-built URL is the canonical one


def test_concept_cards_name_their_track_and_lock_and_lead_to_the_curriculum(client):
    concept = ConceptFactory(category="hardware", access="premium", published=True)
    q = QuestionFactory(access="open")
    q.concepts.add(concept)
    html = client.get(q.get_absolute_url()).content.decode()
    card = html.split('class="concept-card"', 1)[1].split("</li>", 1)[0]
    assert "GPUs and accelerators" in card and "Premium" in card
    assert 'href="/curriculum/">Explore the full curriculum' in html
