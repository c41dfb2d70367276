"""Authors' tools: validation at save, tie-free reorder, previews per tier, add_author,
drafts marked in autocomplete, the Site on the configured domain."""

import pytest
from django.contrib.sites.models import Site
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from questions.admin import QuestionAdminForm, ReorderForm
from questions.models import Question
from questions.roles import AUTHORS_GROUP
from tests.factories import ConceptFactory, QuestionFactory, TrackFactory


def form_data(track, **overrides):
    data = {
        "track": track.pk, "number": "", "title": "Why?", "slug": "why", "summary": "S.",
        "difficulty": "easy", "kind": "explain", "access": "open", "concepts": [],
        "body": "Body.", "answer": "An answer.", "published": "",
    }  # fmt: skip
    data.update(overrides)
    return data


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("{{calc warp_drive x=1}}", "unknown calculator"),
        ("{{calc decode_bound params_b=8}}", "bandwidth_tbs"),
        ("Text {{calc availability availability_pct=99.9", "unclosed"),
        ('![Cat](https://example.com/cat.png "Cat")', "only our own diagrams"),
        ("See [this](/concepts/no-such-concept/).", "does not resolve"),
    ],
)
def test_a_broken_answer_is_refused_at_save_with_the_field_named(answer, message):
    form = QuestionAdminForm(data=form_data(TrackFactory(), answer=answer))
    assert not form.is_valid()
    assert "answer" in form.errors and message in " ".join(form.errors["answer"])


@pytest.mark.django_db
def test_a_good_answer_with_a_directive_and_a_concept_link_is_accepted():
    concept = ConceptFactory(published=True)
    answer = f"{{{{calc availability availability_pct=99.9 -> downtime_min_per_month}}}} [c](/concepts/{concept.slug}/)"
    form = QuestionAdminForm(data=form_data(TrackFactory(), answer=answer))
    assert form.is_valid(), form.errors


@pytest.mark.django_db
def test_move_to_first_puts_the_question_first():
    track = TrackFactory()
    qs = [QuestionFactory(track=track, number=i) for i in (1, 2, 3)]
    form = ReorderForm(data={f"q{qs[0].pk}": 1, f"q{qs[1].pk}": 2, f"q{qs[2].pk}": 1}, questions=qs)
    assert form.is_valid()
    assert form.ordered_ids() == [qs[2].pk, qs[0].pk, qs[1].pk]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tier", "sees_answer", "sees_paywall"),
    [
        ("anonymous", False, True),
        ("free", False, True),
        ("premium", True, False),
        ("staff", True, False),
    ],
)
def test_preview_shows_the_page_as_each_tier_sees_it(admin_client, tier, sees_answer, sees_paywall):
    q = QuestionFactory(access="premium", answer="The secret premium reasoning.")
    url = reverse("admin:questions_question_page_preview", args=[q.pk]) + f"?as={tier}"
    html = admin_client.get(url).content.decode()
    assert ("The secret premium reasoning." in html) is sees_answer
    assert ('class="paywall"' in html) is sees_paywall


@pytest.mark.django_db
def test_add_author_creates_a_staff_author_and_refuses_a_bad_address():
    call_command("add_author", "Writer@Example.com", "--password", "long enough password 1")
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(email="writer@example.com")
    assert user.is_staff and not user.is_superuser
    assert list(user.groups.values_list("name", flat=True)) == [AUTHORS_GROUP]
    with pytest.raises(CommandError, match="email"):
        call_command("add_author", "not-an-address")


@pytest.mark.django_db
def test_drafts_are_marked_in_autocomplete(admin_client):
    ConceptFactory(title="Paged KV", published=False)
    ConceptFactory(title="Paged attention", published=True)
    url = (
        reverse("admin:autocomplete")
        + "?app_label=questions&model_name=question&field_name=concepts&term=Paged"
    )
    texts = sorted(r["text"] for r in admin_client.get(url).json()["results"])
    assert texts == ["Paged KV (draft)", "Paged attention"]


@pytest.mark.django_db
def test_the_site_record_uses_the_configured_domain(settings):
    from inferview.accounts.apps import _sync_site

    settings.SITE_DOMAIN = "inferview.example"
    _sync_site(sender=None)
    assert Site.objects.get_current().domain == "inferview.example"


@pytest.mark.django_db
def test_questions_keep_their_identity_key():
    q = QuestionFactory()
    assert len(q.key) == 12 and Question.objects.filter(key=q.key).count() == 1
