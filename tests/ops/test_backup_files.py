"""The backup pieces that need no database: compose schedules backups with the server's
own pg_dump, and the scripts refuse what they cannot do with a clear message.
(The drill itself, against PostgreSQL: test_restore_drill.py.)"""

import subprocess

import yaml

from tests.ops.support import ROOT


def test_compose_backs_up_with_the_servers_own_pg_dump_into_a_volume():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    backup = services["backup"]
    assert backup["image"] == services["postgres"]["image"]  # pg_dump matches the server
    assert backup["restart"] == "unless-stopped"
    assert "bash /scripts/backup.sh" in " ".join(backup["entrypoint"])
    assert "backups:/backups" in backup["volumes"] and "backups" in compose["volumes"]
    assert backup["environment"]["BACKUP_DIR"] == "/backups"
    assert backup["depends_on"]["postgres"] == {"condition": "service_healthy"}


def test_the_scripts_use_the_real_tools():
    backup = (ROOT / "scripts/backup.sh").read_text()
    restore = (ROOT / "scripts/restore.sh").read_text()
    assert "pg_dump --format=custom" in backup and "pg_restore --list" in backup
    assert "pg_restore --no-owner" in restore and "--single-transaction" in restore


def run(script, *args, **env):
    return subprocess.run(
        ["bash", f"scripts/{script}", *args],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_backup_refuses_a_database_that_is_not_postgresql(tmp_path):
    r = run("backup.sh", str(tmp_path), DATABASE_URL="sqlite:///var/x.sqlite3")
    assert r.returncode == 2 and "postgres:// URL" in r.stderr
    assert list(tmp_path.iterdir()) == []
    r = run("backup.sh", str(tmp_path))
    assert r.returncode != 0 and "DATABASE_URL" in r.stderr


def test_backup_rejects_a_bad_keep_count(tmp_path):
    r = run("backup.sh", str(tmp_path), DATABASE_URL="postgres://x@h/db", BACKUP_KEEP="ten")
    assert r.returncode == 2 and "BACKUP_KEEP" in r.stderr


def test_restore_needs_a_readable_archive(tmp_path):
    r = run("restore.sh", DATABASE_URL="postgres://x@h/db")
    assert r.returncode != 0 and "usage: restore.sh" in r.stderr
    r = run("restore.sh", str(tmp_path / "missing.dump"), DATABASE_URL="postgres://x@h/db")
    assert r.returncode == 2 and "cannot read" in r.stderr
