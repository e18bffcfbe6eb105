#!/usr/bin/env node
// Entry of the `wa-lake` CLI: runs the compiled tree in dist/ (ADR 0017), compiling it first when a source
// is newer than the last build, so a `git pull` or an edit never runs stale code. An image without sources (the
// container) runs its dist/ as built.
import { ensureCompiled } from './ensure-compiled.js';

try {
  ensureCompiled((reason) =>
    process.stderr.write(`wa-lake: the sources changed since the last build (${reason}); compiling to dist/…\n`)
  );
} catch (err) {
  process.stderr.write(`wa-lake: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
await import('../dist/cli/main.js');
