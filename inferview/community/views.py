"""HTML views for learners' tools. They adapt forms and services; nothing here decides.

Every action is a plain form POST that redirects back (so it works without JavaScript);
``static/js/community.js`` upgrades the bookmark toggle to ``fetch`` and asks for JSON
with ``Accept: application/json``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_http_methods, require_POST

from inferview.access.selectors import annotate_access
from inferview.api.errors import error_body
from inferview.community import dashboard as learner_dashboard
from inferview.community import pages as community_pages
from inferview.community.bookmarks import selectors as bookmark_selectors
from inferview.community.bookmarks import services as bookmark_services
from inferview.community.discussion import selectors as discussion_selectors
from inferview.community.discussion import services as discussion_services
from inferview.community.practice import selectors as practice_selectors
from inferview.community.practice import services as practice_services
from questions.models import Concept, Question
from questions.selectors import published_questions

from .forms import ApproachForm, CommentForm, DifficultyForm, ProgressForm, RatingForm, ReportForm
from .models import Comment, Rating
from .ratelimits import comment_rate_limited

_ID = re.compile(r"[0-9]{1,19}")  # BigAutoField ids: at most 19 ASCII digits


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _safe_next(request: HttpRequest, fallback: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback


def _login_redirect(request: HttpRequest, back: str) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse(error_body("not_authenticated", "Sign in first."), status=401)
    messages.info(
        request, "Sign in (or create a free account) to keep bookmarks, progress and comments."
    )
    return redirect(f"{reverse('account_login')}?{urlencode({'next': back})}")


def _question(pk: int) -> Question:
    return get_object_or_404(published_questions().select_related("track"), pk=pk)


def _question_action(view: Callable[[HttpRequest, Question], HttpResponse]):
    """A POST on a published question; a signed-out visitor is sent to sign in first."""

    @require_POST
    @functools.wraps(view)
    def wrapper(request: HttpRequest, pk: int) -> HttpResponse:
        question = _question(pk)
        if not request.user.is_authenticated:
            return _login_redirect(request, question.get_absolute_url())
        return view(request, question)

    return wrapper


def _concept(pk: int) -> Concept:
    return get_object_or_404(Concept.objects.published(), pk=pk)


def _target(kind: str, pk: int) -> dict[str, Any]:
    if kind == "question":
        return {"question": _question(pk)}
    if kind == "concept":
        return {"concept": _concept(pk)}
    raise Http404("No such discussion.")


def _apply_errors(form, exc: ValidationError) -> None:
    if hasattr(exc, "error_dict"):
        for name, errors in exc.message_dict.items():
            form.add_error(name if name in form.fields else None, errors)
    else:
        form.add_error(None, exc.messages)


# --- Bookmarks ----------------------------------------------------------------------------


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


# --- Practice and review -------------------------------------------------------------------


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
            messages.success(
                request,
                "Approach saved. Now compare it with the answer." if reveal else "Approach saved.",
            )
            return redirect(url + ("#answer-heading" if reveal else "#practice"))
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
    messages.success(
        request, f"Rated {label}. Next review {date_format(card.due, 'j F Y, H:i')} UTC."
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


# --- Difficulty ----------------------------------------------------------------------------


@_question_action
def difficulty_vote(request: HttpRequest, question: Question) -> HttpResponse:
    url = question.get_absolute_url()
    form = DifficultyForm(request.POST)
    if form.is_valid():
        practice_services.difficulty_vote(
            user=request.user, question=question, felt=form.cleaned_data["felt"]
        )
        messages.success(request, "Thanks: your sense of the difficulty is counted.")
    else:
        messages.error(request, "Choose easier, as labelled or harder.")
    return redirect(url + "#difficulty")


# --- Discussion ----------------------------------------------------------------------------


def _thread_url(comment: Comment) -> str:
    """The page of the discussion that shows ``comment`` (newest first, the default)."""
    top = comment if comment.parent_id is None else comment.parent
    target = {"question_id": top.question_id} if top.question_id else {"concept_id": top.concept_id}
    newer = Comment.objects.filter(
        parent__isnull=True, **target, created_at__gt=top.created_at
    ).count()
    page = newer // discussion_selectors.COMMENTS_PER_PAGE + 1
    base = top.target.get_absolute_url()
    query = f"?cpage={page}" if page > 1 else ""
    return f"{base}{query}#comment-{comment.pk}"


@require_POST
def comment_post(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    target = _target(kind, pk)
    item = next(iter(target.values()))
    if not request.user.is_authenticated:
        return _login_redirect(request, item.get_absolute_url() + "#discussion-heading")
    form = CommentForm(request.POST)
    status = 400
    if comment_rate_limited(request):
        form.is_valid()
        form.add_error(
            None, "You are posting faster than we allow. Wait a minute, then post again."
        )
        status = 429
    elif form.is_valid():
        parent = None
        if form.cleaned_data.get("parent"):
            parent = (
                Comment.objects.filter(pk=form.cleaned_data["parent"])
                .select_related("parent")
                .first()
            )
            if parent is None:
                form.add_error("parent", "That comment no longer exists.")
        if not form.errors:
            try:
                comment = discussion_services.comment_create(
                    user=request.user, body=form.cleaned_data["body"], parent=parent, **target
                )
            except ValidationError as exc:
                _apply_errors(form, exc)
            else:
                messages.success(request, "Reply posted." if parent else "Comment posted.")
                return redirect(_thread_url(comment))
    return render(
        request,
        "community/comment_form.html",
        {"form": form, "item": item, "kind": kind, "mode": "post"},
        status=status,
    )


def _own_comment(request: HttpRequest, pk: int) -> Comment:
    comment = get_object_or_404(
        Comment.objects.select_related("question__track", "concept", "parent"), pk=pk
    )
    if comment.author_id != request.user.pk:
        raise PermissionDenied("Only the author can change a comment.")
    if not comment.is_visible:
        raise PermissionDenied("This comment can no longer be changed.")
    return comment


@login_required
@require_http_methods(["GET", "POST"])
def comment_edit(request: HttpRequest, pk: int) -> HttpResponse:
    comment = _own_comment(request, pk)
    form = CommentForm(
        request.POST if request.method == "POST" else None, initial={"body": comment.body}
    )
    if request.method == "POST" and form.is_valid():
        try:
            discussion_services.comment_edit(
                user=request.user, comment=comment, body=form.cleaned_data["body"]
            )
        except ValidationError as exc:
            _apply_errors(form, exc)
        else:
            messages.success(request, "Comment updated.")
            return redirect(_thread_url(comment))
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "community/comment_form.html",
        {"form": form, "item": comment.target, "comment": comment, "mode": "edit"},
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def comment_delete(request: HttpRequest, pk: int) -> HttpResponse:
    comment = _own_comment(request, pk)
    if request.method == "POST":
        discussion_services.comment_delete(user=request.user, comment=comment)
        messages.success(request, "Comment deleted. Replies stay in the thread.")
        return redirect(_thread_url(comment))
    return render(
        request, "community/comment_delete.html", {"comment": comment, "item": comment.target}
    )


@login_required
@require_http_methods(["GET", "POST"])
def comment_report(request: HttpRequest, pk: int) -> HttpResponse:
    comment = get_object_or_404(
        discussion_selectors.reportable_comments().select_related("question__track", "concept"),
        pk=pk,
    )
    form = ReportForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            discussion_services.comment_report(
                user=request.user,
                comment=comment,
                reason=form.cleaned_data["reason"],
                note=form.cleaned_data["note"],
            )
        except ValidationError as exc:
            _apply_errors(form, exc)
        else:
            messages.success(request, "Thanks. A moderator will look at it.")
            return redirect(_thread_url(comment))
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "community/comment_report.html",
        {"form": form, "comment": comment, "item": comment.target},
        status=status,
    )
