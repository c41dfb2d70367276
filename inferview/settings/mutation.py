"""Settings for mutation testing (``mutmut``, see docs/mutation.md).

The test settings with the test database in a file that pytest-django keeps between
runs (``--reuse-db``): mutmut starts a fresh pytest for every mutant, and building the
schema from the migrations each time would cost more than the tests themselves.
"""

import os

from .test import *  # noqa: F403
from .test import DATABASES

DATABASES["default"]["TEST"] = {
    "NAME": os.environ.get("MUTATION_TEST_DB", "/tmp/inferview-mutation-test.sqlite3")
}
