"""Corrections: a signed-in reader reports a mistake in what they can read, authors triage
the reports in admin, and a fixed item lists "What changed" and moves its "Updated" month.

``models`` (the report and its reporters), ``text`` (the text a reader can read, which a
quote must come from), ``services`` (report, decide), ``selectors`` (a reader's reports,
"What changed", the admin queue's context), ``notifications`` (the decision email).
"""
