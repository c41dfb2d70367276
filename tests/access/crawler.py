"""A small crawler for the leak test.

It fetches, as one viewer (a test client), every URL in the sitemap, every same-site
page linked from those pages, every GET endpoint in the OpenAPI schema (list pages
followed through their pagination, path parameters filled from the matching list
endpoint: the one the path hangs off or, where that is only a prefix, the one listing the
same resource), search for each guarded marker, and a few error pages. It returns every
response body so the test can look for text the viewer must not see.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

HREF = re.compile(r"""href=["']([^"'#]+)""")
LOC = re.compile(r"<loc>([^<]+)</loc>")
PARAM = re.compile(r"\{([^}]+)\}")
SKIP_PREFIXES = ("/static/", "/admin/", "/accounts/logout", "/media/")


@dataclass
class Crawl:
    bodies: dict[str, str] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    api_paths: list[str] = field(default_factory=list)

    def leaks(self, markers) -> list[tuple[str, str]]:
        return [(url, m) for url, body in self.bodies.items() for m in markers if m in body]

    def found(self, marker) -> bool:
        return any(marker in body for body in self.bodies.values())


def _path(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("", "http", "https") or not parts.path.startswith("/"):
        return None
    if parts.netloc and parts.netloc not in ("testserver", "example.com"):
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _get(client, crawl: Crawl, url: str):
    """Fetch ``url`` once per crawl; record its body and headers. Returns the response."""
    response = client.get(url, follow=False)
    crawl.statuses[url] = response.status_code
    body = b"".join(response.streaming_content) if response.streaming else response.content
    # Headers leave the server too (a redirect's Location, for one), so they are checked.
    headers = "\n".join(f"{k}: {v}" for k, v in response.items())
    crawl.bodies[url] = body.decode("utf-8", errors="replace") + "\n" + headers
    return response


def _get_json(client, crawl: Crawl, url: str):
    response = _get(client, crawl, url)
    if response.status_code != 200 or "json" not in response.get("Content-Type", ""):
        return None
    return response.json()


def _follow_pages(client, crawl: Crawl, url: str) -> list[dict]:
    """All items of a (possibly paginated) list endpoint."""
    items: list[dict] = []
    seen = set()
    while url and url not in seen:
        seen.add(url)
        data = _get_json(client, crawl, url)
        if isinstance(data, dict) and "results" in data:
            items += [i for i in data["results"] if isinstance(i, dict)]
            url = _path(data.get("next") or "") if data.get("next") else None
        elif isinstance(data, list):
            items += [i for i in data if isinstance(i, dict)]
            url = None
        else:
            url = None
    return items


def _list_for(parent: str, paths) -> str:
    """The list endpoint whose items fill a parameter hanging off ``parent``.

    Usually ``parent`` itself. /api/v1/practice/questions/{id}/variant/ hangs off
    /api/v1/practice/questions/, which is only a prefix; its ids are those of the
    parameter-free list of the same resource, /api/v1/questions/ (the shortest such).
    """
    if "get" in paths.get(parent, {}):
        return parent
    resource = "/" + parent.rstrip("/").rsplit("/", 1)[-1] + "/"
    lists = [
        p for p, ops in paths.items() if "get" in ops and p.endswith(resource) and "{" not in p
    ]
    return min(lists, key=len) if lists else parent


def crawl_site(client, *, search_terms=(), extra_urls=()) -> Crawl:
    crawl = Crawl()

    # 1. The sitemap and every URL in it.
    _get(client, crawl, "/sitemap.xml")
    sitemap = crawl.bodies["/sitemap.xml"]
    first = [p for p in (_path(u) for u in LOC.findall(sitemap)) if p]
    assert first, "the sitemap lists no URLs: the crawl would prove nothing"
    for url in first:
        _get(client, crawl, url)

    # 2. Every same-site page linked from them.
    linked = set()
    for url in first:
        for href in HREF.findall(crawl.bodies[url]):
            path = _path(href.replace("&amp;", "&"))
            if path and not path.startswith(SKIP_PREFIXES):
                linked.add(path)
    for url in sorted(linked):
        _get(client, crawl, url)

    # 3. Every GET endpoint in the OpenAPI schema.
    schema = client.get("/api/schema/", {"format": "json"}, HTTP_ACCEPT="application/json")
    crawl.bodies["/api/schema/"] = schema.content.decode()
    spec = json.loads(schema.content)
    list_cache: dict[str, list[dict]] = {}
    for template, operations in sorted(spec["paths"].items()):
        if "get" not in operations:
            continue
        crawl.api_paths.append(template)
        names = PARAM.findall(template)
        if not names:
            list_cache[template] = _follow_pages(client, crawl, template)
            continue
        # Fill the first parameter from the list endpoint the path hangs off.
        name = names[0]
        parent = _list_for(template.split("{" + name + "}")[0], spec["paths"])
        if parent not in list_cache:
            list_cache[parent] = _follow_pages(client, crawl, parent)
        key = "id" if name in ("id", "pk") else name
        values = [str(item[key]) for item in list_cache[parent] if key in item]
        for value in values:
            url = template.replace("{" + name + "}", value, 1)
            if PARAM.search(url):
                continue  # a second parameter we cannot fill generically
            _follow_pages(client, crawl, url)

    # 4. Search, for the guarded words themselves, in pages and the API.
    for term in search_terms:
        _get(client, crawl, f"/search/?q={term}")
        if "/api/v1/search/" in spec["paths"]:
            _get(client, crawl, f"/api/v1/search/?q={term}")

    # 5. Error pages and anything else the test wants.
    for url in (
        "/tracks/no-such-track/",
        "/concepts/no-such-concept/",
        "/api/v1/questions/999999/",
        *extra_urls,
    ):
        _get(client, crawl, url)
    return crawl
