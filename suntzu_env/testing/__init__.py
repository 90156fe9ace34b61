"""The conformance suite a game runs to prove it plugs in, as `pettingzoo.test` and pgx's `api_test` ship theirs:

```python
from suntzu_env.testing import conformance_test

conformance_test(MY_GAME)  # every check; AssertionError naming the game and what failed
```

Each check is also a function of its own (`CHECKS`, by name); see `suntzu_env.testing.conformance`.
"""

from __future__ import annotations

from suntzu_env.testing.conformance import CHECKS, ConformanceError, NotApplicable, conformance_test

__all__ = ["CHECKS", "ConformanceError", "NotApplicable", "conformance_test"]
