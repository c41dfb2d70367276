"""The community parts of learner pages render, for anonymous and signed-in viewers."""

import pytest

from inferview.community.bookmarks import services as bookmark_services
from inferview.community.discussion import services as discussion_services
from inferview.community.practice import services as practice_services
from tests.community.factories import BookmarkFactory, CommentFactory, ProgressFactory
from tests.factories import ConceptFactory, QuestionFactory, TrackFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def question():
    track = TrackFactory()
    q = QuestionFactory(track=track, number=1, answer="The **open answer** explains decode.")
    QuestionFactory(track=track, number=2)
    return q


def test_question_page_anonymous_shows_invitations(client, question):
    html = client.get(question.get_absolute_url()).content.decode()
    assert "Sign in to bookmark" in html
    assert "Create a free account" in html and "keep your progress" in html
    assert 'Discussion <span class="count">· 0</span>' in html
    assert "No comments yet." in html
    # try first: folded for everyone, the text still in the HTML
    assert 'id="answer-text"' in html and "The <strong>open answer</strong>" in html
    assert '<details class="answer-fold" id="answer-fold" data-testid="answer-fold">' in html
    assert "How well did you recall it?" not in html  # rating is for signed-in learners


def test_question_page_signed_in_hides_answer_until_revealed(client_for, free_user, question):
    c = client_for(free_user)
    html = c.get(question.get_absolute_url()).content.decode()
    assert 'data-testid="answer-fold" data-reveal-url=' in html  # closed: no "open"
    assert "Save and reveal the answer" in html
    practice_services.approach_save(user=free_user, question=question, text="Mine", reveal=True)
    html = c.get(question.get_absolute_url()).content.decode()
    assert 'data-testid="answer-fold" open data-reveal-url=' in html
    # the rating comes after the answer and says what each choice does
    assert html.index("How well did you recall it?") > html.index('id="answer-text"')
    assert "marks it Confident" in html and "keeps it Attempted" in html
    assert ">Mine</textarea>" in html


def test_track_home_curriculum_show_progress_for_learner(client_for, free_user, question):
    ProgressFactory(user=free_user, question=question, status="confident")
    c = client_for(free_user)
    for url in ["/", "/curriculum/", question.track.get_absolute_url()]:
        html = c.get(url).content.decode()
        assert "1 confident · 0 attempted · 2 total" in html, url
    # the track page's mastery line counts what is due too
    practice_services.review_rate(user=free_user, question=question, rating=1)
    from django.utils import timezone

    from inferview.community.models import ReviewCard

    ReviewCard.objects.filter(user=free_user).update(due=timezone.now())
    html = c.get(question.track.get_absolute_url()).content.decode()
    assert '<a href="/review/" data-testid="track-due">1 due for review</a>' in html


def test_track_list_rows_show_bookmark_toggle_and_comment_count(client_for, free_user, question):
    CommentFactory.create_batch(2, question=question)
    BookmarkFactory(user=free_user, question=question)
    html = client_for(free_user).get(question.track.get_absolute_url()).content.decode()
    assert "2 comments" in html
    assert 'aria-pressed="true"' in html and 'aria-pressed="false"' in html


def test_concept_page_has_bookmark_and_discussion(client_for, free_user):
    concept = ConceptFactory()
    CommentFactory(question=None, concept=concept, body="About this concept")
    html = client_for(free_user).get(concept.get_absolute_url()).content.decode()
    assert "About this concept" in html
    assert 'name="concept"' in html


def test_dashboard_review_bookmarks_pages(client_for, free_user, question):
    bookmark_services.bookmark_toggle(user=free_user, question=question)
    practice_services.review_rate(user=free_user, question=question, rating=3)
    discussion_services.comment_create(user=free_user, question=question, body="My recent comment")
    c = client_for(free_user)
    dash = c.get("/dashboard/").content.decode()
    assert question.title in dash and "My recent comment" in dash and "rated Good" in dash
    review = c.get("/review/").content.decode()
    assert question.title in review
    assert question.title in c.get("/bookmarks/").content.decode()


