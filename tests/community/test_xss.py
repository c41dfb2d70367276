"""A corpus of XSS and Markdown-abuse payloads through the comment pipeline: Markdown
with raw HTML disabled, then nh3. No raw tag, handler, script URL or style survives.
(The same corpus is rendered in Chromium in ``test_browser.py``.)"""

from html.parser import HTMLParser

import pytest

from inferview.community.discussion import services as discussion_services
from questions.markdown import UNTRUSTED_TAGS, render_untrusted_markdown
from tests.factories import QuestionFactory

PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](  javascript:alert(1)  )",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![x](javascript:alert(1))",
    "![x](data:image/svg+xml,<svg onload=alert(1)>)",
    '<a href="javascript:alert(1)">x</a>',
    '<iframe src="javascript:alert(1)"></iframe>',
    "<body onload=alert(1)>",
    '<div style="background:url(javascript:alert(1))">styled</div>',
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    "<details open ontoggle=alert(1)>",
    "<input autofocus onfocus=alert(1)>",
    '<object data="javascript:alert(1)"></object>',
    '<embed src="data:text/html,<script>alert(1)</script>">',
    "<scr<script>ipt>alert(1)</script>",
    "<<script>script>alert(1)<</script>/script>",
    '<img src="x" onerror="alert(1)"',
    '<a href="&#106;avascript:alert(1)">x</a>',
    "[x](&#106;avascript:alert(1))",
    "[x](java\tscript:alert(1))",
    "<style>@import 'javascript:alert(1)';</style>",
    "<link rel=stylesheet href=javascript:alert(1)>",
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<form action="javascript:alert(1)"><button>x</button></form>',
    '<base href="javascript:alert(1)//">',
    "`<script>alert(1)</script>`",
    "```html\n<script>alert(1)</script>\n```",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    '"><img src=x onerror=alert(1)>',
    "[x](vbscript:msgbox(1))",
    '<a href="https://ok.example" onclick="alert(1)">ok</a>',
    '<video><source onerror="alert(1)"></video>',
    "<!--><script>alert(1)</script>-->",
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    "[<img src=x onerror=alert(1)>](https://example.com)",
    "<template><script>alert(1)</script></template>",
    "javascript:alert(1)",
    '<a href="data:text/html,<script>alert(1)</script>">x</a>',
    "**bold** <b onmouseover=alert(1)>hover</b>",
    '[ok](https://example.com "title" onmouseover=alert(1))',
    '<https://example.com/" onmouseover="alert(1)>',
    "<javascript:alert(1)>",
    "[a](<javascript:alert(1)>)",
    "> <script>alert(1)</script>\n> quote",
    "| a | b |\n|---|---|\n| <script>alert(1)</script> | <img src=x onerror=alert(1)> |",
    "\u0000<script>alert(1)</script>",
    "<svg><style>{}</style><img src=x onerror=alert(1)></svg>",
]
ALLOWED_SCHEMES = ("http://", "https://", "mailto:")


class TagAudit(HTMLParser):
    def __init__(self):
        super().__init__()
        self.problems = []

    def handle_starttag(self, tag, attrs):
        if tag not in UNTRUSTED_TAGS:
            self.problems.append(f"tag <{tag}>")
        for name, value in attrs:
            if tag == "a" and name in {"href", "title", "rel"}:
                if name == "href" and not (value or "").startswith(ALLOWED_SCHEMES):
                    self.problems.append(f"href {value!r}")
                continue
            self.problems.append(f"attribute {name}={value!r} on <{tag}>")


def test_the_corpus_is_big_enough():
    assert len(PAYLOADS) >= 30


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_leaves_no_raw_tag_handler_or_script_url(payload):
    html = str(render_untrusted_markdown(payload))
    audit = TagAudit()
    audit.feed(html)
    assert audit.problems == [], html
    lowered = html.lower()
    for needle in (
        "<script",
        "<svg",
        "<img",
        "<iframe",
        "<style",
        "<object",
        "<embed",
        "<form",
        "<meta",
        "<base",
        "<link",
        "<input",
        "<math",
    ):
        assert needle not in lowered, (needle, html)


@pytest.mark.django_db
def test_stored_comment_html_is_the_sanitised_rendering(free_user):
    q = QuestionFactory()
    for payload in PAYLOADS:
        c = discussion_services.comment_create(
            user=free_user, question=q, body=payload.replace("\u0000", "") or "x"
        )
        assert c.body_html == str(render_untrusted_markdown(c.body))


@pytest.mark.django_db
def test_page_escapes_payloads(client, free_user):
    q = QuestionFactory()
    for payload in PAYLOADS[:20]:
        discussion_services.comment_create(user=free_user, question=q, body=payload)
    html = client.get(q.get_absolute_url()).content.decode()
    discussion = html[html.index('id="discussion-heading"') :]
    assert "<script>alert" not in discussion and "onerror=alert" not in discussion.replace(
        "onerror=alert(1)&gt;", ""
    )


def test_a_nul_byte_is_a_field_error_not_a_database_error(free_user):
    from django.core.exceptions import ValidationError

    q = QuestionFactory()
    with pytest.raises(ValidationError) as exc:
        discussion_services.comment_create(user=free_user, question=q, body="hi\u0000there")
    assert "Null characters" in str(exc.value.message_dict["body"])
