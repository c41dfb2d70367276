"""HTML views of the learner's own tools: bookmarks, practice (approach, progress, FSRS
rating), the review queue and the dashboard.

Every action is a plain form POST that redirects back (so it works without JavaScript);
``static/js/community.js`` upgrades the bookmark toggle to ``fetch`` and asks for JSON
with ``Accept: application/json``.
"""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.formats import date_format
from django.views.decorators.http import require_POST

from inferview.access.selectors import annotate_access
from inferview.api.errors import error_body
from inferview.community import dashboard as learner_dashboard
from inferview.community import pages as community_pages
from inferview.community.bookmarks import selectors as bookmark_selectors
from inferview.community.bookmarks import services as bookmark_services
from inferview.community.forms import ApproachForm, ProgressForm, RatingForm
from inferview.community.models import Rating
from inferview.community.practice import selectors as practice_selectors
from inferview.community.practice import services as practice_services
from questions.models import Question

from .common import (
    _apply_errors,
    _login_redirect,
    _question_action,
    _safe_next,
    _target,
    _wants_json,
    reader_zone,
)

_ID = re.compile(r"[0-9]{1,19}")  # BigAutoField ids: at most 19 ASCII digits


@require_POST
def bookmark_toggle(request: HttpRequest) -> HttpResponse:
    kind = (
        "question"
        if request.POST.get("question")
        else "concept"
        if request.POST.get("concept")
        else None
    )
    # ``str.isdigit`` accepts "²" and other non-ASCII digits that ``int`` rejects, and any
    # number of digits; both used to raise a 500. Ids are ASCII digits of a sane length.
    if kind is None or not _ID.fullmatch(request.POST[kind]):
        return JsonResponse(
            error_body(
                "invalid", "Say what to bookmark.", {"question": ["Give a question or concept id."]}
            ),
            status=400,
        )
    target = _target(kind, int(request.POST[kind]))
    item = next(iter(target.values()))
    back = _safe_next(request, item.get_absolute_url())
    if not request.user.is_authenticated:
        return _login_redirect(request, back)
    on = bookmark_services.bookmark_toggle(user=request.user, **target)
    if _wants_json(request):
        return JsonResponse(
            {"bookmarked": on, "count": bookmark_selectors.bookmark_count(request.user)}
        )
    messages.success(request, "Bookmarked." if on else "Bookmark removed.")
    return redirect(back)


@login_required
def bookmark_list(request: HttpRequest) -> HttpResponse:
    bookmarks = bookmark_selectors.bookmarks_for(request.user)
    questions = [b.question for b in bookmarks if b.question_id]
    community_pages.annotate_questions(
        request.user, questions, bookmarked={q.pk for q in questions}
    )
    annotate_access(request.user, questions + [b.concept for b in bookmarks if b.concept_id])
    return render(request, "community/bookmarks.html", {"bookmarks": bookmarks})


@_question_action
def practice_save(request: HttpRequest, question: Question) -> HttpResponse:
    url = question.get_absolute_url()
    form = ApproachForm(request.POST)
    if form.is_valid():
        reveal = form.cleaned_data["action"] == "reveal"
        try:
            practice_services.approach_save(
                user=request.user,
                question=question,
                text=form.cleaned_data["approach"],
                reveal=reveal,
            )
        except ValidationError as exc:
            _apply_errors(form, exc)
        except PermissionDenied as exc:
            form.add_error(None, str(exc))
        else:
            if _wants_json(request):  # site.js: the answer fold opened in the page
                return JsonResponse({"revealed": reveal, "saved": True})
            messages.success(
                request,
                "Approach saved. Now compare it with the answer." if reveal else "Approach saved.",
            )
            return redirect(url + ("#answer-heading" if reveal else "#practice"))
    if _wants_json(request):
        fields = {name: [str(e) for e in errs] for name, errs in form.errors.items()}
        return JsonResponse(
            error_body("invalid", "The approach was not saved.", fields), status=400
        )
    return render(
        request, "community/practice_form.html", {"form": form, "question": question}, status=400
    )


@_question_action
def review_rate(request: HttpRequest, question: Question) -> HttpResponse:
    url = question.get_absolute_url()
    form = RatingForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose again, hard, good or easy.")
        return redirect(url + "#practice")
    try:
        card = practice_services.review_rate(
            user=request.user, question=question, rating=form.cleaned_data["rating"]
        )
    except PermissionDenied as exc:
        messages.error(request, str(exc))
        return redirect(url)
    label = Rating(card.last_rating).label
    due = card.due.astimezone(reader_zone(request))
    messages.success(
        request, f"Rated {label}. Next review {date_format(due, 'j F Y, H:i')} {due.tzname()}."
    )
    return redirect(_safe_next(request, url + "#practice"))


@_question_action
def progress_set(request: HttpRequest, question: Question) -> HttpResponse:
    url = question.get_absolute_url()
    form = ProgressForm(request.POST)
    if form.is_valid():
        practice_services.progress_set(
            user=request.user, question=question, status=form.cleaned_data["status"]
        )
        messages.success(request, "Progress updated.")
    else:
        messages.error(request, "Choose not started, attempted or confident.")
    return redirect(_safe_next(request, url + "#practice"))


@login_required
def review_list(request: HttpRequest) -> HttpResponse:
    due, upcoming = practice_selectors.reviews_for(request.user)
    return render(request, "community/review.html", {"due": due, "upcoming": upcoming})


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(request, "community/dashboard.html", learner_dashboard.dashboard(request.user))
