#!/usr/bin/env bash
# Install (or reuse) the node_modules of the TypeScript-SDK v2 fixture server
# (fixtures/servers/typescript-v2: @modelcontextprotocol/server and @modelcontextprotocol/node
# pinned exactly in package.json and package-lock.json). How: scripts/npm-fixture.sh.
#
#   scripts/typescript-v2-deps.sh         -> node_modules in fixtures/servers/typescript-v2
#   NODE=$(scripts/typescript-v2-deps.sh) -> the only line on stdout is the node path
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/npm-fixture.sh" typescript-v2-deps \
    fixtures/servers/typescript-v2 @modelcontextprotocol/server \
    "await import('@modelcontextprotocol/server'); await import('@modelcontextprotocol/server/stdio'); await import('@modelcontextprotocol/node'); await import('zod/v4')"
