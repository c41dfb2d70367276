"""The embedded broker: kombu's filesystem transport, made to notice a shutdown promptly.

Celery runs transports without file descriptors (this one) through its blocking
``synloop``, which drains with a 2 s timeout and, once a warm shutdown is requested, still
completes one more drain before leaving. With kombu's polling loop that kept a worker
alive 4-6 s after SIGTERM. Draining in slices of at most 0.25 s, and not at all once the
worker is stopping, brings that under a second; an idle worker pays one empty folder
listing per slice. Production uses Redis (an event loop on sockets) and never loads this.
"""

from __future__ import annotations

from kombu.transport import filesystem

DRAIN_SLICE_S = 0.25


class Transport(filesystem.Transport):
    def drain_events(self, connection, timeout=None, **kwargs):
        from celery.worker import state

        if state.should_stop is not None or state.should_terminate is not None:
            raise TimeoutError()  # what the loop expects from an empty drain
        timeout = DRAIN_SLICE_S if timeout is None else min(timeout, DRAIN_SLICE_S)
        return super().drain_events(connection, timeout=timeout, **kwargs)
