"""The site's URLs plus /__bare__/, the floor the page benchmark compares against: a view
that does nothing, behind the same middleware stack as every page."""

from django.http import HttpResponse
from django.urls import path

from inferview.urls import urlpatterns as site


def bare(request):
    return HttpResponse("ok")


urlpatterns = [path("__bare__/", bare), *site]