def test_personal_pages_need_sign_in(client):
    for url in ["/dashboard/", "/review/", "/bookmarks/"]:
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_key_points_result_shows_in_place_and_the_ticks_stay(client_for, free_user):
    from django.urls import reverse

    q = QuestionFactory(key_points=["First point.", "Second point.", "Third point."])
    c = client_for(free_user)
    r = c.post(reverse("community:key-points", args=[q.pk]), {"made": ["1", "3"]})
    assert r["Location"].endswith("#key-points")  # back where the learner clicked
    html = c.get(r["Location"]).content.decode()
    box = html[html.index('id="key-points"') :]
    assert "You made 2 of 3 key points" in box
    assert 'value="1" checked' in box and 'value="3" checked' in box
    assert 'value="2" checked' not in box


def test_start_here_offers_a_cram_plan_and_each_track_s_first_question(client_for, free_user):
    from django.conf import settings

    track = TrackFactory(title="Serving engines")
    first = QuestionFactory(track=track, number=1)
    QuestionFactory(track=track, number=2)
    html = client_for(free_user).get("/start/").content.decode()
    assert 'action="/practice/cram/"' in html and "Interview date" in html
    assert "Serving engines" in html and f'href="{first.get_absolute_url()}"' in html
    assert "0 confident · 0 attempted · 2 total" in html
    assert settings.ACCOUNT_SIGNUP_REDIRECT_URL == "/start/"  # where a new account lands


def test_a_new_account_lands_on_start_here(client):
    import re

    from django.core import mail

    password = "A-long-passphrase-9"
    client.post(
        "/accounts/signup/",
        {"email": "new@example.com", "password1": password, "password2": password},
    )
    link = re.search(r"https?://\S+/confirm-email/\S+", mail.outbox[-1].body).group(0)
    confirmed = client.post(re.sub(r"https?://[^/]+", "", link))
    assert confirmed["Location"] == "/start/"
    assert "Start here" in client.get("/start/").content.decode()


def test_track_pages_filter_by_difficulty_kind_access_and_progress(client_for, free_user):
    track = TrackFactory()
    easy = QuestionFactory(track=track, number=1, difficulty="easy", kind="calculation")
    hard = QuestionFactory(track=track, number=2, difficulty="hard", access="account")
    third = QuestionFactory(track=track, number=3, difficulty="hard")
    ProgressFactory(user=free_user, question=third, status="confident")
    c = client_for(free_user)
    url = track.get_absolute_url()

    def titles(query):
        html = c.get(f"{url}?{query}").content.decode()
        return {q.title for q in (easy, hard, third) if q.title in html}

    assert titles("difficulty=hard") == {hard.title, third.title}
    assert titles("kind=calculation") == {easy.title}
    assert titles("access=account") == {hard.title}
    assert titles("progress=confident") == {third.title}
    assert titles("progress=not_started&difficulty=hard") == {hard.title}
    assert titles("difficulty=bogus") == {easy.title, hard.title, third.title}  # "any"
    html = c.get(f"{url}?difficulty=hard").content.decode()
    assert "Showing 2 of 3 questions." in html
    assert "0 due for review" in html  # the mastery line is the whole track's


def test_the_rating_message_is_in_the_reader_s_time_zone(client_for, free_user, question):
    from django.urls import reverse

    c = client_for(free_user)
    c.cookies["tz"] = "Asia/Kolkata"
    r = c.post(reverse("community:rate", args=[question.pk]), {"rating": 3}, follow=True)
    assert "IST." in r.content.decode() and " UTC." not in r.content.decode()
    free_user.refresh_from_db()
    assert free_user.time_zone == "Asia/Kolkata"  # kept in the profile (accounts.profile)
    type(free_user).objects.filter(pk=free_user.pk).update(time_zone="")
    c.cookies["tz"] = "Not/AZone"  # anything else, with no zone kept: UTC, never a 500
    r = c.post(reverse("community:rate", args=[question.pk]), {"rating": 3}, follow=True)
    assert r.status_code == 200 and " UTC." in r.content.decode()
