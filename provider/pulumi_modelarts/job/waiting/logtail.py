"""The newest line of a running job's log on its row, while a create waits for the job to complete.

A create with ``wait_for: completed`` can wait for hours with nothing to show but "Running". While it does,
the task's log preview (``GET …/tasks/{task}/logs/preview``) is read now and then and its newest new line is
shown where the front-end shows a job's state: the native provider as the status of the job's row, the
dynamic one as a progress line.

How often: at most one read per job every ``READ_INTERVAL_POLLS`` poll units (30 s by default; the unit is
the poll knob ``PULUMI_MODELARTS_POLL_SECONDS``, so tests run it faster). A preview can be 5 MB: at one read
in 30 s a job costs at most ~170 kB/s, a tenth of a 100-job deployment's polling budget stays small, and a
line a person reads needs no more. A read that fails or is throttled doubles the pause (up to
``MAX_BACKOFF_POLLS``), and is never retried by the client: the next read is simply later.

Never in the wait's way: the read runs on a thread of its own, one at a time per job, and the wait neither
waits for it nor hears of its failures. What is shown is scrubbed: the client's credentials and the job's
environment values become ``***``, terminal control sequences go, and the line is shortened.

The pure parts (``new_lines``, ``clean_line``, ``Throttle``) are tested on their own; ``LogFollower`` joins
them to the client and the progress.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...wire.errors import redact
from ...wire.phases import Phase

if TYPE_CHECKING:
    from ...wire.models import LogPreview, TrainingJob

__all__ = ["LogFollower", "Throttle", "clean_line", "new_lines"]

READ_INTERVAL_POLLS = 30.0
MAX_BACKOFF_POLLS = 300.0
MAX_LINE_CHARS = 200
# Terminal control: CSI sequences (colours, cursor moves), OSC sequences, and any other control character.
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f]")


def new_lines(content: str, full_size: int | None, seen: int | None) -> tuple[list[str], int]:
    """The complete lines of a log preview not seen before, and the new ``seen``.

    content is the newest part of the log (the preview: at most the latest 5 MB), full_size the whole log's
    length in bytes (None: content is all of it), seen the byte offset just past the last complete line of
    an earlier read (None: nothing read yet). A line still being written (no newline yet) waits for the next
    read. A log shorter than what was seen began again (it was cleared): all of it is new.
    """
    data = content.encode("utf-8", errors="replace")
    total = full_size if isinstance(full_size, int) and full_size >= len(data) else len(data)
    start = total - len(data)  # where the preview's window begins in the whole log
    if seen is not None and seen > total:
        seen = None
    if seen is not None and seen >= start:
        region, at = data[seen - start :], seen
    else:
        # Everything in the window is new; when it begins mid-log, its first line is a fragment.
        region, at = data, start
        if start > 0:
            cut = region.find(b"\n")
            region, at = (b"", total) if cut < 0 else (region[cut + 1 :], start + cut + 1)
    end = region.rfind(b"\n")
    if end < 0:
        return [], at
    complete = region[: end + 1].decode("utf-8", errors="replace")
    return complete.split("\n")[:-1], at + end + 1  # not splitlines: a "\r" redraws a line, it ends none


def clean_line(
    line: str, hidden: Iterable[str], scrub: Callable[[str], str], limit: int = MAX_LINE_CHARS
) -> str:
    """A log line fit to show: what a terminal would leave of it after carriage returns (progress bars), no
    control sequences, hidden values and credentials (``scrub``) as ``***``, at most limit characters."""
    text = line.rstrip("\r").rsplit("\r", 1)[-1]
    text = _CONTROL.sub("", text.replace("\t", "    ")).strip()
    text = scrub(redact(text, hidden))
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class Throttle:
    """When the next log read may start: interval after a read that worked, twice the last pause after one
    that failed (at most max_pause)."""

    interval: float
    max_pause: float
    next_at: float = 0.0
    pause: float = 0.0

    def due(self, now: float) -> bool:
        return now >= self.next_at

    def done(self, now: float, *, ok: bool) -> None:
        self.pause = self.interval if ok else min(max(self.pause, self.interval) * 2, self.max_pause)
        self.next_at = now + self.pause


def _poll_unit() -> float:
    from .polling import poll_base

    return poll_base()


class LogFollower:
    """Shows the newest new line of a running job's log through show, reading at most as Throttle allows.

    ``poll(job)`` is called with each fresh copy of the job during the wait and returns at once; ``close()``
    ends it (a read still in flight is dropped, silently).
    """

    def __init__(
        self,
        read: Callable[[str], LogPreview | None],
        show: Callable[[str], None],
        scrub: Callable[[str], str],
        *,
        hidden: Iterable[str] = (),
        interval: float | None = None,
        max_pause: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        unit = _poll_unit() if interval is None or max_pause is None else 1.0
        self._read = read
        self._show = show
        self._scrub = scrub
        self._hidden = [h for h in hidden if h]
        self._clock = clock
        self.throttle = Throttle(
            interval if interval is not None else READ_INTERVAL_POLLS * unit,
            max_pause if max_pause is not None else MAX_BACKOFF_POLLS * unit,
        )
        self._lock = threading.Lock()
        self._busy = False
        self._closed = False
        self._seen: dict[str, int] = {}
        self.reads = 0

    def poll(self, job: TrainingJob) -> None:
        """Start a read of the job's log if it runs, none is in flight and one is due. Never raises."""
        try:
            if job.phase != Phase.RUNNING:
                return
            task = _task(job)
            now = self._clock()
            with self._lock:
                if task is None or self._closed or self._busy or not self.throttle.due(now):
                    return
                self._busy = True
                self.reads += 1
            threading.Thread(target=self._follow, args=(task,), name="modelarts-log", daemon=True).start()
        except Exception:  # the log is a courtesy: nothing about it may touch the wait
            with self._lock:
                self._busy = False

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until no read is in flight (tests); True when none is."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if not self._busy:
                    return True
            time.sleep(0.01)
        return False

    def _follow(self, task: str) -> None:
        ok = False
        try:
            preview = self._read(task)
            ok = True
            if preview is None or not preview.content:
                return
            lines, seen = new_lines(preview.content, preview.full_size, self._seen.get(task))
            self._seen[task] = seen
            shown = [clean_line(line, self._hidden, self._scrub) for line in lines]
            newest = next((line for line in reversed(shown) if line), None)
            if newest is None:
                return
            with self._lock:
                if self._closed:
                    return
            self._show(f"{task}: {newest}")
        except Exception:  # failed, throttled, gone, or the client closed under it: try again later
            pass
        finally:
            with self._lock:
                self.throttle.done(self._clock(), ok=ok)
                self._busy = False


def _task(job: TrainingJob) -> str | None:
    """The task whose log to follow: the first the service names (``worker-0`` for a single-node job)."""
    named = [t for t in job.status.tasks if t] or [e.task for e in job.status.task_statuses if e.task]
    return named[0] if named else None
