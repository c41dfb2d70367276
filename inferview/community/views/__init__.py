"""HTML views for learners' tools, by concern: ``learning`` (bookmarks, practice, reviews,
dashboard), ``discussion`` (comments, the difficulty vote), ``graded`` (the numbers page,
key points), ``mock`` (mock interviews) and ``cram`` (cram plans); ``common`` holds what
they share. They adapt forms and services; nothing here decides.
"""
