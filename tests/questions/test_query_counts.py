"""Each page runs a fixed number of queries, whatever the size of the track."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db

PAGES = {
    "question": lambda t: t.questions.get(number=2).get_absolute_url(),
    "track": lambda t: t.get_absolute_url(),
    "curriculum": lambda t: "/curriculum/",
}


def count_queries(client, url: str) -> int:
    client.get(url)  # warm the Markdown cache so both sizes are measured alike
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.parametrize("page", PAGES)
def test_query_count_is_the_same_for_12_and_200_questions(
    client, make_track, page, django_assert_max_num_queries
):
    small = make_track(12)
    large = make_track(200)
    n_small = count_queries(client, PAGES[page](small))
    n_large = count_queries(client, PAGES[page](large))
    assert n_small == n_large
    url = PAGES[page](large)
    with django_assert_max_num_queries(n_small):
        client.get(url)
    assert n_small <= 12
