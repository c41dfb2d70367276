"""The profile's small writes that pages make without a form page of their own."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from . import profile


@login_required
@require_POST
def theme(request: HttpRequest) -> HttpResponse:
    """The header's dark-mode toggle saves here (site.js posts it), so the choice follows
    the learner to other devices. Without JavaScript the profile page's form sets it."""
    try:
        profile.set_theme(user=request.user, theme=request.POST.get("theme", ""))
    except ValidationError as exc:
        return JsonResponse(
            {"error": {"code": "invalid", "message": "Invalid theme.", "fields": exc.message_dict}},
            status=400,
        )
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"theme": request.user.theme})
    return redirect("accounts:overview")
