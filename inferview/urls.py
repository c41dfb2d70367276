from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from inferview.api.docs import redoc_bundle
from inferview.pages import calculators as calculator_pages
from questions.sitemaps import SITEMAPS

admin.site.site_header = "Inferview authoring"
admin.site.site_title = "Inferview authoring"
admin.site.index_title = "Tracks, questions, concepts and guides"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("account/", include("inferview.accounts.urls")),
    path("", include("inferview.access.urls")),
    path("", include("inferview.community.urls")),
    # ahead of the app's own route: the page cached whole for every reader
    path("calculators/<slug:slug>/", calculator_pages.calculator),
    path("calculators/", include("calculators.urls")),
    path("api/v1/calculators/", include("calculators.api_urls")),
    path("api/v1/", include("inferview.access.api_urls")),
    path("api/v1/", include("inferview.accounts.api_urls")),
    path("api/v1/", include("inferview.community.api_urls")),
    path("api/v1/", include("inferview.pages.content_api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file (?script), not inline,
    # so the Content Security Policy needs no 'unsafe-inline' for it.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("api/redoc/redoc.standalone.js", redoc_bundle, name="api-redoc-bundle"),
    path("sitemap.xml", sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
    path("", include("inferview.pages.content_urls")),
]

handler404 = "inferview.views.page_not_found"
handler500 = "inferview.views.server_error"
