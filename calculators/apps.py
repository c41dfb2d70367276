from django.apps import AppConfig


class CalculatorsConfig(AppConfig):
    name = "calculators"
    verbose_name = "Calculators"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Celery's autodiscovery reads calculators.tasks only; the beat task lives apart.
        from . import beat  # noqa: F401
