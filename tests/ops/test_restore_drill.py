"""The restore drill: fill a database, back it up with scripts/backup.sh, restore it into a
fresh database with scripts/restore.sh, find every row, time it, and delete an account
on the restored copy. CI runs it in its PostgreSQL pass (docs/operations.md quotes the
figures it prints)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from django.db import connection

from tests.accounts.reader_rows import fill_reader
from tests.factories import ConceptFactory, QuestionFactory, UserFactory
from tests.ops.support import ROOT, base_env, fresh_database

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

READERS = 60

#: Each table's row count and a digest of its rows in a fixed order: equal digests mean
#: every row came back with every value.
DIGEST_SQL = """
SELECT count(*), coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '')
FROM {table} AS t
"""

DELETE_AFTER_RESTORE = """
import json
from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from inferview.access.models import Purchase
from inferview.accounts import services

User = get_user_model()
gone = User.objects.get(email={email!r})
uid = gone.pk
services.delete_account(user=gone)
left = {{}}
for model in apps.get_models():
    for f in model._meta.get_fields():
        if f.concrete and f.is_relation and f.related_model is User and not f.many_to_many:
            n = model._base_manager.filter(**{{f.attname: uid}}).count()
            if n:
                left[f"{{model._meta.label}}.{{f.name}}"] = n
# A new account after the restore: the sequences came back too.
new = User.objects.create_user(username="after-restore", email="after@example.com")
print(json.dumps({{
    "left": left,
    "user_gone": not User.objects.filter(pk=uid).exists(),
    "purchase_kept_without_person": list(
        Purchase.objects.filter(checkout_session_id={session!r}).values_list("user_id", flat=True)
    ),
    "new_user_id": new.pk,
    "max_old_id": {max_id},
}}))
"""


def _url(name: str) -> str:
    s = connection.settings_dict
    auth = quote(s["USER"] or "", safe="")
    if s["PASSWORD"]:
        auth += ":" + quote(s["PASSWORD"], safe="")
    return f"postgresql://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{name}"


def _digests(url: str) -> dict[str, tuple[int, str]]:
    with psycopg.connect(url) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
            )
        ]
        out = {}
        for table in tables:
            count, digest = conn.execute(DIGEST_SQL.format(table=f'"{table}"')).fetchone()
            out[table] = (count, digest)
        return out


def _run(cmd: list[str], env: dict[str, str]) -> tuple[str, float]:
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    return done.stdout.strip(), elapsed


def test_backup_restores_every_row_and_accounts_can_still_be_deleted(tmp_path, artifacts_dir):
    question = QuestionFactory()
    concept = ConceptFactory()
    readers = [UserFactory(email=f"reader{i}@example.com") for i in range(READERS)]
    for i, reader in enumerate(readers):
        fill_reader(reader, question, concept, tag=f"R{i}")
    UserFactory(is_staff=True)  # with a second factor (mfa_authenticator rows)

    source = _url(connection.settings_dict["NAME"])
    before = _digests(source)
    for table in ("accounts_user", "access_purchase", "community_progress", "community_comment"):
        assert before[table][0] >= READERS, table
    rows = sum(count for count, _ in before.values())

    env = base_env(DATABASE_URL=source, BACKUP_KEEP="2")
    archive, backup_seconds = _run(["bash", "scripts/backup.sh", str(tmp_path)], env)
    assert archive.endswith(".dump") and Path(archive).stat().st_size > 0
    assert not list(tmp_path.glob("*.partial"))

    with fresh_database(tmp_path) as target:
        # The test settings (a process-local cache): the copy is checked, not served.
        target_env = base_env(DATABASE_URL=target, DJANGO_SETTINGS_MODULE="inferview.settings.test")
        _, restore_seconds = _run(["bash", "scripts/restore.sh", archive], target_env)
        after = _digests(target)
        assert after == before  # every table, every row, every value

        # Restoring over a database that has tables is refused without --replace.
        refused = subprocess.run(
            ["bash", "scripts/restore.sh", archive],
            cwd=ROOT,
            env=target_env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert refused.returncode == 3 and "--replace" in refused.stderr

        # The restored copy runs the site's code: migrations are all there, and deleting
        # an account leaves no row pointing at it.
        _run([sys.executable, "manage.py", "migrate", "--check"], target_env)
        code = DELETE_AFTER_RESTORE.format(
            email="reader0@example.com", session="cs_R0", max_id=max(u.pk for u in readers)
        )
        out, _ = _run([sys.executable, "manage.py", "shell", "-c", code], target_env)
        result = json.loads(out.splitlines()[-1])
        assert result["left"] == {} and result["user_gone"]
        assert result["purchase_kept_without_person"] == [None]  # the financial record stays
        assert result["new_user_id"] > result["max_old_id"]

    figures = {
        "tables": len(before),
        "rows": rows,
        "archive_bytes": Path(archive).stat().st_size,
        "backup_seconds": round(backup_seconds, 2),
        "restore_seconds": round(restore_seconds, 2),
        "server": os.environ.get("DATABASE_URL", "").rsplit("@", 1)[-1].split("/")[0],
    }
    (artifacts_dir / "restore-drill.json").write_text(json.dumps(figures, indent=2))
    print(f"\nrestore drill: {json.dumps(figures)}")
