"""A check's options are shown in a fixed shuffle of their authored order (the right answer
is not always B), while their values stay the authored indexes the grader reads."""

from __future__ import annotations

import collections

from questions.lessons import display_order


def item(prompt: str, n: int = 4) -> dict:
    return {"kind": "choice", "prompt": prompt, "choices": [f"option {i}" for i in range(n)]}


def test_the_order_is_a_permutation_fixed_per_prompt():
    first = display_order(item("Which phase is memory-bound at batch 1?"))
    assert sorted(first) == [0, 1, 2, 3]
    assert display_order(item("Which phase is memory-bound at batch 1?")) == first


def test_an_answer_authored_second_lands_in_every_position():
    where = collections.Counter(display_order(item(f"Question {k}?")).index(1) for k in range(200))
    assert set(where) == {0, 1, 2, 3}
    assert max(where.values()) < 100  # no position takes half


def test_the_page_posts_authored_indexes(client, db):
    from tests.factories import LessonFactory, PartFactory

    lesson = LessonFactory(part=PartFactory(number=1, slug="p"), number=1, slug="l", access="open")
    html = client.get(lesson.get_absolute_url()).content.decode()
    choice = next(i for i in lesson.check_items if i["kind"] == "choice")
    shown = [html.index(f"> {text}</label>") for text in choice["choices"]]
    order = display_order(choice)
    assert sorted(range(len(shown)), key=shown.__getitem__) == order
