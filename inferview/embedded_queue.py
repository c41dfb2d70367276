"""The embedded broker: kombu's filesystem transport, made safe to read and quick to stop.

Two changes to kombu's transport (kombu 5.x); production uses Redis and never loads this.

**A message appears whole or not at all.** kombu's ``Channel._put`` creates the message
file under its final name, then locks it, then writes; ``_get`` picks files by name and
ignores the lock. A worker polling at the wrong moment read an empty file and died with
``JSONDecodeError`` ("Unrecoverable error"), which CI met once. Here the bytes are written
to a dot-named file the consumer never picks (it takes only ``<stamp>_<uuid>.<queue>.msg``)
and renamed into place; ``os.replace`` is atomic within one folder on POSIX and Windows.
Names also sort in the order a process put them, which kombu's did not within a millisecond.

**A prompt stop.** Celery runs transports without file descriptors (this one) through its
blocking ``synloop``, which drains with a 2 s timeout and, once a warm shutdown is
requested, still completes one more drain before leaving. With kombu's polling loop that
kept a worker alive 4-6 s after SIGTERM. Draining in slices of at most 0.25 s, and not at
all once the worker is stopping, brings that under a second; an idle worker pays one empty
folder listing per slice.
"""

from __future__ import annotations

import itertools
import os
import time
import uuid

from kombu.exceptions import ChannelError
from kombu.transport import filesystem

DRAIN_SLICE_S = 0.25
_SEQUENCE = itertools.count()  # next() on a count is atomic under the GIL


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put ``payload`` onto ``queue``: write a hidden file, then rename it into place."""
        data = filesystem.dumps(payload).encode()
        # Consumers take files in name order. kombu names them "<ms>_<uuid4>", which
        # shuffles messages put within one millisecond; a zero-padded stamp and this
        # process's sequence number keep them first in, first out.
        stamp = int(time.monotonic() * 1000)
        name = f"{stamp:015d}_{next(_SEQUENCE):012d}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f".{uuid.uuid4()}.partial")
        try:
            with open(partial, "wb") as f:
                f.write(data)
            os.replace(partial, final)
        except OSError as exc:
            try:
                os.unlink(partial)
            except OSError:
                pass
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel

    def drain_events(self, connection, timeout=None, **kwargs):
        from celery.worker import state

        if state.should_stop is not None or state.should_terminate is not None:
            raise TimeoutError()  # what the loop expects from an empty drain
        timeout = DRAIN_SLICE_S if timeout is None else min(timeout, DRAIN_SLICE_S)
        return super().drain_events(connection, timeout=timeout, **kwargs)
