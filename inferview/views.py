"""Error pages. They render from the base template with no content context, so an error
page can never carry an answer's text."""

from django.http import HttpRequest, HttpResponse
from django.template import loader


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    body = loader.render_to_string("404.html", {}, request)
    return HttpResponse(body, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    body = loader.render_to_string("500.html", {})
    return HttpResponse(body, status=500)
