"""The deploy acceptance test: on an empty database, `migrate`, then `import_content`,
then `runserver` (a real subprocess) serves every page in the sitemap with 200, and no
other command is run (no createcachetable, no collectstatic).

It runs on the suite's database kind (a new PostgreSQL database when DATABASE_URL is
set, else a new SQLite file) with the database cache, which is the one that needs a
table: so migration 0007 is what makes the pages work, on both.
"""

import re
import subprocess
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
import requests

from tests.ops.support import PYTHON, ROOT, base_env, free_port, fresh_database, stop, wait_for_http

# CI runs it in the PostgreSQL pass; on SQLite, tests/questions/test_cache_table_migration.py
# shows the same migration makes the cache table.
pytestmark = pytest.mark.deploy

SITEMAP_NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def manage(env, *args, timeout=300):
    return subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=timeout,
        capture_output=True,
        text=True,
    )


def test_migrate_import_runserver_serves_every_sitemap_page(tmp_path):
    with fresh_database(tmp_path) as database_url:
        env = base_env(
            DATABASE_URL=database_url,
            INFERVIEW_VAR_DIR=str(tmp_path),
            DEBUG="false",
            LOG_LEVEL="WARNING",
            REQUEST_LOG_LEVEL="WARNING",
        )
        manage(env, "migrate", "--noinput", "-v", "0")
        imported = manage(env, "import_content").stdout
        assert re.search(
            r"created: \d+ concepts, \d+ guides, \d+ lessons, \d+ parts, \d+ questions", imported
        ), imported
        port = free_port()
        server = subprocess.Popen(
            [PYTHON, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=open(tmp_path / "runserver.log", "w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for_http(base + "/healthz", timeout=60, proc=server)
            sitemap = requests.get(base + "/sitemap.xml", timeout=30)
            assert sitemap.status_code == 200
            paths = [
                urlsplit(loc.text).path
                for loc in ET.fromstring(sitemap.content).findall("sm:url/sm:loc", SITEMAP_NS)
            ]
            assert len(paths) > 100 and any("/questions/" in p or p.count("/") >= 3 for p in paths)

            session = requests.Session()

            def status(path):
                return path, session.get(base + path, timeout=30).status_code

            with ThreadPoolExecutor(max_workers=4) as pool:
                statuses = dict(pool.map(status, paths))
        finally:
            stop(server)
        failing = {path: code for path, code in statuses.items() if code != 200}
        assert failing == {}, (len(failing), list(failing.items())[:10])
