"""The course pages' markup for assistive technology and unreadable answers (QA walk of
issue 26): a part's region on /course/ is named by its heading, and a check yourself with
answers the server could not read names and links those questions, and ties each note to
its field (radio buttons included)."""

from __future__ import annotations

import re

from tests.questions.test_course_pages import course, free_client  # noqa: F401 (fixtures)


def test_each_part_region_is_named_by_its_heading(client, course):  # noqa: F811
    html = client.get("/course/").content.decode()
    sections = re.findall(r'<section class="course-part[^>]*aria-labelledby="([^"]+)"', html)
    assert sections, "no part sections"
    for target in sections:
        # the label is the part's h2, not the section itself (which would name the
        # region with the whole list of lessons)
        assert re.search(rf'<h2 id="{re.escape(target)}">', html), target


def test_unreadable_answers_are_named_and_linked_to_their_fields(free_client, course):  # noqa: F811
    url = course["second"].get_absolute_url() + "check/"
    # item 1 (a choice) left empty, item 2 (a number) not a number, item 3 answered
    response = free_client.post(url, {"item-2": "lots", "item-2-unit": "GB", "item-3": "1"})
    assert response.status_code == 400
    html = response.content.decode()
    alert = re.search(r'<p class="message message-error" role="alert">(.*?)</p>', html, re.S)
    assert alert, "no error summary"
    assert '<a href="#item-1">question 1</a>' in alert.group(1)
    assert '<a href="#item-2">question 2</a>' in alert.group(1)
    assert "question 3" not in alert.group(1)
    # every link lands on an element: the choice's fieldset, the number's input
    assert '<fieldset id="item-1">' in html and 'id="item-2" name="item-2"' in html
    radios = re.findall(r'<input type="radio" name="item-1"[^>]*>', html)
    assert radios and all('aria-describedby="item-1-error"' in r for r in radios)
    assert 'id="item-1-error">Choose one answer<' in html
    assert 'aria-describedby="item-2-error"' in html
