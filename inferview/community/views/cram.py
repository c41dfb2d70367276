"""HTML view of the cram plan: lay out the days to an interview and tick items; ticking
never reschedules a review card (``community.practice.cram``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from inferview.community.practice import cram
from questions.models import Track

from .common import _apply_errors


class TickForm(forms.Form):
    """Ticking one item: the id must be a whole number before it reaches the database."""

    item = forms.IntegerField(min_value=1, max_value=2**63 - 1)


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
            tick = TickForm(request.POST)
            if not tick.is_valid():
                return HttpResponseBadRequest(
                    f"item: {tick.errors['item'][0]}", content_type="text/plain"
                )
            try:
                cram.mark_done(
                    user=request.user,
                    item_id=tick.cleaned_data["item"],
                    done=request.POST.get("done") != "0",
                )
            except PermissionDenied as exc:
                raise Http404("No such item.") from exc
            # Always back to the plan: the only form that ticks items is on it, and a
            # caller-chosen address here would be an open redirect. The fragment keeps
            # the learner's place (the item they ticked), not the top of the page.
            return redirect(f"{reverse('community:cram')}#cram-item-{tick.cleaned_data['item']}")
        if form.is_valid():
            try:
                cram.create(
                    user=request.user,
                    interview_on=form.cleaned_data["interview_on"],
                    track_slugs=form.cleaned_data["tracks"],
                )
            except ValidationError as exc:
                _apply_errors(form, exc)
            else:
                return redirect("community:cram")
    plan = cram.active(request.user)
    return render(
        request,
        "community/cram.html",
        {"form": form, "plan": cram.view(plan) if plan else None},
        status=400 if form.errors else 200,
    )
