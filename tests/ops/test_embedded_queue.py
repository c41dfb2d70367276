"""The embedded broker never hands a consumer a message that is still being written.

kombu's filesystem transport creates a message file under its final name before writing
it, so a worker polling in that window read an empty file and died (JSONDecodeError).
These tests call the consumer's ``_get`` at the moments a put is half done.
"""

import os

import pytest
from kombu import Connection
from kombu.transport import filesystem
from kombu.transport.virtual import Empty

from inferview import embedded_queue


@pytest.fixture
def channel(tmp_path):
    folder = tmp_path / "queue"
    folder.mkdir()
    options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "store_processed": False,
        "control_folder": str(tmp_path / "control"),
    }
    with Connection(transport=embedded_queue.Transport, transport_options=options) as conn:
        yield conn.default_channel, folder


def _get_or_empty(channel, queue):
    try:
        return channel._get(queue)
    except Empty:
        return "empty"


def test_a_consumer_polling_while_the_message_is_serialised_sees_nothing(channel, monkeypatch):
    chan, _ = channel
    seen = []
    real_dumps = filesystem.dumps

    def dumps_while_polled(payload):
        seen.append(_get_or_empty(chan, "celery"))
        return real_dumps(payload)

    monkeypatch.setattr(filesystem, "dumps", dumps_while_polled)
    chan._put("celery", {"body": "run 1"})
    # kombu's own _put has created an empty celery.msg file by now: _get raised
    # JSONDecodeError here before the fix
    assert seen == ["empty"]
    assert chan._get("celery") == {"body": "run 1"}


def test_a_consumer_polling_while_the_bytes_are_written_sees_nothing(channel, monkeypatch):
    """Whatever order a put takes its steps in, a file it is still writing (half its bytes
    on disk, under whatever name) is never handed to a consumer."""
    chan, folder = channel
    seen = []
    real_open = open

    class HalfWritten:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return self.f.__exit__(*exc)

        def __getattr__(self, name):  # fileno, flush, ...: the real file's
            return getattr(self.f, name)

        def write(self, data):
            half = len(data) // 2
            self.f.write(data[:half])
            self.f.flush()
            seen.append((_get_or_empty(chan, "celery"), sorted(os.listdir(folder))))
            return half + self.f.write(data[half:])

    def open_while_polled(path, mode="r", *args, **kwargs):
        f = real_open(path, mode, *args, **kwargs)
        return HalfWritten(f) if "w" in mode else f

    monkeypatch.setattr(embedded_queue, "open", open_while_polled, raising=False)
    chan._put("celery", {"body": "y" * 10_000})
    assert seen, "the put no longer writes through open(): poll it where it writes now"
    (polled, files) = seen[0]
    assert polled == "empty"
    assert files and all(name.startswith(".") for name in files)  # only a hidden partial
    assert chan._get("celery") == {"body": "y" * 10_000}


def test_a_consumer_polling_just_before_the_rename_sees_nothing(channel, monkeypatch):
    chan, folder = channel
    seen = []
    real_replace = os.replace

    def replace_while_polled(src, dst):
        seen.append((_get_or_empty(chan, "celery"), os.path.getsize(src)))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace_while_polled)
    chan._put("celery", {"body": "x" * 100_000})
    assert seen and seen[0][0] == "empty" and seen[0][1] > 100_000
    assert chan._get("celery") == {"body": "x" * 100_000}
    assert os.listdir(folder) == []  # no partial file left behind


def test_messages_keep_their_order_and_their_queue(channel):
    chan, _ = channel
    # fifty puts land within a few milliseconds: kombu's "<ms>_<uuid4>" names shuffled them
    for i in range(50):
        chan._put("celery", {"n": i})
    chan._put("other", {"n": "other"})
    assert chan._size("celery") == 50
    assert [chan._get("celery")["n"] for _ in range(50)] == list(range(50))
    assert _get_or_empty(chan, "celery") == "empty"
    assert chan._get("other") == {"n": "other"}


def test_a_failed_write_raises_a_channel_error_and_leaves_no_file(channel, monkeypatch):
    chan, folder = channel

    def refuse(src, dst):
        raise PermissionError("read-only folder")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(filesystem.ChannelError, match="Cannot add file"):
        chan._put("celery", {"body": 1})
    assert os.listdir(folder) == []


def test_a_message_goes_through_kombu_end_to_end(channel):
    chan, _ = channel
    conn = chan.connection.client
    with conn.SimpleQueue("runs") as queue:
        queue.put({"run": "abc"})
        message = queue.get(timeout=2)
        assert message.payload == {"run": "abc"}
        message.ack()


def test_a_put_stopped_by_any_exception_leaves_no_partial_file(channel, monkeypatch):
    chan, folder = channel

    def interrupted(src, dst):
        raise KeyboardInterrupt  # not an OSError: a signal arriving mid-put

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        chan._put("celery", {"body": 1})
    assert os.listdir(folder) == []
