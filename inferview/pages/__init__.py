"""Pages and API endpoints that compose several apps: the top floor.

A question page needs the content (``questions``), the access policy (``access``) and the
learner's state (``community``); so its view lives here rather than in ``questions``,
which stays ignorant of readers. Nothing below this package imports it (the import-linter
layers contract in ``pyproject.toml`` holds that).
"""
