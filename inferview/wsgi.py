"""WSGI entry point (gunicorn inferview.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inferview.settings.base")
application = get_wsgi_application()
