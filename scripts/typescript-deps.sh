#!/usr/bin/env bash
# Install (or reuse) the node_modules of the TypeScript-SDK fixture server
# (fixtures/servers/typescript: @modelcontextprotocol/sdk pinned exactly in package.json and
# package-lock.json). How: scripts/npm-fixture.sh.
#
#   scripts/typescript-deps.sh            -> node_modules in fixtures/servers/typescript
#   NODE=$(scripts/typescript-deps.sh)    -> the only line on stdout is the node path
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/npm-fixture.sh" typescript-deps \
    fixtures/servers/typescript @modelcontextprotocol/sdk \
    "await import('@modelcontextprotocol/sdk/server/mcp.js'); await import('zod')"
