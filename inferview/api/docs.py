"""Redoc's bundle, served from this site without its one outside request.

drf-spectacular-sidecar ships Redoc's standalone bundle so the API docs need no CDN, but
the bundle's side menu still draws Redocly's logo from ``cdn.redoc.ly``. This view serves
the sidecar's file with that address blanked: an ``<img>`` with an empty ``src`` makes no
request, fails, and Redoc's own error handler then drops it. The text link to Redocly
stays.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import drf_spectacular_sidecar
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

BUNDLE = (
    Path(drf_spectacular_sidecar.__file__).parent
    / "static/drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
)
OUTSIDE_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@cache
def _bundle() -> bytes:
    text = BUNDLE.read_text(encoding="utf-8")
    return text.replace(OUTSIDE_LOGO, "").encode("utf-8")


@require_GET
@cache_control(public=True, max_age=24 * 60 * 60)
def redoc_bundle(request: HttpRequest) -> HttpResponse:
    return HttpResponse(_bundle(), content_type="application/javascript; charset=utf-8")
