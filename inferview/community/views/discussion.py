"""HTML views of discussion: comments on questions and concepts (post, edit, delete,
report) and the difficulty vote. Each is a plain form POST that redirects back to the
thread; ``community.discussion.services`` moderates and writes."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from inferview.community.discussion import selectors as discussion_selectors
from inferview.community.discussion import services as discussion_services
from inferview.community.forms import CommentForm, DifficultyForm, ReportForm
from inferview.community.models import Comment
from inferview.community.practice import services as practice_services
from inferview.community.ratelimits import comment_rate_limited
from questions.models import Question

from .common import _apply_errors, _login_redirect, _question_action, _target


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
                    user=request.user,
                    body=form.cleaned_data["body"],
                    parent=parent,
                    # the reply e-mail links to the host this reader uses (issue 29)
                    site=request.build_absolute_uri("/").rstrip("/"),
                    **target,
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
