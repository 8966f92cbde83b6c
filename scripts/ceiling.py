"""The pipelined ceiling of a stdio MCP server: start it, wait for its first answer, then write
N modern `ping` requests at once and time until every reply is back. Prints requests/s.

    python3 scripts/ceiling.py N -- COMMAND ARGS...
"""

import json
import subprocess
import sys
import threading
import time

n = int(sys.argv[1])
command = sys.argv[sys.argv.index("--") + 1:]
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}


def ping(i):
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping", "params": {"_meta": meta}}) + "\n"


proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
try:
    proc.stdin.write(ping(-1))
    proc.stdin.flush()
    proc.stdout.readline()  # up and answering
    done = threading.Event()

    def read():
        seen = 0
        for line in proc.stdout:
            if '"id"' in line:
                seen += 1
                if seen == n:
                    break
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    started = time.monotonic()
    reader.start()
    proc.stdin.write("".join(ping(i) for i in range(n)))
    proc.stdin.flush()
    if not done.wait(120):
        sys.exit("no reply to every ping within 120 s")
    print(f"{n / (time.monotonic() - started):.0f}")
finally:
    proc.kill()
    proc.wait()
