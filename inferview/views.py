"""Error pages. They render from the base template with no content context, so an error
page can never carry an answer's text."""

import sys

from django.http import HttpRequest, HttpResponse
from django.template import loader

from inferview.outage import OUTAGE_ERRORS, answer_outage


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    body = loader.render_to_string("404.html", {}, request)
    return HttpResponse(body, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    exc = sys.exception()
    if isinstance(exc, OUTAGE_ERRORS):  # a service is away: 503, retry shortly
        return answer_outage(request, exc)
    body = loader.render_to_string("500.html", {})
    return HttpResponse(body, status=500)
