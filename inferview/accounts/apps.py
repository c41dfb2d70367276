from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_site(sender, **kwargs) -> None:
    """Keep the Site record on the configured domain, so admin's "View on site" and
    allauth's e-mails link to this deployment, not to example.com."""
    from django.conf import settings
    from django.contrib.sites.models import Site

    Site.objects.update_or_create(
        pk=settings.SITE_ID, defaults={"domain": settings.SITE_DOMAIN, "name": settings.SITE_NAME}
    )


def _mark_session_seen(sender, request, **kwargs) -> None:
    from .security import mark_seen

    mark_seen(request.session)


class AccountsConfig(AppConfig):
    name = "inferview.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from allauth.account.signals import user_logged_in

        from inferview.access import pricing

        from . import profile

        post_migrate.connect(_sync_site, sender=self)
        # A session begun by signing in carries the mark that lets its "last seen" move.
        user_logged_in.connect(_mark_session_seen, dispatch_uid="accounts.mark_session_seen")
        # A signed-in viewer's currency choice is saved on their profile; access asks
        # through this hook because it may not import the app above it.
        pricing.register_preference_saver(profile.set_preferred_currency)
