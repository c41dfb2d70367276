"""An author, in Chromium: a broken directive is refused at the field, the fixed question
is previewed as an anonymous reader (paywall) and a premium one (answer), published,
moved to position 1, and its old URL still opens it."""

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from questions.models import Question
from questions.roles import AUTHORS_GROUP
from tests.factories import QuestionFactory, TrackFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_author_writes_previews_publishes_and_moves_a_question(
    page, live_server, signed_in_page, artifacts_dir
):
    from questions.roles import ensure_authors_group

    ensure_authors_group()
    author = UserFactory(is_staff=True)
    author.groups.add(Group.objects.get(name=AUTHORS_GROUP))
    track = TrackFactory(title="Serving")
    for n in (1, 2):
        QuestionFactory(track=track, number=n)
    signed_in_page(page, author)

    page.goto(live_server.url + "/admin/questions/question/add/")
    page.get_by_label("Track").select_option(str(track.pk))
    page.get_by_label("Title:", exact=True).fill("How long is a month of 99.9% downtime?")
    page.get_by_label("Slug").fill("month-of-downtime")
    page.get_by_label("Summary").fill("Turns an availability target into minutes.")
    page.get_by_label("Difficulty").select_option("easy")
    page.get_by_label("Kind").select_option("calculation")
    page.get_by_label("Access").select_option("premium")
    page.locator("#id_body").fill("The SLO says three nines.")
    page.locator("#id_answer").fill("Secret answer: {{calc warp_drive x=1}}")
    page.locator("input[name=_continue]").click()
    expect(page.locator(".errorlist")).to_contain_text("unknown calculator")
    page.screenshot(path=str(artifacts_dir / "author-directive-error.png"), full_page=True)

    page.locator("#id_answer").fill(
        "Secret answer: {{calc availability availability_pct=99.9 -> downtime_min_per_month}} a month."
    )
    page.locator("input[name=_continue]").click()
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    page.screenshot(path=str(artifacts_dir / "author-saved.png"), full_page=True)
    question = Question.objects.get(title__startswith="How long is a month")
    assert question.number == 3

    page.get_by_role("link", name="Preview as anonymous").click()
    expect(page.locator(".paywall")).to_be_visible()
    expect(page.get_by_text("Secret answer")).to_have_count(0)
    page.get_by_role("link", name="premium", exact=True).click()
    expect(page.locator("#answer-text")).to_contain_text("Secret answer: 43.83 min a month")

    page.goto(live_server.url + f"/admin/questions/question/{question.pk}/change/")
    page.get_by_label("Published").check()
    page.locator("input[name=_continue]").click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    question.refresh_from_db()
    old_url = question.get_absolute_url()
    assert old_url.startswith(f"/tracks/{track.slug}/3/")

    page.goto(live_server.url + f"/admin/questions/track/{track.pk}/reorder/")
    page.get_by_label(f"3. {question.title}").fill("1")
    page.get_by_role("button", name="Renumber").click()
    expect(page.locator(".messagelist")).to_contain_text("Renumbered 3 questions")
    question.refresh_from_db()
    assert question.number == 1

    page.goto(live_server.url + old_url)
    expect(page.get_by_role("heading", level=1)).to_contain_text(question.title)
    assert page.url.endswith(f"/tracks/{track.slug}/1/{question.slug}/")
