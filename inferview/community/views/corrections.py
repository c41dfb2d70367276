"""HTML view of "Report a mistake": a plain form POST from a question, concept or guide
page that redirects back with a thank-you, or shows the form again with each error under
its field. ``community.corrections.services`` checks the quote and writes."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from inferview.community.corrections import selectors, services
from inferview.community.corrections.models import TargetType
from inferview.community.forms import CorrectionForm
from inferview.community.ratelimits import correction_retry_after

from .common import _apply_errors, _login_redirect, _safe_next


@require_POST
def correction_report(request: HttpRequest) -> HttpResponse:
    target_type = request.POST.get("target_type", "")
    try:
        target_id = int(request.POST.get("target_id", ""))
    except ValueError:
        target_id = 0
    target = (
        selectors.target_for(target_type=target_type, target_id=target_id)
        if target_type in TargetType.values
        else None
    )
    back = _safe_next(request, "/")
    if target is None and target_id:
        raise Http404("No such item.")
    if not request.user.is_authenticated:
        return _login_redirect(request, back)
    form = CorrectionForm(request.POST)
    status = 400
    retry_after = correction_retry_after(request)
    if retry_after is not None:
        form.is_valid()
        form.add_error(None, "That is ten reports today; thank you. Report more tomorrow.")
        status = 429
    elif form.is_valid() and target is not None:
        try:
            reported = services.correction_report(
                user=request.user,
                target=target,
                quote=form.cleaned_data["quote"],
                kind=form.cleaned_data["kind"],
                note=form.cleaned_data["note"],
            )
        except ValidationError as exc:
            _apply_errors(form, exc)
        else:
            if reported.created:
                messages.success(
                    request,
                    "Thank you: the authors will look at it. Your dashboard shows what "
                    "becomes of it.",
                )
            else:
                messages.success(
                    request,
                    "Thank you: someone reported that passage too; yours is added to their report.",
                )
            return redirect(back)
    response = render(
        request,
        "community/correction_form.html",
        {"form": form, "back": back, "target": target},
        status=status,
    )
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response
