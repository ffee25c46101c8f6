"""A stack sampler for a bench's server process (py-spy is not installed here): every
``every`` seconds it notes each thread's Python stack, and writes to ``path`` (once a second,
so a process ended by a signal leaves it) how often each function was on a busy stack
(inclusive) and at its top (self). A thread waiting (``select``, a lock, a queue, a sleep)
is not busy and is left out, and so are the bench's own threads (named ``bench-...``). It holds the GIL to sample, so C calls that release it (SQLite)
are seen whole, and pure-Python work in 5 ms slices: a guide to where time goes, not a clock.

    uv run python bench/serve.py --profile /tmp/serve-profile.txt
"""

from __future__ import annotations

import collections
import sys
import threading
import time

#: Functions at the top of a stack that mean the thread is waiting.
IDLE = frozenset(
    {"wait", "select", "poll", "_worker", "get", "sleep", "acquire", "_wait_for_tstate_lock",
     "wait_appended", "run_forever", "_run_once", "accept"}
)  # fmt: skip


def _where(code: object) -> str:
    name = getattr(code, "co_filename", "?").split("/site-packages/")[-1]
    return f"{name}:{getattr(code, 'co_name', '?')}"


def start(path: str, every: float = 0.002, top: int = 60) -> None:
    """Sample every other thread of this process from a daemon thread, writing to ``path``."""
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    busy = [0]

    def loop() -> None:
        me = threading.get_ident()
        written = time.monotonic()
        while True:
            time.sleep(every)
            bench = {t.ident for t in threading.enumerate() if t.name.startswith("bench-")}
            for tid, frame in sys._current_frames().items():
                if tid == me or tid in bench or frame.f_code.co_name in IDLE:
                    continue
                busy[0] += 1
                own[f"{_where(frame.f_code)}:{frame.f_lineno}"] += 1
                seen: set[str] = set()
                f: object = frame
                while f is not None:
                    key = _where(f.f_code)  # type: ignore[attr-defined]
                    if key not in seen:
                        seen.add(key)
                        inclusive[key] += 1
                    f = f.f_back  # type: ignore[attr-defined]
            if time.monotonic() - written >= 1:
                written = time.monotonic()
                n = max(busy[0], 1)
                lines = [f"busy samples: {busy[0]} (every {every * 1000:g} ms)", "== inclusive"]
                lines += [f"{c:7d} {c / n:6.1%} {k}" for k, c in inclusive.most_common(top)]
                lines += ["== self"] + [
                    f"{c:7d} {c / n:6.1%} {k}" for k, c in own.most_common(top // 2)
                ]
                with open(path, "w", encoding="utf-8") as out:
                    out.write("\n".join(lines) + "\n")

    threading.Thread(target=loop, name="bench-sampler", daemon=True).start()
