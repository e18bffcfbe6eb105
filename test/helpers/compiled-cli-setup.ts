import { ensureCompiled } from '../../bin/ensure-compiled.js';

/**
 * Integration tests run `wa-lake` as a user does (bin/wa-lake.js → dist/). Compiling here, once, before any test
 * starts, keeps the first CLI test from paying the build and from printing its notice (ADR 0017).
 */
export function setup(): void {
  ensureCompiled((reason) => process.stdout.write(`compiling the CLI to dist/ for the CLI tests (${reason})\n`));
}
