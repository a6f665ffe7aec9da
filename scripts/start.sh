#!/bin/sh
# `npm start`: the built server, with the V8 settings of the database it is configured for.
# V8's young generation is one setting for the whole process, the embedded database's thread included
# (docs/operations.md, "Memory"): on the embedded default (no DATABASE_URL) a small one and a lower heap
# limit keep the process near 300 MB under load; with PostgreSQL the larger ones answer more requests a
# second. LCF_NODE_ARGS adds node flags after these (a later flag wins); LCF_ENTRY runs another entry than
# the build (the benchmarks' runs of the sources: src/main.ts with --import tsx).
if [ -n "${DATABASE_URL:-}" ]; then
  young=8 old=1024
else
  young=2 old=512
fi
# shellcheck disable=SC2086 # LCF_NODE_ARGS is a list of flags
exec node --v8-pool-size=0 --max-semi-space-size="$young" --max-old-space-size="$old" --expose-gc ${LCF_NODE_ARGS:-} "${LCF_ENTRY:-dist/main.js}" "$@"
