"""Cache headers for pages that differ by viewer.

The same URL shows an answer to a premium reader and a paywall to everyone else, so no
response may be stored by a shared cache (a CDN, a corporate proxy, Django's per-site
cache) and handed to the next visitor. Every dynamic response is therefore
``Cache-Control: private, no-cache`` with ``Vary: Cookie`` unless its view explicitly
declared itself ``public`` (nothing on the site does yet). Static files are served by
WhiteNoise before this middleware runs and keep their long-lived public headers.
"""

from django.utils.cache import patch_cache_control, patch_vary_headers


class PrivateResponsesMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "public" not in response.get("Cache-Control", ""):
            patch_cache_control(response, private=True, no_cache=True)
            patch_vary_headers(response, ("Cookie",))
        return response
