"""The "authors" group: exactly the permissions needed to write content in admin."""

from django.contrib.auth.models import Group, Permission

AUTHORS_GROUP = "authors"
AUTHOR_MODELS = [
    "track",
    "question",
    "concept",
    "guide",
    "guidesection",
    "guideitem",
    "calculatorembed",
    "part",
    "lesson",
]


def ensure_authors_group() -> Group:
    group, _ = Group.objects.get_or_create(name=AUTHORS_GROUP)
    codenames = [
        f"{action}_{model}"
        for model in AUTHOR_MODELS
        for action in ("add", "change", "view", "delete")
    ]
    perms = Permission.objects.filter(content_type__app_label="questions", codename__in=codenames)
    group.permissions.set(perms)
    return group
