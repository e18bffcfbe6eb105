import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type pg from 'pg';
import { stringifyJsonExactly } from '../../common/exact-json-text.js';
import { canonicalParticipantJid } from '../../common/participant-identifier.js';
import { makeDirectory } from '../../common/make-directory.js';
import { countExport, readParticipantExport, recordAccessRequest, resolveExportJids } from '../../lake/index.js';
import { renderParticipantExportHtml } from './render-participant-export-html.js';
import { temporalHistoriesOf } from './temporal-history-queries.js';

/** What one `wa-lake export` wrote. */
export interface WrittenExport {
  runId: string;
  jsonPath: string;
  htmlPath: string;
  isFound: boolean;
  counts: Record<string, number>;
}

/** Stores the export does not read (architecture.md §14), each with what the operator can do. */
function notReachedLines(namespace: string, sentMessageIds: readonly string[]): string[] {
  const sendQueries = temporalHistoriesOf(namespace, [], sentMessageIds).queries;
  return [
    'Temporal workflow histories: deliverEvent inputs hold event bodies and sendMessage inputs the recipient, ' +
      'text and metadata until the namespace retention ends (TEMPORAL_NAMESPACE_RETENTION); the lake holds the ' +
      'same data, exported here',
    ...sendQueries.map((query) => `sendMessage histories of the messages sent to this person: ${query}`),
    'the collector outbox: events not yet delivered to the lake (OUTBOX_PATH); they reach the lake within minutes',
    'capture files written with --record, and backups and dumps of PostgreSQL and of the outbox',
  ];
}

/**
 * `wa-lake export --participant` (ADR 0014 decision 7): resolves the identifier (a pseudonym, a member id, or a
 * participant and its aliases), reads the person's data in one snapshot, writes
 * `participant-export-<run>.json` (schema-versioned) and `.html` into `outDir` (owner-only, the CLI's umask),
 * and records the request in `whatsapp_access_requests` without the identifier or the data. Nothing is logged
 * or sent to Temporal.
 * @throws InvalidParticipantIdentifierError for an identifier that is none of those; DirectoryNotCreatedError.
 */
export async function runParticipantExport(options: {
  pool: pg.Pool;
  identifier: string;
  outDir: string;
  requestedBy: string;
  temporalNamespace: string;
  now?: Date;
}): Promise<WrittenExport> {
  const resolved = await resolveExportJids(options.pool, options.identifier, (input) =>
    canonicalParticipantJid(input, '--participant')
  );
  const data = await readParticipantExport(
    options.pool,
    { identifier: options.identifier, ...resolved },
    options.now ?? new Date()
  );
  data.notReached = notReachedLines(
    options.temporalNamespace,
    data.messagesSentToThem.map((message) => message.id)
  );
  const runId = randomUUID();
  const dir = makeDirectory(resolve(options.outDir));
  const jsonPath = join(dir, `participant-export-${runId}.json`);
  const htmlPath = join(dir, `participant-export-${runId}.html`);
  writeFileSync(jsonPath, `${stringifyJsonExactly(data)}\n`, { mode: 0o600 });
  writeFileSync(htmlPath, renderParticipantExportHtml(data), { mode: 0o600 });
  const counts = countExport(data);
  await recordAccessRequest(options.pool, {
    id: runId,
    requestedBy: options.requestedBy,
    readAs: resolved.readAs,
    counts,
    writtenTo: dir,
  });
  return { runId, jsonPath, htmlPath, isFound: data.isFound, counts };
}
