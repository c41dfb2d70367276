from django.apps import AppConfig


def _readers_pointing_at(item) -> list[str]:
    """Readers' bookmarks, saved progress and comments on a content item, for the
    confirmation an author sees before unpublishing or deleting it."""
    from questions.models import Concept, Question

    from .models import Bookmark, Comment, Progress

    if isinstance(item, Question):
        where = {"question": item}
    elif isinstance(item, Concept):
        where = {"concept": item}
    else:
        return []
    lines = []
    bookmarks = Bookmark.objects.filter(**where).count()
    if bookmarks:
        lines.append(f"{bookmarks} reader bookmark(s) will lead to a withdrawn page")
    if isinstance(item, Question):
        progress = Progress.objects.filter(question=item).count()
        if progress:
            lines.append(f"{progress} reader(s) have saved progress on it")
    comments = Comment.objects.filter(**where).count()
    if comments:
        lines.append(f"{comments} comment(s) in its discussion")
    return lines


class CommunityConfig(AppConfig):
    name = "inferview.community"
    label = "community"
    verbose_name = "Community"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from questions import content_version
        from questions.dependents import register

        from .models import Comment, DifficultyVote
        from .reader_summary import forget_tally

        register(_readers_pointing_at)
        # A comment shows on its page: posting, editing or hiding one retires cached pages.
        post_save.connect(content_version.bump, sender=Comment, dispatch_uid="cv-comment-save")
        post_delete.connect(content_version.bump, sender=Comment, dispatch_uid="cv-comment-delete")
        # A question's tally, kept for first views (reader_summary), is counted afresh.
        post_save.connect(forget_tally, sender=DifficultyVote, dispatch_uid="tally-vote-save")
        post_delete.connect(forget_tally, sender=DifficultyVote, dispatch_uid="tally-vote-delete")
