from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_roles(sender, **kwargs) -> None:
    from .roles import ensure_authors_group

    ensure_authors_group()


def _register_revisions() -> None:
    """Every save of authored content keeps a revision (django-reversion): admin saves,
    imports, publishing and reorders, each with a comment saying which it was. A guide
    follows its sections and a section its items, so reverting restores them together."""
    import reversion

    from .models import (
        CalculatorEmbed,
        Concept,
        Guide,
        GuideItem,
        GuideSection,
        Lesson,
        Part,
        Question,
        Track,
    )

    for model, follow in (
        (Track, ()),
        (Concept, ()),
        (Question, ("calculator_embeds",)),
        (CalculatorEmbed, ()),
        (Guide, ("sections",)),
        (GuideSection, ("items",)),
        (GuideItem, ()),
        (Part, ()),
        (Lesson, ()),
    ):
        if not reversion.is_registered(model):
            reversion.register(model, follow=follow)


def _connect_content_version() -> None:
    """Any saved, deleted or relinked content item moves the content version."""
    from django.db.models.signals import m2m_changed, post_delete, post_save

    from . import content_version
    from .models import (
        CalculatorEmbed,
        Concept,
        Guide,
        GuideItem,
        GuideSection,
        Lesson,
        Part,
        Question,
        Track,
    )

    for model in (
        Track, Concept, Question, CalculatorEmbed, Guide, GuideSection, GuideItem, Part, Lesson,
    ):  # fmt: skip
        for signal in (post_save, post_delete):
            signal.connect(
                content_version.bump, sender=model, dispatch_uid=f"cv-{model.__name__}-{signal}"
            )
    m2m_changed.connect(
        content_version.bump, sender=Question.concepts.through, dispatch_uid="cv-question-concepts"
    )
    for name, through in (
        ("lesson-concepts", Lesson.concepts.through),
        ("lesson-questions", Lesson.questions.through),
        ("lesson-prerequisites", Lesson.prerequisites.through),
    ):
        m2m_changed.connect(content_version.bump, sender=through, dispatch_uid=f"cv-{name}")


class QuestionsConfig(AppConfig):
    name = "questions"
    verbose_name = "Content"

    def ready(self) -> None:
        _register_revisions()
        _connect_content_version()
        # Permissions exist only after migrate creates them, so the group is (re)built then.
        post_migrate.connect(_ensure_roles, sender=self)
        # Table rebuilds on SQLite drop the search index's triggers; put them back.
        from .search import ensure_sqlite_index

        post_migrate.connect(ensure_sqlite_index, sender=self)
        # Beat's task, so a worker registers it (autodiscovery imports only tasks.py), and
        # the course's admin, which lives beside questions.admin (autodiscovery's module).
        from . import admin_lessons, beat  # noqa: F401
