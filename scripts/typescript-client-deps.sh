#!/usr/bin/env bash
# Install (or reuse) the node_modules of the TypeScript-SDK v2 fixture client
# (fixtures/clients/typescript: @modelcontextprotocol/client pinned exactly in package.json and
# package-lock.json). How: scripts/npm-fixture.sh.
#
#   scripts/typescript-client-deps.sh     -> node_modules in fixtures/clients/typescript
#   NODE=$(scripts/typescript-client-deps.sh) -> the only line on stdout is the node path
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/npm-fixture.sh" typescript-client-deps \
    fixtures/clients/typescript @modelcontextprotocol/client \
    "await import('@modelcontextprotocol/client'); await import('@modelcontextprotocol/client/stdio')"
