"""Diagrams render as captioned figures from our own static files only; references render
as "Further reading" beside the answer, and only where the answer itself is readable."""

import pytest

from questions.markdown import render_markdown, render_untrusted_markdown
from tests.factories import ConceptFactory, QuestionFactory

REF = {
    "title": "PagedAttention",
    "publisher": "SOSP",
    "year": 2023,
    "url": "https://arxiv.org/abs/2309.06180",
}


def test_a_diagram_becomes_a_figure_with_alt_text_and_caption():
    html = render_markdown(
        'Before.\n\n![Blocks of KV cache](diagrams/paged-kv.svg "Paged KV blocks")\n\nAfter.'
    )
    assert (
        '<figure class="diagram"><a href="/static/diagrams/paged-kv.svg" rel="noopener noreferrer nofollow">'
        '<img src="/static/diagrams/paged-kv.svg" alt="Blocks of KV cache"' in html
    )
    assert "<figcaption>Paged KV blocks</figcaption></figure>" in html
    assert "<p><figure" not in html  # lifted out of its paragraph


@pytest.mark.parametrize(
    "source",
    [
        '![A cat](https://example.com/cat.png "Cat")',
        '![A cat](//example.com/cat.png "Cat")',
        '![Up](../../etc/passwd "x")',
        '<img src="https://example.com/track.png" alt="x">',
    ],
)
def test_images_from_elsewhere_never_reach_the_page(source):
    html = render_markdown(source)
    assert "example.com" not in html.replace(
        "image refused: https://example.com/cat.png", ""
    ).replace("image refused: //example.com/cat.png", "")
    assert 'src="http' not in html and 'src="//' not in html and 'passwd"' not in html


def test_comments_cannot_embed_images():
    html = render_untrusted_markdown('![x](diagrams/paged-kv.svg "c")')
    assert "<img" not in html


@pytest.mark.django_db
def test_further_reading_follows_a_readable_answer_only(client):
    open_q = QuestionFactory(access="open", references=[REF])
    locked = QuestionFactory(access="premium", references=[REF | {"title": "Locked source"}])
    page = client.get(open_q.get_absolute_url()).content.decode()
    assert "Further reading" in page and 'href="https://arxiv.org/abs/2309.06180"' in page
    assert "SOSP, 2023" in page
    locked_page = client.get(locked.get_absolute_url()).content.decode()
    assert "Locked source" not in locked_page


@pytest.mark.django_db
def test_concept_pages_list_their_references(client):
    concept = ConceptFactory(access="open", references=[REF])
    assert "Further reading" in client.get(concept.get_absolute_url()).content.decode()
