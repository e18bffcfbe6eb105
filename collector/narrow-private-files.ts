import { dirname, join } from 'node:path';
import type { Logger } from '../common/logger.js';
import { formatMode, tightenPath, tightenPrivateTree, tightenSqliteFiles } from '../common/private-files.js';
import type { CollectorConfig } from './config.js';

/**
 * Narrows the collector's private files that other users could read (ADR 0014 decision 6), one warning each: the
 * outbox and sent-message SQLite files, the status file, the capture being appended to, and the auth folder
 * (the WhatsApp session keys). New files are private already (the CLI's umask).
 * @throws PrivateModeError when one cannot be narrowed.
 */
export function narrowPrivateFiles(
  config: Pick<CollectorConfig, 'OUTBOX_PATH' | 'AUTH_DIR' | 'COLLECTOR_STATUS_PATH'> & {
    recordPath?: string | undefined;
  },
  logger: Logger
): void {
  const changed = [
    ...tightenSqliteFiles(config.OUTBOX_PATH),
    ...tightenSqliteFiles(join(dirname(config.OUTBOX_PATH), 'sent-messages.sqlite')),
    ...[config.COLLECTOR_STATUS_PATH, config.recordPath].flatMap((path) =>
      path === undefined ? [] : (tightenPath(path) ?? [])
    ),
    ...tightenPrivateTree(config.AUTH_DIR),
  ];
  for (const change of changed)
    logger.warn(
      { path: change.path, fromMode: formatMode(change.fromMode), toMode: formatMode(change.toMode) },
      'private file or folder was open to other users; its mode was narrowed'
    );
}
