"""Review: behind the production proxy, sign-in throttling must see the visitor's IP.

In production every request arrives from the proxy, so REMOTE_ADDR is the same for
everyone; unless allauth is told to trust the proxy's X-Forwarded-For, an attacker's
failed sign-ins throttle the owner signing in from anywhere else.
"""

import os
import subprocess
import sys

from django.conf import settings as django_settings

from tests.conftest import PASSWORD

PROXY = "10.0.0.5"


def test_production_settings_trust_the_proxy_for_client_ips():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "inferview.settings.production",
        "DEBUG": "false",
        "SECRET_KEY": "review-" + "x" * 64,
        "ALLOWED_HOSTS": "inferview.example",
    }
    env.pop("TRUSTED_PROXY_COUNT", None)
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "print(getattr(settings, 'ALLAUTH_TRUSTED_PROXY_COUNT', 0))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=django_settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    assert int(out.stdout.strip().splitlines()[-1]) >= 1


def test_owner_behind_the_same_proxy_is_not_locked_out(client, client_for, verified_user, settings):
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    for i in range(20):
        client.post(
            "/accounts/login/",
            {"login": verified_user.email, "password": f"wrong-{i}"},
            REMOTE_ADDR=PROXY,
            HTTP_X_FORWARDED_FOR="203.0.113.9",
        )
    owner = client_for(None)
    r = owner.post(
        "/accounts/login/",
        {"login": verified_user.email, "password": PASSWORD},
        REMOTE_ADDR=PROXY,
        HTTP_X_FORWARDED_FOR="198.51.100.4",
    )
    assert r.status_code == 302
    assert owner.session["_auth_user_id"] == str(verified_user.pk)
