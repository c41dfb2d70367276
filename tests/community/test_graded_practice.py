"""Graded practice through the pages: variants, grades, follow-ups, key points, storage,
FSRS, and the access policy (locked numbers, steps and key points never leave)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from calculators import grading
from calculators.model_catalog import MODELS
from inferview.community.models import Attempt, Draw, KeyPointScore, NumericAnswer, ReviewCard
from tests.community.practice_data import LOCKED_POINT, SPEC
from tests.factories import QuestionFactory


def url(q, **query):
    base = reverse("community:numbers", args=[q.pk])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def variant_on_page(html: str) -> dict:
    """Read the variant back from the prompt the page shows."""
    m = re.search(r"does (.+?) need for (\d+) sequences of ([\d,]+) tokens", html)
    assert m, html[:2000]
    model = next(slug for slug, p in MODELS.items() if p.name == m.group(1))
    return {
        "model": model,
        "batch_size": int(m.group(2)),
        "seq_len": int(m.group(3).replace(",", "")),
    }


def total_gb(v: dict, seq_len: int | None = None) -> float:
    m = MODELS[v["model"]]
    return (
        2
        * m.layers
        * m.kv_heads
        * m.head_dim
        * 2
        * (seq_len or v["seq_len"])
        * v["batch_size"]
        / 1e9
    )


def test_an_anonymous_visitor_gets_a_variant_a_named_mistake_then_right(client, open_q):
    page = client.get(url(open_q))
    assert page.status_code == 200
    v = variant_on_page(page.content.decode())
    assert variant_on_page(client.get(url(open_q)).content.decode()) == v  # same session

    wrong = client.post(
        url(open_q), {"value": f"{total_gb(v) / 2:.6g}", "unit": "GB", "attempt": 1}
    )
    assert wrong.status_code == 200
    html = wrong.content.decode()
    assert grading.MISTAKES["kv-counted-once"].label in html
    # try first: a wrong answer gets the slip and Try again, not the number or the steps
    assert "Worked steps" not in html and 'data-testid="expected"' not in html
    assert "Try again" in html and 'data-testid="show-answer"' in html

    right = client.post(
        url(open_q), {"value": f"{total_gb(v) * 1e9 / 2**30:.6g}", "unit": "GiB", "attempt": 1}
    )
    assert "<h2>Right</h2>" in right.content.decode()
    assert (
        "Worked steps" in right.content.decode()
    )  # an open question's steps, after a right answer
    assert NumericAnswer.objects.count() == 0  # nothing stored without an account


def test_anonymous_visitors_keep_their_numbers_per_session(client, open_q):
    from django.test import Client

    first = variant_on_page(client.get(url(open_q)).content.decode())
    others = {str(variant_on_page(Client().get(url(open_q)).content.decode())) for _ in range(8)}
    assert others - {str(first)}  # other visitors draw other numbers


def test_a_follow_up_changes_one_input_and_is_graded_on_it(client, open_q):
    v = variant_on_page(client.get(url(open_q)).content.decode())
    page = client.get(url(open_q, attempt=1, follow_up=1))
    assert "Now at 128k context: how much?" in page.content.decode()
    right = client.post(
        url(open_q),
        {"value": f"{total_gb(v, 131072):.6g}", "unit": "GB", "attempt": 1, "follow_up": 1},
    )
    assert "<h2>Right</h2>" in right.content.decode()
    base = client.post(
        url(open_q), {"value": f"{total_gb(v, 131072):.6g}", "unit": "GB", "attempt": 1}
    )
    assert "<h2>Right</h2>" not in base.content.decode()  # not the base question's number


def test_new_numbers_start_attempt_two_and_attempt_one_keeps_its_numbers(
    client_for, free_user, open_q
):
    c = client_for(free_user)
    one = variant_on_page(c.get(url(open_q)).content.decode())
    seen = {str(one)}
    for _ in range(5):  # six attempts: the numbers change at least once
        c.post(url(open_q), {"action": "new"})
        seen.add(str(variant_on_page(c.get(url(open_q)).content.decode())))
    assert len(seen) > 1
    assert variant_on_page(c.get(url(open_q, attempt=1)).content.decode()) == one
    assert Draw.objects.filter(user=free_user, question=open_q).count() == 6
    seed = grading.seed_for(f"user:{free_user.pk}", open_q.key, 3)
    assert Draw.objects.get(user=free_user, question=open_q, number=3).seed == seed


def test_a_signed_in_answer_is_stored_and_a_wrong_first_answer_is_again(
    client_for, free_user, open_q, fsrs_exact
):
    c = client_for(free_user)
    page = c.get(url(open_q)).content.decode()
    # the page says so before the answer (the walkthrough: a learner who had just rated the
    # question Good lost "Confident" to one wrong try, and nothing had told them)
    assert 'data-testid="review-note"' in page and "wrong rates it Again" in page
    assert 'data-testid="review-note"' not in client_for(None).get(url(open_q)).content.decode()
    v = variant_on_page(page)
    c.post(url(open_q), {"value": f"{total_gb(v) * 8:.6g}", "unit": "GB", "attempt": 1})
    # only the first answer counts: the note is gone from the same numbers and a follow-up
    assert 'data-testid="review-note"' not in c.get(url(open_q, attempt=1)).content.decode()
    follow = c.get(url(open_q, attempt=1, follow_up=1)).content.decode()
    assert "Follow-up" in follow and 'data-testid="review-note"' not in follow
    answer = NumericAnswer.objects.get()
    assert (answer.correct, answer.mistake, answer.unit) == (False, "bits-for-bytes", "GB")
    assert answer.expected == pytest.approx(total_gb(v))
    assert Attempt.objects.get(user=free_user, question=open_q).rating == 1  # again
    c.post(url(open_q), {"value": f"{total_gb(v):.6g}", "unit": "GB", "attempt": 1})
    assert NumericAnswer.objects.filter(correct=True).count() == 1
    assert Attempt.objects.filter(user=free_user).count() == 1  # one rating per attempt
    assert ReviewCard.objects.get(user=free_user, question=open_q).last_rating == 1


def test_a_right_first_answer_is_good(client_for, free_user, open_q):
    c = client_for(free_user)
    v = variant_on_page(c.get(url(open_q)).content.decode())
    c.post(url(open_q), {"value": f"{total_gb(v):.6g}", "unit": "GB", "attempt": 1})
    assert Attempt.objects.get(user=free_user).rating == 3


@pytest.mark.parametrize(
    ("data", "field_text"),
    [
        ({"value": "lots", "unit": "GB"}, "Enter a number"),
        ({"value": "", "unit": "GB"}, "This field is required"),
        ({"value": "inf", "unit": "GB"}, "Enter a finite number"),
        ({"value": "12", "unit": "ms"}, "Select a valid choice"),
        ({"value": "1e400", "unit": "GB"}, "Enter a finite number"),
    ],
)
def test_bad_answers_get_a_400_naming_the_field(client, open_q, data, field_text):
    response = client.post(url(open_q), {**data, "attempt": 1})
    assert response.status_code == 400
    page = response.content.decode()
    assert field_text in page
    # the message is tied to its field for a screen reader, and the typed text is kept
    field = "unit" if data["unit"] == "ms" else "value"
    control = re.search(rf'<(?:input|select)[^>]*name="{field}"[^>]*>', page).group(0)
    assert 'aria-invalid="true"' in control
    described = re.search(r'aria-describedby="([^"]+)"', control).group(1)
    assert re.search(rf'id="{described}"[^>]*>[^<]*{field_text}', page)
    if field == "value" and data["value"]:
        assert f'value="{data["value"]}"' in control


@pytest.mark.parametrize("query", [{"follow_up": 9}, {"attempt": 5}, {"attempt": "x"}])
def test_an_unknown_attempt_or_follow_up_redirects_with_the_reason(client, open_q, query):
    response = client.get(url(open_q, **query))
    assert response.status_code == 302
    follow = client.get(response["Location"])
    assert follow.status_code == 200


def test_a_question_without_practice_has_no_numbers_page(client, db):
    q = QuestionFactory()
    assert client.get(reverse("community:numbers", args=[q.pk])).status_code == 404
    draft = QuestionFactory(practice=SPEC, kind="calculation", published=False)
    assert client.get(reverse("community:numbers", args=[draft.pk])).status_code == 404


@pytest.mark.parametrize("who", ["anonymous", "free"])
def test_a_locked_question_grades_but_keeps_its_number_steps_and_points(
    client_for, free_user, premium_q, who
):
    c = client_for(free_user if who == "free" else None)
    page = c.get(url(premium_q)).content.decode()
    v = variant_on_page(page)
    graded = c.post(url(premium_q), {"value": f"{total_gb(v) / 2:.6g}", "unit": "GB", "attempt": 1})
    html = graded.content.decode()
    assert grading.MISTAKES["kv-counted-once"].label in html  # the grade is shown
    right = f"{total_gb(v):,.4g}".rstrip("0").rstrip(".")
    assert "The right answer" not in html and "Worked steps" not in html
    assert right not in html
    detail = c.get(premium_q.get_absolute_url()).content.decode()
    assert LOCKED_POINT not in detail and "PREMIUM-ANSWER-TEXT" not in detail
    assert "Get my numbers" in detail  # the variant itself is open to all


def test_premium_readers_see_the_locked_question_s_steps_and_points(
    client_for, premium_user, premium_q
):
    c = client_for(premium_user)
    v = variant_on_page(c.get(url(premium_q)).content.decode())
    wrong = c.post(url(premium_q), {"value": "1", "unit": "GB", "attempt": 1}).content.decode()
    assert "Worked steps" not in wrong  # try first, even for a reader of the answer
    html = c.post(
        url(premium_q), {"value": f"{total_gb(v):.6g}", "unit": "GB", "attempt": 1}
    ).content.decode()
    assert "Worked steps" in html and "<h2>Right</h2>" in html
    assert LOCKED_POINT in c.get(premium_q.get_absolute_url()).content.decode()
    assert v


def test_key_points_are_ticked_scored_and_rated(client_for, free_user, open_q, fsrs_exact):
    c = client_for(free_user)
    c.post(
        reverse("community:practice", args=[open_q.pk]), {"approach": "mine", "action": "reveal"}
    )
    page = c.get(open_q.get_absolute_url()).content.decode()
    assert 'name="made" value="3"' in page
    response = c.post(reverse("community:key-points", args=[open_q.pk]), {"made": ["1", "3"]})
    assert response.status_code == 302
    score = KeyPointScore.objects.get()
    assert (score.made, score.total) == ([1, 3], 3)
    assert Attempt.objects.get(user=free_user).rating == 2  # 2 of 3 (67%) = hard
    c.post(reverse("community:key-points", args=[open_q.pk]), {"made": ["1", "2", "3"]})
    assert Attempt.objects.filter(user=free_user).first().rating == 4  # all = easy


def test_key_point_errors_and_locks(client_for, free_user, open_q, premium_q):
    c = client_for(free_user)
    r = c.post(reverse("community:key-points", args=[open_q.pk]), {"made": ["9"]}, follow=True)
    assert "Points are numbered 1 to 3." in r.content.decode()
    assert not KeyPointScore.objects.exists()
    assert (
        c.post(reverse("community:key-points", args=[premium_q.pk]), {"made": ["1"]}).status_code
        == 403
    )
    anon = client_for(None).post(reverse("community:key-points", args=[open_q.pk]), {"made": ["1"]})
    assert anon.status_code == 302 and "/accounts/login/" in anon["Location"]


@pytest.mark.parametrize(
    ("made", "rating"), [([], 1), ([1], 1), ([1, 2], 2), ([1, 2, 3, 4], 3), ([1, 2, 3, 4, 5], 4)]
)
def test_key_point_fractions_map_to_ratings(made, rating):
    from inferview.community.practice.key_points import rating_for

    assert rating_for(len(made) / 5) == rating


def test_the_third_miss_shows_the_number_and_the_steps(client, open_q):
    v = variant_on_page(client.get(url(open_q)).content.decode())
    for n in (1, 2):
        html = client.post(
            url(open_q), {"value": f"{total_gb(v) * 3.3:.6g}", "unit": "GB", "attempt": 1}
        ).content.decode()
        assert "Not quite" in html and 'data-testid="expected"' not in html, n
        assert "too high by a factor of about 3.3" in html.lower()  # the factor hint
    third = client.post(
        url(open_q), {"value": f"{total_gb(v) * 3.3:.6g}", "unit": "GB", "attempt": 1}
    ).content.decode()
    assert 'data-testid="expected"' in third and "Worked steps" in third
    # and the right number now does not count: it was shown
    after = client.post(
        url(open_q), {"value": f"{total_gb(v):.6g}", "unit": "GB", "attempt": 1}
    ).content.decode()
    assert 'data-testid="after-shown"' in after and "<h2>Right</h2>" not in after


def test_an_answer_after_show_answer_never_counts(client_for, free_user, open_q, fsrs_exact):
    from inferview.community.practice import graded

    c = client_for(free_user)
    v = variant_on_page(c.get(url(open_q)).content.decode())
    shown = c.post(url(open_q), {"action": "show", "attempt": 1})
    assert shown.status_code == 302
    page = c.get(shown["Location"]).content.decode()
    assert 'data-testid="expected"' in page and "Worked steps" in page
    right = c.post(url(open_q), {"value": f"{total_gb(v):.6g}", "unit": "GB", "attempt": 1})
    assert 'data-testid="after-shown"' in right.content.decode()
    answer = NumericAnswer.objects.get()
    assert (answer.after_shown, answer.correct) == (True, False)
    # not in the FSRS schedule, not in the stats, not on the dashboard
    assert not Attempt.objects.filter(user=free_user).exists()
    assert not ReviewCard.objects.filter(user=free_user).exists()
    assert graded.stats(free_user).answers == 0
    assert 'data-testid="first-try"' not in c.get("/dashboard/").content.decode()


def test_the_dashboard_shows_first_try_accuracy(client_for, free_user, open_q):
    c = client_for(free_user)
    v = variant_on_page(c.get(url(open_q)).content.decode())
    c.post(url(open_q), {"value": f"{total_gb(v) * 8:.6g}", "unit": "GB", "attempt": 1})
    c.post(url(open_q), {"value": f"{total_gb(v):.6g}", "unit": "GB", "attempt": 1})  # 2nd try
    c.post(url(open_q), {"action": "new"})
    v2 = variant_on_page(c.get(url(open_q)).content.decode())
    c.post(url(open_q), {"value": f"{total_gb(v2):.6g}", "unit": "GB", "attempt": 2})
    html = c.get("/dashboard/").content.decode()
    assert "First-try accuracy: 1 of 2 numeric questions right first time (50%)" in html
