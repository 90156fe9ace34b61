"""Progress of a long stage of known size, as a person watching it expects: a bar on a terminal, else a plain line
at most once a minute (and at the end), each with how much is done, the time so far and an estimate of the time left.
Training's warm start speaks through it; PPO's own progress line (`experiments.callbacks.Progress`) reads the same."""

from __future__ import annotations

import time
from typing import Any

from tqdm import tqdm

PROGRESS_EVERY = 60.0  # seconds between plain progress lines when the output is not a terminal


def duration(seconds: float) -> str:
    """A duration as a person reads it: seconds, minutes, or hours."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min" if seconds < 5400 else \
        f"{seconds / 3600:.1f} h"  # fmt: skip


class Ticker:
    """`total` units of a stage named `desc`: `update(n)` as they are done, `close()` at the end. Shown as a tqdm
    bar on a terminal, as a line every `every` seconds and a last one otherwise, as nothing when not `enabled`."""

    def __init__(self, total: int, desc: str, unit: str, enabled: bool, terminal: bool,
                 every: float = PROGRESS_EVERY) -> None:  # fmt: skip
        self.total, self.desc, self.unit, self.every = total, desc, unit, every
        self.done, self.started = 0, time.perf_counter()
        self.next_line = self.started + every
        self.bar: Any = tqdm(total=total, desc=desc, unit=unit) if enabled and terminal else None
        self.plain = enabled and not terminal

    def line(self) -> str:
        """`desc: done of total unit (share), time so far, about the time left`."""
        elapsed = time.perf_counter() - self.started
        left = ""
        if 0 < self.done < self.total:
            left = f", about {duration(elapsed * (self.total - self.done) / self.done)} left"
        share = 100 * self.done / self.total if self.total else 100.0
        done = f"{self.done:,} of {self.total:,} {self.unit}s ({share:.0f}%)"
        return f"{self.desc}: {done}, {duration(elapsed)} so far{left}"

    def update(self, n: int) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.plain and time.perf_counter() >= self.next_line:
            self.next_line = time.perf_counter() + self.every
            print(self.line(), flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.plain:
            print(self.line(), flush=True)
