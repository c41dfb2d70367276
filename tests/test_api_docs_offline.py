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
