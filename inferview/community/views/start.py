""" "Start here": where a new account lands after sign-up (``ACCOUNT_SIGNUP_REDIRECT_URL``).

Two ways in: an interview date for a cram plan (the form posts to the cram page), or a
track to work through from its first question, with the learner's progress beside it.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Min, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from inferview.community.practice import selectors as practice_selectors
from questions.models import Track
from questions.selectors import published_questions

from .cram import CramForm


@login_required
def start(request: HttpRequest) -> HttpResponse:
    published = Q(questions__published=True)
    tracks = list(
        Track.objects.published()
        .annotate(
            question_count=Count("questions", filter=published),
            first_number=Min("questions__number", filter=published),
        )
        .filter(question_count__gt=0)
        .order_by("order")
    )
    practice_selectors.attach_track_progress(request.user, tracks)
    wanted = Q(pk__in=[])
    for t in tracks:
        wanted |= Q(track=t, number=t.first_number)
    first = {q.track_id: q for q in published_questions().filter(wanted).select_related("track")}
    for t in tracks:
        t.first_question = first.get(t.pk)
    return render(request, "community/start.html", {"tracks": tracks, "form": CramForm()})
