from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import post_delete, post_save


class AccessConfig(AppConfig):
    name = "inferview.access"
    label = "access"
    verbose_name = "Access and payments"

    def ready(self) -> None:
        from . import readers

        # A saved or deleted user or entitlement: the reader's cached row is stale.
        for name, signal in (("save", post_save), ("delete", post_delete)):
            signal.connect(
                readers.forget_user, sender=settings.AUTH_USER_MODEL, dispatch_uid=f"reader-{name}"
            )
            signal.connect(
                readers.forget_owner, sender="access.Entitlement", dispatch_uid=f"owner-{name}"
            )
