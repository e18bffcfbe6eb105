import { existsSync, readFileSync, statSync } from 'node:fs';
import { dataDirLayout, readDevStackFile } from './data-dir.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Thrown when `--data-dir` names no folder, or a folder that holds none of a data folder's files (outbox, collector
 * status file, stack record): `/etc` read as a data folder would report an empty outbox as healthy.
 */
export class DataDirNotFoundError extends Error {
  override readonly name = 'DataDirNotFoundError';
  constructor(
    readonly dataDir: string,
    reason = 'no data folder at'
  ) {
    super(`${reason} ${dataDir} (--data-dir): pass the folder wa-lake dev runs with (default .data)`);
  }
}

/**
 * The environment a command reads a `wa-lake dev` stack with when given its data folder (`status --data-dir`, ADR
 * 0017) instead of the banner's `export` lines: the folder's outbox and status file (the option wins over
 * `OUTBOX_PATH`/`COLLECTOR_STATUS_PATH`), and, where the environment does not set them, the Temporal address the
 * stack recorded and the folder's payload keys.
 *
 * @throws DataDirNotFoundError when `dataDir` is not a folder, or holds no data folder's file.
 */
export function environmentOfDataDir(dataDir: string, env: Env): Env {
  const layout = dataDirLayout(dataDir);
  if (!existsSync(layout.root) || !statSync(layout.root).isDirectory()) throw new DataDirNotFoundError(dataDir);
  const statusPath = `${layout.root}/collector-status.json`;
  if (![layout.outboxPath, layout.stackFile, statusPath].some((path) => existsSync(path)))
    throw new DataDirNotFoundError(dataDir, 'no outbox, collector status file or stack record in');
  const recorded = readDevStackFile(layout.stackFile);
  const keys = existsSync(layout.payloadKeyFile) ? readFileSync(layout.payloadKeyFile, 'utf8').trim() : undefined;
  return {
    ...env,
    OUTBOX_PATH: layout.outboxPath,
    COLLECTOR_STATUS_PATH: statusPath,
    TEMPORAL_ADDRESS: env['TEMPORAL_ADDRESS'] ?? recorded?.temporalAddress,
    PAYLOAD_ENCRYPTION_KEYS: env['PAYLOAD_ENCRYPTION_KEYS'] ?? (keys || undefined),
  };
}
