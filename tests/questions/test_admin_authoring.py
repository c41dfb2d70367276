"""The authoring admin as an author uses it: drafts and schedules of guides and guide
items, the content check's column, sign-in by e-mail, the list editors (an error per row)
and the "set the checked month" bulk action with its confirmation.

Forms are posted as the browser would send them: ``form_data`` reads every field (and
every inline formset) from the change form the author was shown, so a test changes only
what the author changes."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django import forms
from django.urls import reverse
from django.utils import timezone

from questions import drafts, scheduling, services
from questions.models import Concept, Guide, GuideItem, Question
from tests.factories import (
    ConceptFactory,
    GuideFactory,
    GuideItemFactory,
    GuideSectionFactory,
    QuestionFactory,
)

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 12, 6, 9, 0, tzinfo=dt.UTC)
POINTS = [
    "Decode reads every weight once per generated token.",
    "Bandwidth, not FLOPs, bounds a batch of one.",
    "Batching shares each weight read across sequences.",
]


def _encode(field: forms.Field, bound: forms.BoundField, data: dict, name: str) -> None:
    value = bound.value()
    widget = field.widget
    if isinstance(widget, forms.MultiWidget):  # admin's split date and time
        parts = widget.decompress(value) if not isinstance(value, list) else value
        for i, part in enumerate(parts):
            if part is not None:
                data[f"{name}_{i}"] = part.isoformat()[:8] if hasattr(part, "hour") else part
        return
    if value is None:
        return
    if isinstance(field, forms.BooleanField):
        if value:
            data[name] = "on"
        return
    if isinstance(field, forms.ModelMultipleChoiceField):
        data[name] = [str(v) for v in value]
        return
    if type(widget).__name__ == "ListWidget":
        for record in value if isinstance(value, list) else []:
            for column in widget.columns:
                key = f"{name}-{column}" if column else name
                cell = record.get(column) if isinstance(record, dict) else record
                data.setdefault(key, []).append("" if cell is None else str(cell))
        return
    if isinstance(value, dict | list):
        import json

        data[name] = json.dumps(value)
        return
    data[name] = value


def form_data(response) -> dict:
    """The POST a browser would send for the change form in ``response``, unchanged."""
    data: dict = {}
    form = response.context["adminform"].form
    for name, field in form.fields.items():
        _encode(field, form[name], data, form.add_prefix(name))
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        for name in formset.management_form.fields:
            data[formset.management_form.add_prefix(name)] = formset.management_form[name].value()
        for f in formset.forms:
            for name, field in f.fields.items():
                _encode(field, f[name], data, f.add_prefix(name))
    return data


def _split(when: dt.datetime) -> dict:
    local = timezone.localtime(when)
    return {"0": local.strftime("%Y-%m-%d"), "1": local.strftime("%H:%M:%S")}


# -- drafts and schedules of guides and guide items ---------------------------------------


def test_a_live_guide_is_edited_into_a_draft_that_publishes_when_scheduled(
    author_client, client_for
):
    learner = client_for(None)  # a reader, not the signed-in author
    guide = GuideFactory(published=True, intro="The live introduction.")
    url = reverse("admin:questions_guide_change", args=[guide.pk])
    data = form_data(author_client.get(url))
    data.update(
        {
            "intro": "The drafted introduction.",
            "_save_draft": "Save as draft",
            **{f"publish_at_{k}": v for k, v in _split(T0).items()},
        }
    )
    response = author_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    guide.refresh_from_db()
    assert guide.intro == "The live introduction." and guide.publish_at is None
    draft = drafts.draft_for(guide)
    assert draft.data["intro"] == "The drafted introduction."
    assert draft.publish_at == T0 and draft.scheduled_by == "author@example.com"
    assert "drafted" not in learner.get(guide.get_absolute_url()).content.decode()

    form = author_client.get(url).content.decode()
    assert "You are editing a draft" in form and "The drafted introduction." in form
    compare = author_client.get(reverse("admin:questions_guide_draft_compare", args=[guide.pk]))
    assert "+The drafted introduction." in compare.content.decode()
    listing = author_client.get(reverse("admin:questions_guide_changelist")).content.decode()
    assert f"publishes its draft {T0:%Y-%m-%d %H:%M}" in listing

    assert scheduling.publish_due(now=T0 - dt.timedelta(seconds=1)).count == 0
    assert scheduling.publish_due(now=T0 + dt.timedelta(seconds=20)).drafts
    guide.refresh_from_db()
    assert guide.intro == "The drafted introduction." and drafts.draft_for(guide) is None
    assert "The drafted introduction." in learner.get(guide.get_absolute_url()).content.decode()
    assert scheduling.publish_due(now=T0 + dt.timedelta(minutes=5)).count == 0


def test_a_new_guide_scheduled_in_admin_goes_live_when_due(author_client, client_for):
    learner = client_for(None)  # a reader, not the signed-in author
    guide = GuideFactory(published=False)
    url = reverse("admin:questions_guide_change", args=[guide.pk])
    data = form_data(author_client.get(url))
    data.update({f"publish_at_{k}": v for k, v in _split(T0).items()})
    assert author_client.post(url, data).status_code == 302
    guide.refresh_from_db()
    assert guide.publish_at == T0 and guide.scheduled_by == "author@example.com"
    assert not guide.published
    assert learner.get(guide.get_absolute_url()).status_code == 404
    scheduling.publish_due(now=T0)
    guide.refresh_from_db()
    assert guide.published and guide.publish_at is None
    assert learner.get(guide.get_absolute_url()).status_code == 200


def test_an_overdue_schedule_is_shown_in_the_form_and_the_list(author_client):
    """Beat down: nothing went live early, and admin says what waits and why."""
    guide = GuideFactory(published=False, publish_at=timezone.now() - dt.timedelta(minutes=10))
    form = author_client.get(reverse("admin:questions_guide_change", args=[guide.pk]))
    assert "Is the scheduler (<code>celery beat</code>) running?" in form.content.decode()
    listing = author_client.get(reverse("admin:questions_guide_changelist")).content.decode()
    assert "OVERDUE: is the scheduler (celery beat) running?" in listing
    guide.refresh_from_db()
    assert not guide.published


def test_an_item_of_a_live_guide_is_drafted_and_its_draft_scheduled(author_client, client_for):
    learner = client_for(None)  # a reader, not the signed-in author
    guide = GuideFactory(published=True)
    section = GuideSectionFactory(guide=guide)
    item = GuideItemFactory(section=section, body="Live short answer.")
    url = reverse("admin:questions_guideitem_change", args=[item.pk])
    data = form_data(author_client.get(url))
    data.update(
        {
            "body": "Drafted short answer.",
            "_save_draft": "Save as draft",
            **{f"publish_at_{k}": v for k, v in _split(T0).items()},
        }
    )
    assert author_client.post(url, data).status_code == 302
    item.refresh_from_db()
    assert item.body == "Live short answer."
    page = learner.get(guide.get_absolute_url()).content.decode()
    assert "Live short answer." in page and "Drafted short answer." not in page

    form = author_client.get(url).content.decode()
    assert "You are editing a draft" in form and "Drafted short answer." in form
    assert 'name="publish_at_0" value="06/12/2026"' in form  # the draft's time, en-GB
    listing = author_client.get(reverse("admin:questions_guideitem_changelist")).content.decode()
    assert "publishes its draft" in listing

    before = Guide.objects.get(pk=guide.pk).updated_at
    assert scheduling.publish_due(now=T0 - dt.timedelta(seconds=1)).count == 0
    assert len(scheduling.publish_due(now=T0).drafts) == 1
    item.refresh_from_db()
    assert item.body == "Drafted short answer."
    assert Guide.objects.get(pk=guide.pk).updated_at > before
    assert "Drafted short answer." in learner.get(guide.get_absolute_url()).content.decode()


def test_an_item_of_an_unpublished_guide_saves_directly(author_client):
    """Nobody reads it yet, so there is nothing to draft against: no "Save as draft"."""
    item = GuideItemFactory(section=GuideSectionFactory(guide=GuideFactory(published=False)))
    url = reverse("admin:questions_guideitem_change", args=[item.pk])
    response = author_client.get(url)
    assert "_save_draft" not in response.content.decode()
    data = form_data(response)
    data["body"] = "Edited straight away."
    assert author_client.post(url, data).status_code == 302
    item.refresh_from_db()
    assert item.body == "Edited straight away." and drafts.draft_for(item) is None


def test_the_guide_section_links_each_item_to_its_own_form(author_client):
    item = GuideItemFactory()
    html = author_client.get(
        reverse("admin:questions_guidesection_change", args=[item.section_id])
    ).content.decode()
    assert reverse("admin:questions_guideitem_change", args=[item.pk]) in html


# -- the content check's findings ---------------------------------------------------------


def _row(html: str, text: str) -> str:
    """The changelist row (``<tr>...</tr>``) that shows ``text``."""
    rows = [r for r in re.findall(r"<tr[^>]*>.*?</tr>", html, re.S) if text in r]
    assert len(rows) == 1, (text, len(rows))
    return rows[0]


def test_findings_are_a_column_of_the_list_and_a_note_in_the_form(author_client):
    short = QuestionFactory(title="Short answer?", answer="Too short.", checked="2026-11")
    html = author_client.get(reverse("admin:questions_question_changelist")).content.decode()
    row = _row(html, "Short answer?")
    assert "finding(s)" in row and "length: the answer has 2 words" in row
    form = author_client.get(reverse("admin:questions_question_change", args=[short.pk]))
    assert "length: the answer has 2 words" in form.content.decode()

    # A clean item says OK; a concept naming a dated product without a checked month does not
    QuestionFactory(title="Clean answer?", answer="word " * 300, checked="2026-11")
    html = author_client.get(reverse("admin:questions_question_changelist")).content.decode()
    assert '<td class="field-check_findings">OK</td>' in _row(html, "Clean answer?")
    ConceptFactory(title="The H100", body="The H100 has HBM3.", checked="")
    html = author_client.get(reverse("admin:questions_concept_changelist")).content.decode()
    row = _row(html, "The H100")
    assert "checked: names" in row and "no checked month" in row


def test_a_guide_item_with_a_broken_directive_has_a_finding(author_client):
    item = GuideItemFactory(title="Broken box", body="{{calc no_such_calculator}}")
    html = author_client.get(reverse("admin:questions_guideitem_changelist")).content.decode()
    row = _row(html, "Broken box")
    assert "finding(s)" in row and "no_such_calculator" in row
    GuideItem.objects.filter(pk=item.pk).update(body="A plain short answer.")
    html = author_client.get(reverse("admin:questions_guideitem_changelist")).content.decode()
    assert "finding(s)" not in _row(html, "Broken box")


# -- sign-in by e-mail --------------------------------------------------------------------


def test_the_admin_sign_in_asks_for_email_not_username(client):
    response = client.get(reverse("admin:login"), follow=True)
    html = response.content.decode()
    assert response.status_code == 200
    labels = re.findall(r"<label[^>]*>\s*([^<]+?)\s*<", html)
    assert "Email" in labels and not any("Username" in label for label in labels), labels


def test_an_author_signs_in_to_the_admin_with_email_and_password(client, author):
    from allauth.account.models import EmailAddress

    EmailAddress.objects.create(user=author, email=author.email, verified=True, primary=True)
    response = client.post(
        reverse("account_login") + "?next=/admin/",
        {"login": "author@example.com", "password": "correct horse battery staple"},
    )
    # the password is accepted; allauth then asks for the second factor
    assert response.status_code == 302 and "/2fa/" in response["Location"], response.get("Location")


# -- the list editors ---------------------------------------------------------------------


def _question_form(author_client, q):
    url = reverse("admin:questions_question_change", args=[q.pk])
    return url, form_data(author_client.get(url))


def test_key_points_are_rows_saved_in_order_with_blank_rows_dropped(author_client):
    q = QuestionFactory(published=False, answer="word " * 200)
    url, data = _question_form(author_client, q)
    html = author_client.get(url).content.decode()
    assert 'data-list-editor="key_points"' in html and "Move key point 1 up" in html
    assert "Move reference 1 up" in html
    data["key_points"] = [POINTS[2], "", POINTS[0], POINTS[1], ""]
    response = author_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    q.refresh_from_db()
    assert q.key_points == [POINTS[2], POINTS[0], POINTS[1]]
    html = author_client.get(url).content.decode()
    assert html.index(POINTS[2]) < html.index(POINTS[0]) < html.index(POINTS[1])


def test_a_bad_key_point_is_refused_naming_its_row_and_nothing_is_lost(author_client):
    q = QuestionFactory(published=False, key_points=POINTS)
    url, data = _question_form(author_client, q)
    data["key_points"] = [POINTS[0], "Too short.", POINTS[2]]
    response = author_client.post(url, data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["key_points"]
    assert errors == ["point 2: one sentence of 20-240 characters"]
    assert "Too short." in response.content.decode()  # the author's text is still there
    q.refresh_from_db()
    assert q.key_points == POINTS


def test_a_bad_reference_row_is_refused_naming_the_row_and_the_field(author_client):
    q = QuestionFactory(published=False, references=[])
    url, data = _question_form(author_client, q)
    data.update(
        {
            "references-title": ["Roofline", "No publisher", "Bad link"],
            "references-publisher": ["CACM", "", "Someone"],
            "references-year": ["2009", "2020", "2021"],
            "references-url": ["https://example.org/r", "https://example.org/n", "ftp://x"],
        }
    )
    response = author_client.post(url, data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["references"]
    assert errors == ["row 2: missing publisher", "row 3: url must start with http(s)://"]
    q.refresh_from_db()
    assert q.references == []

    for key in ("title", "publisher", "year", "url"):
        data[f"references-{key}"] = data[f"references-{key}"][:1] + ["", ""]
    assert author_client.post(url, data).status_code == 302
    q.refresh_from_db()
    assert q.references == [
        {"title": "Roofline", "publisher": "CACM", "year": 2009, "url": "https://example.org/r"}
    ]


# -- set the checked month ----------------------------------------------------------------


def test_set_checked_asks_for_the_month_then_sets_it_without_moving_updated(author_client):
    items = [QuestionFactory(checked="2025-01"), QuestionFactory(checked="2025-02")]
    for q in items:  # as import leaves them: hashed, so a change is measured against it
        services.save_content(q)
    before = {q.pk: Question.objects.get(pk=q.pk).updated_at for q in items}
    changelist = reverse("admin:questions_question_changelist")
    selected = {"action": "set_checked", "_selected_action": [q.pk for q in items]}

    asked = author_client.post(changelist, selected)
    html = asked.content.decode()
    assert asked.status_code == 200 and "Yes, set the month" in html and 'name="checked"' in html
    assert all(q.title in html for q in items)
    assert set(Question.objects.values_list("checked", flat=True)) == {"2025-01", "2025-02"}

    refused = author_client.post(changelist, {**selected, "confirm": "yes", "checked": "2026-13"})
    assert refused.status_code == 200 and "Yes, set the month" in refused.content.decode()
    assert refused.context["month_form"].errors["checked"]
    assert set(Question.objects.values_list("checked", flat=True)) == {"2025-01", "2025-02"}

    done = author_client.post(changelist, {**selected, "confirm": "yes", "checked": "2026-12"})
    assert done.status_code == 302
    for q in Question.objects.filter(pk__in=before):
        assert q.checked == "2026-12" and q.updated_at == before[q.pk]


def test_set_checked_on_concepts_too(author_client):
    concept = ConceptFactory(checked="2025-01")
    author_client.post(
        reverse("admin:questions_concept_changelist"),
        {
            "action": "set_checked",
            "_selected_action": [concept.pk],
            "confirm": "yes",
            "checked": "2026-12",
        },
    )
    assert Concept.objects.get(pk=concept.pk).checked == "2026-12"
