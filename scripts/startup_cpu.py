"""The CPU one start of an MCP server over stdio costs: spawn it, send one `server/discover`
(the modern envelope), read its answer, close its input, and read the child's CPU time (user +
system, from wait4). Prints the median of N starts in seconds.

    python3 scripts/startup_cpu.py N CMD [ARGS...]

Used by scripts/bench-isolation.sh for the floor of a run's wall time (processes x start-up
CPU / cores). Bounded: each start is given 60 s, then killed.
"""

import json
import os
import select
import signal
import statistics
import subprocess
import sys
import time

DISCOVER = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "server/discover",
    "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                         "io.modelcontextprotocol/clientCapabilities": {}}},
}) + "\n"


def one_start(cmd):
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        child.stdin.write(DISCOVER.encode())
        child.stdin.flush()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ready, _, _ = select.select([child.stdout], [], [], 1)
            if ready:
                child.stdout.readline()
                break
        child.stdin.close()
        end = time.monotonic() + 10
        while time.monotonic() < end:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                return usage.ru_utime + usage.ru_stime
            time.sleep(0.02)
        os.killpg(child.pid, signal.SIGKILL)
        _, _, usage = os.wait4(child.pid, 0)
        return usage.ru_utime + usage.ru_stime
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def main():
    n = int(sys.argv[1])
    cmd = sys.argv[2:]
    print(f"{statistics.median(one_start(cmd) for _ in range(n)):.3f}")


if __name__ == "__main__":
    main()
