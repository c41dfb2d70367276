"""HTML views of graded practice, key points, mock interviews and cram plans.

Thin adapters: they read the form, call ``community.practice.graded`` / ``mock`` /
``cram`` and render; the services decide and validate (errors name their field).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods, require_POST
from django_ratelimit.core import is_ratelimited

from inferview.community.models import MockSession
from inferview.community.practice import cram, graded, mock
from questions.markdown import render_markdown
from questions.models import Difficulty, Kind, Question, Track
from questions.selectors import published_questions

GRADE_RATE = "120/m"  # numeric answers per visitor: cheap, but each runs the kernels


class NumericAnswerForm(forms.Form):
    value = forms.CharField(label="Your answer", max_length=40)
    unit = forms.ChoiceField(label="Unit", choices=())

    def __init__(self, *args: Any, units: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["unit"].choices = [(u, u) for u in units]
        self.fields["value"].widget.attrs.update(
            {"inputmode": "decimal", "autocomplete": "off", "spellcheck": "false"}
        )


def _apply(form: forms.Form, exc: ValidationError) -> None:
    for name, errors in exc.message_dict.items():
        form.add_error(name if name in form.fields else None, errors)


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

    form = NumericAnswerForm(
        request.POST or None, units=asked.spec.units, initial={"unit": asked.spec.unit}
    )
    result = steps = None
    status = 200
    if request.method == "POST":
        if is_ratelimited(
            request, group="practice.grade", key="ip", rate=GRADE_RATE, increment=True
        ):
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
                _apply(form, exc)
        if not form.is_valid() and status == 200:
            status = 400
    return render(
        request,
        "community/numbers.html",
        {
            "question": question,
            "track": question.track,
            "asked": asked,
            "form": form,
            "result": result,
            "steps": steps,
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
        score = graded.key_points_score(
            user=request.user, question=question, made=request.POST.getlist("made")
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect(back)
    messages.success(
        request,
        f"You made {len(score.made)} of {score.total} key points; "
        "your next review is scheduled from that.",
    )
    return redirect(back)


# --- Mock interviews ---------------------------------------------------------------------


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
            _apply(form, exc)
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
        context["body_html"] = render_markdown(item.question.body)
        if item.question.practice_spec is not None:
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
            (i, graded.key_points_for(request.user, i.question)) for i in session.items.all()
        ]
    else:
        context["rows"] = mock.summary(session)
        context["weak"] = [row for row in context["rows"] if row.review_next]
    return render(request, "community/mock.html", context, status=400 if errors else 200)


# --- Cram plans --------------------------------------------------------------------------


class CramForm(forms.Form):
    interview_on = forms.DateField(
        label="Interview date", widget=forms.DateInput(attrs={"type": "date"})
    )
    tracks = forms.MultipleChoiceField(
        label="Tracks", widget=forms.CheckboxSelectMultiple, choices=()
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tracks"].choices = list(
            Track.objects.published().order_by("order").values_list("slug", "title")
        )


@login_required
@require_http_methods(["GET", "POST"])
def cram_plan(request: HttpRequest) -> HttpResponse:
    form = CramForm(request.POST or None)
    if request.method == "POST":
        if request.POST.get("action") == "archive":
            plan = cram.active(request.user)
            if plan is not None:
                cram.archive(user=request.user, plan=plan)
            return redirect("community:cram")
        if request.POST.get("item"):
            try:
                cram.mark_done(
                    user=request.user,
                    item_id=request.POST["item"],
                    done=request.POST.get("done") != "0",
                )
            except PermissionDenied as exc:
                raise Http404("No such item.") from exc
            # Always back to the plan: the only form that ticks items is on it, and a
            # caller-chosen address here would be an open redirect.
            return redirect("community:cram")
        if form.is_valid():
            try:
                cram.create(
                    user=request.user,
                    interview_on=form.cleaned_data["interview_on"],
                    track_slugs=form.cleaned_data["tracks"],
                )
            except ValidationError as exc:
                _apply(form, exc)
            else:
                return redirect("community:cram")
    plan = cram.active(request.user)
    return render(
        request,
        "community/cram.html",
        {"form": form, "plan": cram.view(plan) if plan else None},
        status=400 if form.errors else 200,
    )
