"""API for learners' tools, under ``/api/v1/``. Personal endpoints need a signed-in user;
discussions, difficulty tallies, up next and search are readable by everyone who can see
the item. Service errors become the shared error shape via ``ApiError``.

Split by sub-domain: ``learning`` (personal: bookmarks, practice, reviews, dashboard),
``discussion`` (comments, reports, difficulty) and ``discovery`` (up next, search).
"""
