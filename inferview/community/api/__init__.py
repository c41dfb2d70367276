"""API for learners' tools, under ``/api/v1/``. Personal endpoints need a signed-in user;
discussions, difficulty tallies, up next and search are readable by everyone who can see
the item. Service errors become the shared error shape via ``ApiError``.

Split by sub-domain: ``learning`` (personal: bookmarks, practice, reviews, dashboard),
``discussion`` (comments, reports, difficulty), ``discovery`` (up next, search), and
graded practice: ``graded`` (variants, answers, key points), ``mock`` (mock interviews),
``cram`` (cram plans). ``serializers`` serves the first three; the graded-practice
modules each have their own (``graded_serializers``, ``mock_serializers``,
``cram_serializers``).
"""
