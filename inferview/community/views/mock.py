"""HTML views of mock interviews: start one, answer its questions in order (numeric parts
graded as on the numbers page), score the key points at the end and read the summary.
``community.practice.mock`` draws only readable questions and keeps the times."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from inferview.community.models import MockSession
from inferview.community.practice import graded, key_points, mock
from questions.markdown import render_markdown
from questions.models import Difficulty, Kind, Track

from .common import _apply_errors
from .graded import NumericAnswerForm


class MockForm(forms.Form):
    track = forms.ChoiceField(label="Track", required=False)
    difficulty = forms.ChoiceField(
        label="Difficulty", required=False, choices=[("", "Any")] + list(Difficulty.choices)
    )
    kind = forms.ChoiceField(
        label="Kind", required=False, choices=[("", "Any")] + list(Kind.choices)
    )
    size = forms.TypedChoiceField(
        label="Questions", coerce=int, choices=[(n, n) for n in mock.SIZES], initial=3
    )
    minutes = forms.TypedChoiceField(
        label="Minutes per question",
        coerce=int,
        choices=[(n, n) for n in mock.MINUTES],
        initial=10,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["track"].choices = [("", "All tracks")] + list(
            Track.objects.published().order_by("order").values_list("slug", "title")
        )


@login_required
@require_http_methods(["GET", "POST"])
def mock_list(request: HttpRequest) -> HttpResponse:
    form = MockForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            session = mock.start(user=request.user, **form.cleaned_data)
        except ValidationError as exc:
            _apply_errors(form, exc)
        else:
            return redirect("community:mock", pk=session.pk)
    return render(
        request,
        "community/mock_list.html",
        {"form": form, "sessions": mock.history(user=request.user)},
        status=400 if form.errors else 200,
    )


def _own_mock(request: HttpRequest, pk: int) -> MockSession:
    try:
        return mock.get(user=request.user, pk=pk)
    except MockSession.DoesNotExist as exc:
        raise Http404("No such mock interview.") from exc


@login_required
@require_http_methods(["GET", "POST"])
def mock_detail(request: HttpRequest, pk: int) -> HttpResponse:
    session = _own_mock(request, pk)
    stage = mock.stage(session)
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        try:
            if stage == "answering":
                mock.answer(
                    user=request.user,
                    session=session,
                    position=request.POST.get("position"),
                    response=request.POST.get("response", ""),
                    value=request.POST.get("value"),
                    unit=request.POST.get("unit"),
                    http_session=request.session,
                )
            elif stage == "key-points":
                ticks = {
                    item.position: request.POST.getlist(f"made-{item.position}")
                    for item in session.items.all()
                }
                mock.finish(user=request.user, session=session, ticks=ticks)
            return redirect("community:mock", pk=session.pk)
        except ValidationError as exc:
            errors = exc.message_dict
    item = mock.current_item(session) if stage == "answering" else None
    context: dict[str, Any] = {
        "session": session,
        "stage": stage,
        "item": item,
        "errors": errors,
        "total": len(session.items.all()),
    }
    if item is not None:
        # one scenario per question: a graded question is asked with the learner's drawn
        # numbers only, so its prose (with the worked case's numbers) is left out
        if item.question.practice_spec is None:
            context["body_html"] = render_markdown(item.question.body)
        else:
            asked = graded.variant(
                user=request.user, session=request.session, question=item.question
            )
            context["asked"] = asked
            context["numeric_form"] = NumericAnswerForm(
                units=asked.spec.units, initial={"unit": asked.spec.unit}
            )
        context["deadline_s"] = session.minutes_per_question * 60
        if errors:  # give back what was typed: an error must never lose an answer
            context["posted"] = {
                "response": request.POST.get("response", ""),
                "value": request.POST.get("value", ""),
            }
            if "numeric_form" in context:
                context["numeric_form"] = NumericAnswerForm(
                    units=context["asked"].spec.units,
                    initial={"unit": request.POST.get("unit") or context["asked"].spec.unit},
                )
    elif stage == "key-points":
        context["items"] = [
            (i, key_points.key_points_for(request.user, i.question)) for i in session.items.all()
        ]
    else:
        context["rows"] = mock.summary(session)
        context["weak"] = [row for row in context["rows"] if row.review_next]
        context["debrief"] = [
            (d, render_markdown(d.row.item.question.answer) if d.readable else None)
            for d in mock.debrief(session, request.user)
        ]
    return render(request, "community/mock.html", context, status=400 if errors else 200)
