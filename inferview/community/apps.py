from django.apps import AppConfig


class CommunityConfig(AppConfig):
    name = "inferview.community"
    label = "community"
    verbose_name = "Community"
