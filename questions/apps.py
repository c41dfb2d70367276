from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_roles(sender, **kwargs) -> None:
    from .roles import ensure_authors_group

    ensure_authors_group()


class QuestionsConfig(AppConfig):
    name = "questions"
    verbose_name = "Content"

    def ready(self) -> None:
        # Permissions exist only after migrate creates them, so the group is (re)built then.
        post_migrate.connect(_ensure_roles, sender=self)
        # Table rebuilds on SQLite drop the search index's triggers; put them back.
        from .search import ensure_sqlite_index

        post_migrate.connect(ensure_sqlite_index, sender=self)
