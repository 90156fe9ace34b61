"""How many threads the batched kernels run on, so that a busy machine costs its fair share and no more.

A `prange` loop ends when its slowest thread does. On a machine where another process takes a core, a thread
that loses its core holds every other one at the loop's end, and OpenMP's threads, which by default spin while
they wait, take turns with that process on the cores they spin on. Two measures keep the batched environment
from collapsing there:

- `prefer_passive_waiting()`, called when this module is imported (the package imports it first): idle
  OpenMP threads sleep instead of spinning (`OMP_WAIT_POLICY=passive`), unless the user has chosen a policy.
  It must run before an OpenMP runtime starts: numba's starts at the first parallel call; torch's when torch
  is imported, so the entry points that train import this package first.
- `ThreadCount("auto")`: the kernels' thread count chosen by timing them. It plays the fastest count it has
  seen, and now and then tries the others for a few calls; when the machine's load changes, the other count
  wins a trial and is played from then on. The trials back off while the same count keeps winning, so on a
  steady machine they cost about a percent. The games' results never depend on the number of threads.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

WAIT_POLICY = "OMP_WAIT_POLICY"


def prefer_passive_waiting() -> None:
    """Let idle OpenMP threads sleep rather than spin, unless the user set a wait policy (see the module)."""
    os.environ.setdefault(WAIT_POLICY, "passive")


prefer_passive_waiting()


def max_threads() -> int:
    """The most threads numba may run (`NUMBA_NUM_THREADS`, by default the number of cores)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def check_threads(threads: int | str) -> int | str:
    """`threads` as given if "auto" or a count from 1 to `max_threads()`; else ValueError saying what is allowed."""
    if threads == "auto":
        return threads
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= max_threads():
        raise ValueError(f"threads must be 'auto' or a whole number from 1 to {max_threads()}, got {threads!r}")
    return threads


def candidate_counts(most: int) -> tuple[int, ...]:
    """The counts "auto" chooses among: 1, the powers of two below `most`, and `most`."""
    counts = {1, most}
    power = 2
    while power < most:
        counts.add(power)
        power *= 2
    return tuple(sorted(counts))


class ThreadCount:
    """The numba threads of one repeated parallel call: a fixed count, or chosen by timing the calls ("auto").

    `with threads.chosen():` runs its block on the chosen count and, under "auto", times it. The calling
    thread's own numba thread count is restored afterwards.
    """

    WARMUP = 2  # calls not timed: the first ones load (or compile) the kernel
    TRIAL = 3  # calls per trial of another count
    FIRST_GAP = 16  # calls between trials, doubled each time the played count keeps winning ...
    MOST_GAP = 1024  # ... up to this
    MARGIN = 0.9  # another count is played from then on when its trial is at most this share of the played one's

    def __init__(self, threads: int | str = "auto", most: int | None = None) -> None:
        self.threads = check_threads(threads)
        most = max_threads() if most is None else most
        self.counts = candidate_counts(most) if threads == "auto" else (int(threads),)
        self.played = max(self.counts)
        self._average: dict[int, float] = {}  # seconds per call, a moving average of each count's recent calls
        self._calls = 0
        self._gap = self.FIRST_GAP
        self._next_trial = self.WARMUP + self.FIRST_GAP
        self._trial: list[int] = []  # the counts still to try in this trial, the one being tried first
        self._trial_times: list[float] = []

    @contextmanager
    def chosen(self) -> Iterator[int]:
        """Run the block on the chosen number of threads (which it is given), timing it under "auto"."""
        import numba

        count = self._trial[0] if self._trial else self.played
        previous = numba.get_num_threads()
        numba.set_num_threads(count)
        start = time.perf_counter()
        try:
            yield count
        finally:
            elapsed = time.perf_counter() - start
            numba.set_num_threads(previous)
            if len(self.counts) > 1:
                self._learn(count, elapsed)

    def _learn(self, count: int, elapsed: float) -> None:
        self._calls += 1
        if self._calls <= self.WARMUP:
            return
        if self._trial:
            self._trial_times.append(elapsed)
            if len(self._trial_times) == self.TRIAL:
                self._average[count] = sorted(self._trial_times)[self.TRIAL // 2]  # the median: one stall is noise
                self._trial_times = []
                self._trial.pop(0)
                if not self._trial:
                    self._conclude()
            return
        average = self._average.get(count)
        self._average[count] = elapsed if average is None else 0.8 * average + 0.2 * elapsed
        if self._calls >= self._next_trial:
            self._trial = [c for c in self.counts if c != self.played]

    def _conclude(self) -> None:
        """After a trial: play the fastest count, trying again soon after a change and later and later after none."""
        played = self._average[self.played]
        best = min(self.counts, key=lambda c: self._average.get(c, float("inf")))
        if best != self.played and self._average[best] <= self.MARGIN * played:
            self.played = best
            self._gap = self.FIRST_GAP
        else:
            self._gap = min(2 * self._gap, self.MOST_GAP)
        self._next_trial = self._calls + self._gap

    def __repr__(self) -> str:
        return f"ThreadCount({self.threads!r}, playing {self.played})"


@contextmanager
def competing_process() -> Iterator[None]:
    """Another process busy on one core (a Python loop) while the block runs: a machine shared with one job."""
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)  # let it take its core
        yield
    finally:
        busy.kill()
        busy.wait()
