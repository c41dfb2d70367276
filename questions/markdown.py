"""Markdown to safe HTML.

markdown-it-py renders CommonMark plus tables; nh3 (the Ammonia sanitiser) then keeps only
an allow-list of tags and attributes, so authored or user-written Markdown can never carry
script, event handlers or ``javascript:`` links. ``{{calc ...}}`` directives are expanded by
the calculators before rendering, so worked numbers always come from the kernels.

Rendering is cached by a hash of the source text (and a renderer version), so a page view
never re-renders unchanged Markdown, and an edit changes the key instead of needing an
invalidation.
"""

from __future__ import annotations

import hashlib

import nh3
from django.core.cache import cache
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

RENDERER_VERSION = "3"
CACHE_SECONDS = 60 * 60 * 24 * 7

_md = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False}).enable(
    ["table", "strikethrough"]
)
# Comments (and therefore the untrusted-Markdown path) never allow raw HTML.
_md_untrusted = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em",
    "h2", "h3", "h4", "h5", "h6", "hr", "i", "li", "ol", "p", "pre", "s", "span", "strong",
    "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul", "caption",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "code": {"class"},
    "div": {"class"},
    "span": {"class", "title"},
    "table": {"class"},
    "td": {"class", "align"},
    "th": {"class", "align", "scope"},
    "p": {"class"},
    "li": {"class"},
    "ul": {"class"},
}
UNTRUSTED_TAGS = ALLOWED_TAGS - {"div", "span", "h2", "table", "thead", "tbody", "tr", "td", "th", "caption"}


def sanitise(html: str) -> str:
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


def _expand_directives(text: str) -> str:
    from calculators.directive import expand_calc_directives

    return expand_calc_directives(text)


def render_markdown(text: str) -> SafeString:
    """Render trusted (authored) Markdown, with calculator directives, to sanitised HTML."""
    if not text:
        return mark_safe("")
    from calculators.directive import DIRECTIVE_VERSION

    # The directive version is in the key: a kernel or spec change re-renders the figures.
    key = f"md:{RENDERER_VERSION}.{DIRECTIVE_VERSION}:{hashlib.sha256(text.encode()).hexdigest()}"
    html = cache.get(key)
    if html is None:
        html = sanitise(_md.render(_expand_directives(text)))
        cache.set(key, html, CACHE_SECONDS)
    return mark_safe(html)


def render_untrusted_markdown(text: str) -> SafeString:
    """Render user-written Markdown (comments): no raw HTML, no directives, sanitised."""
    if not text:
        return mark_safe("")
    key = f"mdu:{RENDERER_VERSION}:{hashlib.sha256(text.encode()).hexdigest()}"
    html = cache.get(key)
    if html is None:
        html = nh3.clean(
            _md_untrusted.render(text),
            tags=UNTRUSTED_TAGS,
            attributes={"a": {"href", "title"}},
            url_schemes={"http", "https", "mailto"},
            link_rel="noopener noreferrer nofollow ugc",
        )
        cache.set(key, html, CACHE_SECONDS)
    return mark_safe(html)


def plain_text(text: str, limit: int | None = None) -> str:
    """Markdown source reduced to plain text (for meta descriptions and snippets)."""
    html = _md_untrusted.render(text or "")
    plain = nh3.clean(html, tags=set()).replace("\n", " ")
    plain = " ".join(plain.split())
    if limit and len(plain) > limit:
        plain = plain[: limit - 1].rsplit(" ", 1)[0] + "…"
    return plain
