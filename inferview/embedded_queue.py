"""The embedded broker: kombu's filesystem transport, made safe to read and quick to stop.

Two changes to kombu's transport (kombu 5.x); production uses Redis and never loads this.

**A message appears whole or not at all.** kombu's ``Channel._put`` creates the message
file under its final name, then locks it, then writes; ``_get`` picks files by name and
ignores the lock. A worker polling at the wrong moment read an empty file and died with
``JSONDecodeError`` ("Unrecoverable error"), which CI met once. Here the bytes are written
to a file named ``.<uuid>.partial``, which the consumer never picks (it takes only names
whose text after the first dot is ``<queue>.msg``), and renamed into place: ``os.replace``
within one folder is an atomic rename on POSIX. A put that fails for any reason removes its
partial file. Names also sort in the order one process put them (wall-clock milliseconds,
then that process's sequence number), which kombu's ``<monotonic ms>_<uuid4>`` did not
within a millisecond, nor across a reboot; between processes, and for consumers taking
messages on several threads at once, there is no order to keep.

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
        # Consumers take files in name order: a zero-padded wall-clock stamp and this
        # process's sequence number keep one process's messages first in, first out.
        stamp = time.time_ns() // 1_000_000
        name = f"{stamp:015d}_{next(_SEQUENCE):012d}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f".{uuid.uuid4()}.partial")
        placed = False
        try:
            with open(partial, "wb") as f:
                f.write(data)
            os.replace(partial, final)
            placed = True
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc
        finally:
            if not placed:  # whatever stopped the put, leave no partial file behind
                try:
                    os.unlink(partial)
                except OSError:
                    pass


class Transport(filesystem.Transport):
    Channel = Channel

    def drain_events(self, connection, timeout=None, **kwargs):
        from celery.worker import state

        if state.should_stop is not None or state.should_terminate is not None:
            raise TimeoutError()  # what the loop expects from an empty drain
        timeout = DRAIN_SLICE_S if timeout is None else min(timeout, DRAIN_SLICE_S)
        return super().drain_events(connection, timeout=timeout, **kwargs)
