"""HTML views of graded practice: the numbers page (a variant of the question, a numeric
answer graded with the named mistake) and scoring the key points after the reveal.

Thin adapters: they read the form, call ``community.practice.graded`` and render; the
service decides and validates (errors name their field).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods, require_POST

from inferview.access import policy
from inferview.community.practice import graded
from inferview.community.practice.key_points import key_points_score
from inferview.community.ratelimits import grading_rate_limited
from questions.models import Question
from questions.selectors import published_questions

from .common import _apply_errors


class NumericAnswerForm(forms.Form):
    value = forms.CharField(label="Your answer", max_length=40)
    unit = forms.ChoiceField(label="Unit", choices=())

    def __init__(self, *args: Any, units: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["unit"].choices = [(u, u) for u in units]
        self.fields["value"].widget.attrs.update(
            {"inputmode": "decimal", "autocomplete": "off", "spellcheck": "false"}
        )


def _int_or_none(raw: Any, field: str) -> int | None:
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except (TypeError, ValueError) as exc:
        raise ValidationError({field: "Must be a whole number."}) from exc


def _practice_question(pk: int) -> Question:
    question = get_object_or_404(published_questions().select_related("track"), pk=pk)
    if question.practice_spec is None:
        raise Http404("This question has no graded practice.")
    return question


@require_http_methods(["GET", "POST"])
def numbers(request: HttpRequest, pk: int) -> HttpResponse:
    """Try a question with your own numbers: a variant, a numeric answer, its grade."""
    question = _practice_question(pk)
    user, session = request.user, request.session
    source = request.POST if request.method == "POST" else request.GET
    try:
        follow_up = _int_or_none(source.get("follow_up"), "follow_up")
        number = _int_or_none(source.get("attempt"), "attempt")
        asked = graded.variant(
            user=user, session=session, question=question, number=number, follow_up=follow_up
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("community:numbers", pk=question.pk)
    if request.method == "POST" and request.POST.get("action") == "new":
        graded.new_attempt(user=user, session=session, question=question)
        return redirect("community:numbers", pk=question.pk)
    if request.method == "POST" and request.POST.get("action") == "show":
        try:
            graded.show_answer(
                user=user,
                session=session,
                question=question,
                number=asked.number,
                follow_up=follow_up,
            )
        except PermissionDenied as exc:
            messages.error(request, str(exc))
        query = {"attempt": asked.number, **({"follow_up": follow_up} if follow_up else {})}
        return redirect(f"{reverse('community:numbers', args=[question.pk])}?{urlencode(query)}")

    form = NumericAnswerForm(
        request.POST or None, units=asked.spec.units, initial={"unit": asked.spec.unit}
    )
    result = steps = None
    status = 200
    if request.method == "POST":
        if grading_rate_limited(request):
            form.add_error(None, "That is a lot of answers in a minute; wait a moment.")
            status = 429
        elif form.is_valid():
            try:
                result = graded.answer(
                    user=user,
                    session=session,
                    question=question,
                    value=form.cleaned_data["value"],
                    unit=form.cleaned_data["unit"],
                    number=asked.number,
                    follow_up=follow_up,
                )
                steps = graded.worked_steps(result)
            except ValidationError as exc:
                _apply_errors(form, exc)
        if not form.is_valid() and status == 200:
            status = 400
    shown = shown_expected = None  # a part whose answer was shown: its number and steps
    if result is None and graded.is_shown(user=user, session=session, asked=asked):
        shown = graded.shown_steps(user=user, asked=asked)
        shown_expected = graded.expected_text(asked) if shown is not None else None
    return render(
        request,
        "community/numbers.html",
        {
            "question": question,
            "track": question.track,
            "asked": asked,
            "form": form,
            "result": result,
            "steps": steps or shown,
            "shown": shown,
            "can_read": policy.can_read(user, question),
            # after this request's own answer, if any: the note is about the next one
            "counts_as_review": result is None and graded.counts_as_review(user=user, asked=asked),
            "shown_expected": shown_expected,
            "misses_before_shown": graded.MISSES_BEFORE_SHOWN,
            "history": graded.answers_of(user=user, question=question, limit=10),
        },
        status=status,
    )


@require_POST
def key_points(request: HttpRequest, pk: int) -> HttpResponse:
    question = get_object_or_404(published_questions().select_related("track"), pk=pk)
    back = question.get_absolute_url() + "#key-points"
    if not request.user.is_authenticated:
        return redirect(f"{reverse('account_login')}?{urlencode({'next': back})}")
    try:
        key_points_score(user=request.user, question=question, made=request.POST.getlist("made"))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect(back)
    # the result shows in the key points box itself, ticks kept (pages.question_page_context)
    return redirect(back)
