"""Markdown to safe HTML.

markdown-it-py renders CommonMark plus tables; nh3 (the Ammonia sanitiser) then keeps only
an allow-list of tags and attributes, so authored or user-written Markdown can never carry
script, event handlers or ``javascript:`` links. ``{{calc ...}}`` directives are expanded by
the calculators before rendering, so worked numbers always come from the kernels.

Images are diagrams kept with the content (``content/diagrams/*.svg`` or ``.png``, served
as static files): ``![alt](diagrams/name.svg "Caption")`` renders a ``<figure>`` with the caption.
Any other image source is refused at render (a visible error, which the content check
and the admin form report first), and the sanitiser drops an ``img`` whose ``src`` is not
one of ours, so authored HTML cannot pull in a third-party image either.

Rendering is cached by a hash of the source text (and a renderer version), so a page view
never re-renders unchanged Markdown, and an edit changes the key instead of needing an
invalidation.
"""

from __future__ import annotations

import hashlib
import logging
import re
from html import escape, unescape

import nh3
from django.conf import settings
from django.core.cache import cache
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from .validation import DIAGRAM_SRC  # one rule for the renderer, the admin form and the check

logger = logging.getLogger(__name__)

RENDERER_VERSION = "5"
CACHE_SECONDS = 60 * 60 * 24 * 7

_md = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False}).enable(
    ["table", "strikethrough"]
)


def diagram_url(src: str) -> str:
    """The static URL of a content diagram (hashed by the manifest storage in production)."""
    from django.contrib.staticfiles.storage import staticfiles_storage

    return staticfiles_storage.url(src)


def _render_image(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = self.renderInlineAsText(token.children or [], options, env).strip()
    caption = str(token.attrGet("title") or "").strip()
    if not DIAGRAM_SRC.match(src):
        return (
            f'<span class="calc-error">image refused: {escape(src)} is not a diagram of ours</span>'
        )
    try:
        url = diagram_url(src)
    except ValueError:  # the manifest has no such file
        return f'<span class="calc-error">missing diagram {escape(src)}</span>'
    figcaption = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return (
        # The image is a link to the SVG itself: on a phone the figure scrolls sideways at a
        # legible size (site.css) and a tap opens it full size, and the scrolling region
        # holds a focusable element, so a keyboard can scroll it too.
        f'<figure class="diagram"><a href="{escape(url)}">'
        f'<img src="{escape(url)}" alt="{escape(alt)}" loading="lazy" decoding="async"></a>'
        f"{figcaption}</figure>"
    )


_md.add_render_rule("image", _render_image)

# A figure cannot sit inside a paragraph; a diagram on its own line is lifted out of it.
_FIGURE_IN_P = re.compile(r"<p>\s*(<figure class=\"diagram\">.*?</figure>)\s*</p>", re.DOTALL)

# Comments (and therefore the untrusted-Markdown path) never allow raw HTML.
_md_untrusted = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])

ALLOWED_TAGS = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "dd",
    "del",
    "div",
    "dl",
    "dt",
    "em",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "li",
    "ol",
    "p",
    "pre",
    "s",
    "span",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
    "caption",
    "figure",
    "figcaption",
    "img",
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
    "figure": {"class"},
    "img": {"src", "alt", "loading", "decoding"},
}
UNTRUSTED_TAGS = ALLOWED_TAGS - {
    "div",
    "span",
    "h2",
    "table",
    "thead",
    "tbody",
    "tr",
    "td",
    "th",
    "caption",
    "figure",
    "figcaption",
    "img",
}


def _own_images_only(element: str, attribute: str, value: str) -> str | None:
    """Keep an ``img`` ``src`` only when it points at our own diagrams."""
    if element == "img" and attribute == "src":
        return value if value.startswith(f"{settings.STATIC_URL}diagrams/") else None
    return value


# nh3 (Ammonia) also keeps its generic attributes, "lang" and "title", on every allowed
# tag unless the "*" entry names others: without this, '<p title=x>' passed the allow-list
# (found by benchmarks/fuzz.py). Nothing else may be allowed beyond the lists above.
NO_GENERIC_ATTRIBUTES: dict[str, set[str]] = {"*": set()}


def sanitise(html: str) -> str:
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES | NO_GENERIC_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
        attribute_filter=_own_images_only,
    )


def _expand_directives(text: str) -> str:
    from calculators.directive import expand_calc_directives

    return expand_calc_directives(text)


def _cache_get(key: str) -> str | None:
    """A cached rendering, or None. The cache only saves work: when it cannot be reached
    the text is rendered again, so a Redis outage slows a page down and never fails it."""
    try:
        return cache.get(key)
    except Exception:
        logger.warning("Markdown cache read failed; rendering live", exc_info=True)
        return None


def _cache_set(key: str, html: str) -> None:
    try:
        cache.set(key, html, CACHE_SECONDS)
    except Exception:
        logger.warning("Markdown cache write failed", exc_info=True)


def render_markdown(text: str) -> SafeString:
    """Render trusted (authored) Markdown, with calculator directives, to sanitised HTML."""
    if not text:
        return mark_safe("")
    from calculators.directive import DIRECTIVE_VERSION

    # The directive version is in the key: a kernel or spec change re-renders the figures.
    key = f"md:{RENDERER_VERSION}.{DIRECTIVE_VERSION}:{hashlib.sha256(text.encode()).hexdigest()}"
    html = _cache_get(key)
    if html is None:
        html = sanitise(_FIGURE_IN_P.sub(r"\1", _md.render(_expand_directives(text))))
        _cache_set(key, html)
    return mark_safe(html)


def render_untrusted_markdown(text: str) -> SafeString:
    """Render user-written Markdown (comments): no raw HTML, no directives, sanitised."""
    if not text:
        return mark_safe("")
    key = f"mdu:{RENDERER_VERSION}:{hashlib.sha256(text.encode()).hexdigest()}"
    html = _cache_get(key)
    if html is None:
        html = nh3.clean(
            _md_untrusted.render(text),
            tags=UNTRUSTED_TAGS,
            attributes={"a": {"href", "title"}} | NO_GENERIC_ATTRIBUTES,
            url_schemes={"http", "https", "mailto"},
            link_rel="noopener noreferrer nofollow ugc",
        )
        _cache_set(key, html)
    return mark_safe(html)


def plain_text(text: str, limit: int | None = None) -> str:
    """Markdown source reduced to plain text (meta descriptions, excerpts, snippets).

    The result is text, not HTML: "<b>" comes back as "<b>", and the template escapes it
    once. (nh3 returns escaped HTML; unescaping it here avoids "&lt;b&gt;" on the page.)
    """
    html = _md_untrusted.render(text or "")
    plain = unescape(nh3.clean(html, tags=set())).replace("\n", " ")
    plain = " ".join(plain.split())
    if limit and len(plain) > limit:
        plain = plain[: limit - 1].rsplit(" ", 1)[0] + "…"
    return plain
