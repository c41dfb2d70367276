"""Error pages. They render from the base template with no content context, so an error
page can never carry an answer's text."""

import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader

from inferview.api.errors import error_body
from inferview.outage import OUTAGE_ERRORS, answer_outage


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if request.path.startswith("/api/"):
        # An API client gets the API's error shape, also for a URL no route matches
        # (a run id that is not a UUID, a typo in the path).
        return JsonResponse(error_body("not_found", "No such resource."), status=404)
    body = loader.render_to_string("404.html", {}, request)
    return HttpResponse(body, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    exc = sys.exception()
    if isinstance(exc, OUTAGE_ERRORS):  # a service is away: 503, retry shortly
        return answer_outage(request, exc)
    body = loader.render_to_string("500.html", {})
    return HttpResponse(body, status=500)
