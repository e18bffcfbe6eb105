import { existsSync, readFileSync, statSync } from 'node:fs';
import { dataDirLayout, readDevStackFile } from './data-dir.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Thrown when `--data-dir` names no folder: nothing to read the stack's files from. */
export class DataDirNotFoundError extends Error {
  override readonly name = 'DataDirNotFoundError';
  constructor(readonly dataDir: string) {
    super(`no data folder at ${dataDir} (--data-dir): pass the folder wa-lake dev runs with (default .data)`);
  }
}

/**
 * The environment a command reads a `wa-lake dev` stack with when given its data folder (`status --data-dir`, ADR
 * 0017) instead of the banner's `export` lines: the folder's outbox and status file (the option wins over
 * `OUTBOX_PATH`/`COLLECTOR_STATUS_PATH`), and, where the environment does not set them, the Temporal address the
 * stack recorded and the folder's payload keys.
 *
 * @throws DataDirNotFoundError when `dataDir` is not a folder.
 */
export function environmentOfDataDir(dataDir: string, env: Env): Env {
  const layout = dataDirLayout(dataDir);
  if (!existsSync(layout.root) || !statSync(layout.root).isDirectory()) throw new DataDirNotFoundError(dataDir);
  const recorded = readDevStackFile(layout.stackFile);
  const keys = existsSync(layout.payloadKeyFile) ? readFileSync(layout.payloadKeyFile, 'utf8').trim() : undefined;
  return {
    ...env,
    OUTBOX_PATH: layout.outboxPath,
    COLLECTOR_STATUS_PATH: `${layout.root}/collector-status.json`,
    TEMPORAL_ADDRESS: env['TEMPORAL_ADDRESS'] ?? recorded?.temporalAddress,
    PAYLOAD_ENCRYPTION_KEYS: env['PAYLOAD_ENCRYPTION_KEYS'] ?? (keys || undefined),
  };
}
