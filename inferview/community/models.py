"""Bookmarks, progress and reviews, discussion."""
