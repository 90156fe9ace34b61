"""Training, evaluation and benchmarks over the games of `suntzu_env`.

Every entry point (`python -m experiments.<name>`) imports this package before torch, and so
`suntzu_env.core.threads` first: OpenMP's idle threads, numba's and torch's alike, then sleep instead of spinning
on a machine shared with other work.
"""

import suntzu_env.core.threads  # noqa: F401
