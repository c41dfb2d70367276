from questions.markdown import plain_text, render_markdown, render_untrusted_markdown


def test_authored_markdown_renders_tables_and_strips_script():
    html = render_markdown(
        '| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>alert(1)</script><a href="javascript:x">x</a>'
    )
    assert "<table>" in html and "<script" not in html and "javascript:" not in html


def test_rendering_is_cached(monkeypatch):
    from questions import markdown

    render_markdown("cached *once*")
    monkeypatch.setattr(markdown, "_md", None)  # would raise if rendered again
    assert "<em>once</em>" in render_markdown("cached *once*")


def test_untrusted_markdown_allows_no_raw_html():
    html = render_untrusted_markdown("<img src=x onerror=alert(1)> **ok**")
    assert "<img" not in html and "&lt;img" in html  # shown as text, never as a tag
    assert "<strong>ok</strong>" in html


def test_plain_text_truncates_on_a_word():
    assert plain_text("**one** two three four", 12) == "one two…"
