"""The API docs load their JavaScript and CSS from our own static files, not a CDN."""

import re

import pytest


@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/"])
def test_api_docs_use_only_local_assets(client, url):
    html = client.get(url).content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html) + re.findall(
        r"(?:src|href)='([^']+)'", html
    )
    external = [s for s in sources if re.match(r"^(https?:)?//", s)]
    assert sources and external == [], external


def test_redoc_bundle_is_served_without_its_cdn_logo(client):
    """Redoc's side menu would draw Redocly's logo from cdn.redoc.ly: the bundle the page
    loads is the sidecar's with that address blanked, and the page loads that bundle."""
    page = client.get("/api/redoc/").content.decode()
    assert 'src="/api/redoc/redoc.standalone.js"' in page
    bundle = client.get("/api/redoc/redoc.standalone.js")
    assert bundle.status_code == 200 and bundle["Content-Type"].startswith("application/javascript")
    body = bundle.content.decode()
    assert "cdn.redoc.ly" not in body and "Redoc" in body and len(body) > 100_000
