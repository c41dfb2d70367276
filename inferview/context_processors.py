from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict:
    return {"SITE_NAME": settings.SITE_NAME}


def shared_marks(request: HttpRequest) -> dict:
    """In the render of a page's shared part (``inferview.pages.shared``) every form token
    is a mark that each reader's copy fills with their own; over Django's CSRF processor,
    which would tie the shared HTML to the renderer's secret."""
    if getattr(request, "_shared_render", False):
        return {"csrf_token": "\ue000csrf\ue001"}
    return {}
