import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import type pg from 'pg';
import { findMemberUsersInOutbox, forgetParticipantInOutbox, OutboxStore } from '../../collector/index.js';
import { parseParticipantIdentifier } from '../../common/participant-identifier.js';
import { jidUsers } from '../../common/whatsapp-jid.js';
import {
  expandAliases,
  exportSenderNameOf,
  findLinkedAccountJids,
  foldErasureIntoRollups,
  forgetExportSenderInLake,
  findPendingErasures,
  forgetParticipantInLake,
  forgetPendingErasures,
  keepPendingErasure,
  recordErasureRun,
  type LakeErasureResult,
  type PendingErasure,
  tablesChangedByErasure,
  vacuumErasedTables,
} from '../../lake/index.js';
import { forgetInDeadLetters } from '../../ops/index.js';
import {
  eraseInLakeUnlessNothing,
  isNothingInLake,
  type Tombstones,
  userIdentifiers,
  writeTombstones,
} from './erase-in-lake-unless-nothing.js';
import { postgresNotReachedLines } from './postgres-not-reached.js';
import {
  RUNNING_DELIVERIES_QUERY,
  runningDeliveriesLine,
  type TemporalHistories,
  temporalHistoriesOf,
  temporalHistoryLines,
} from './temporal-history-queries.js';

/**
 * Thrown before anything is changed when an identifier `forget` was given is the linked account's own (ADR 0014
 * decision 5): erasing it removes the account's identity from the lake and breaks its group sends. `--force`
 * lets it through.
 */
export class LinkedAccountIdentifierError extends Error {
  override readonly name = 'LinkedAccountIdentifierError';
  constructor(readonly accountJids: readonly string[]) {
    super(
      `refused: ${accountJids.join(', ')} ${accountJids.length > 1 ? 'are' : 'is'} the linked WhatsApp account's ` +
        'own identifier; erasing it removes the account from the lake and breaks its group sends. Nothing was ' +
        'changed; pass --force to erase it anyway'
    );
  }
}

/** What one `wa-lake forget` run did; recorded in `whatsapp_erasure_runs` (no identifiers in it). */
export interface ErasureReport {
  runId: string;
  requestedBy: string;
  counts: {
    lake: LakeErasureResult['counts'];
    outboxRowsRewritten: number | null;
    deadLetterEntriesRedacted: number | null;
  };
  /** Stores this run could not change, each with what the operator can do. */
  notReached: string[];
  /** Tables vacuumed after the lake transaction committed, so the replaced row versions go too (ADR 0027). */
  vacuumedTables: string[];
  /**
   * False when the outbox or the dead-letter entries were not reached (ADR 0017): the erasure is then
   * INCOMPLETE, and its identifiers are kept hashed (`whatsapp_pending_erasures`) for the rerun that completes it.
   */
  isComplete: boolean;
  /** True when this run continued an earlier incomplete erasure of the same member (found by a kept hash). */
  continuedPendingErasure: boolean;
  /**
   * True when no store held anything of the participant (every count zero, no earlier incomplete erasure): a
   * mistyped identifier, or a member erased before, which the run refuses (`refused`) unless forced.
   */
  foundNothing: boolean;
  /**
   * True when nothing was found and `force` was not given (ADR 0014 decision 5): no run is recorded and the
   * command exits 1, since an identifier that matches nothing is most often mistyped.
   */
  refused: boolean;
  /** The histories Temporal keeps of this member until retention, with the queries that list them. */
  temporalHistories: TemporalHistories;
  /**
   * `deliverEvent` workflows running when the run ended (null: not counted), which `forget` cannot reach: the
   * lake's tombstones handle what they deliver (ADR 0027).
   */
  runningDeliveries: number | null;
}

/** True when the counts show no change anywhere. */
function isNothingFound(counts: ErasureReport['counts']): boolean {
  return (
    isNothingInLake(counts.lake) &&
    (counts.outboxRowsRewritten ?? 0) === 0 &&
    (counts.deadLetterEntriesRedacted ?? 0) === 0
  );
}

/** Stores no command can rewrite (architecture.md §14): reported on every run, after Temporal's histories. */
const alwaysNotReached = (): string[] => [
  'capture files written with --record, and the first collector trail: delete or edit them by hand',
  'backups and dumps of PostgreSQL and of the outbox: they age out with your backup retention',
  "files wa-lake itself wrote earlier (wa-lake export --participant output, the demo's engagement-report.html, " +
    'report --html/--json/--csv files, export --parquet folders): not searched; delete or regenerate them by hand',
];

/**
 * `wa-lake forget --participant` (architecture.md §14, ADR 0010): erases one member's personal data in the
 * lake (one PostgreSQL transaction), the collector's outbox (one SQLite transaction, when `outboxPath`
 * exists on this host) and the dead-letter entries (one signal), with one random pseudonym for the run,
 * then records the run (who, when, counts, what was not reached). Idempotent: a rerun changes nothing.
 * A run that misses the outbox or the dead letters keeps the member's identifiers hashed (ADR 0017); a
 * rerun under any one of them recognises the others in the outbox by those hashes, and a run that reaches every
 * store deletes them.
 *
 * @param options.temporalClient - null when Temporal is not reachable (reported as not reached, with
 *   `temporalUnreachableReason` when given).
 * @param options.payloadsEncrypted - whether PAYLOAD_ENCRYPTION_KEYS is set, so the report says truly
 *   whether Temporal histories hold bodies in clear.
 * @param options.accountJids - the linked account's JIDs known outside the lake (the auth folder's `creds.json`);
 *   the lake's own record of them is added. Without `force`, a member whose JIDs include one is refused.
 * @param options.force - erase the linked account's identifiers, and record a run that found nothing.
 * @returns the report; `counts.deadLetterEntriesRedacted` is null when the dead-letter entries were not
 *   reached (the caller must not report success then).
 * @throws InvalidParticipantIdentifierError; LinkedAccountIdentifierError (nothing changed); pg errors (the lake
 *   transaction is rolled back).
 */
export async function runErasure(options: {
  pool: pg.Pool;
  outboxPath: string;
  temporalClient: Client | null;
  temporalUnreachableReason?: string;
  payloadsEncrypted?: boolean;
  participant: string;
  requestedBy: string;
  temporalNamespace?: string;
  accountJids?: readonly string[];
  force?: boolean;
  /** `ERASURE_KEY` (ADR 0027): the key of the tombstones this run writes; the ingest API must hold the same. */
  erasureKey: string;
}): Promise<ErasureReport> {
  const exportSender = exportSenderNameOf(options.participant);
  if (exportSender !== undefined) return eraseExportSender(options, exportSender);
  const { jids } = parseParticipantIdentifier(options.participant, '--participant', [
    'name:NAME (a chat-export sender)',
  ]);
  if (options.force !== true) await refuseLinkedAccount(options.pool, jids, options.accountJids ?? []);
  const startedAt = new Date();
  const pseudonym = `erased-${randomUUID()}@erased`;
  const pending = await findPendingErasures(options.pool, options.erasureKey, jidUsers(jids));
  // The tombstones commit with the erasure, so no event can be stored between them unchecked (ADR 0027). A lake
  // that holds nothing of the member is rolled back: the run may yet be refused, and a refused run commits nothing.
  const mayBeRefused = pending.length === 0 && options.force !== true;
  const tombstones: Tombstones = { key: options.erasureKey, pseudonym, isWritten: false };
  const lake = await eraseInLakeUnlessNothing(options.pool, tombstones, mayBeRefused, async (client) => {
    const result = await forgetParticipantInLake(client, jids, pseudonym);
    return { result, identifiers: userIdentifiers([...jids, ...result.jids]) };
  });
  // A rolled-back lake transaction changed nothing: no rollup to fold, no table to vacuum.
  const isLakeChanged = tombstones.isWritten;
  const rollupTables = isLakeChanged ? await foldErasureIntoRollups(options.pool) : [];
  const changedTables = isLakeChanged ? [...tablesChangedByErasure(lake.counts), ...rollupTables] : [];
  const vacuum = await vacuumErasedTables(options.pool, changedTables);
  const notReached: string[] = lake.skipped.map(
    (row) =>
      `lake event ${row.eventId}: PostgreSQL cannot render it (SQLSTATE ${row.sqlState}), so it was not searched; ` +
      'repair or delete that row, then rerun forget (ADR 0014)'
  );
  const memberJids = new Set(lake.jids);

  let outboxRowsRewritten: number | null = null;
  const eventIds = new Set(lake.eventIds);
  if (existsSync(options.outboxPath)) {
    const outbox = OutboxStore.open({ path: options.outboxPath });
    try {
      for (const user of recognisePendingUsers(outbox, pending)) memberJids.add(`${user}@lid`);
      const result = forgetParticipantInOutbox(outbox, [...memberJids], pseudonym);
      if (tombstones.isWritten || result.rowsRewritten > 0) await writeTombstones(options.pool, tombstones, memberJids);
      outboxRowsRewritten = result.rowsRewritten;
      for (const eventId of result.eventIds) eventIds.add(eventId);
      // The rewritten rows' earlier pages stay in the WAL until a checkpoint: the member's ids with them.
      if (!outbox.truncateWal()) {
        notReached.push(
          `collector outbox: its write-ahead log (${options.outboxPath}-wal) still holds pages from before the ` +
            'erasure (another process kept reading it); rerun forget'
        );
      }
    } finally {
      outbox.close();
    }
  } else {
    notReached.push(
      `collector outbox: no file at ${options.outboxPath} (set OUTBOX_PATH as wa-lake dev prints it, or run ` +
        'forget where the collector runs); rerun forget to complete the erasure'
    );
  }

  let deadLetterEntriesRedacted: number | null = null;
  if (options.temporalClient) {
    try {
      deadLetterEntriesRedacted = await forgetInDeadLetters(options.temporalClient, [...memberJids], eventIds);
    } catch (err) {
      notReached.push(`dead-letter entries: ${err instanceof Error ? err.message : String(err)}`);
    }
  } else {
    const reason = options.temporalUnreachableReason ? ` (${options.temporalUnreachableReason})` : '';
    notReached.push(`dead-letter entries: Temporal not reachable${reason}; rerun forget when it is`);
  }
  const temporalHistories = temporalHistoriesOf(
    options.temporalNamespace ?? 'default',
    eventIds,
    lake.sentMessages.sentMessageIds
  );
  const running = await countRunningDeliveries(options.temporalClient);
  notReached.push(runningDeliveriesLine(options.temporalNamespace ?? 'default', running.count, running.reason));
  notReached.push(
    ...temporalHistoryLines(temporalHistories, {
      namespace: options.temporalNamespace ?? 'default',
      payloadsEncrypted: options.payloadsEncrypted ?? false,
      unfinishedMessageIds: lake.sentMessages.unfinishedMessageIds,
    }),
    ...alwaysNotReached(),
    ...postgresNotReachedLines(vacuum)
  );

  const isComplete = outboxRowsRewritten !== null && deadLetterEntriesRedacted !== null;
  if (isComplete) {
    await forgetPendingErasures(
      options.pool,
      pending.map((erasure) => erasure.id)
    );
  } else {
    await keepPendingErasure(options.pool, options.erasureKey, pending, jidUsers([...memberJids]));
  }
  const foundNothing =
    pending.length === 0 && isNothingFound({ lake: lake.counts, outboxRowsRewritten, deadLetterEntriesRedacted });
  const report: ErasureReport = {
    runId: randomUUID(),
    requestedBy: options.requestedBy,
    counts: { lake: lake.counts, outboxRowsRewritten, deadLetterEntriesRedacted },
    notReached,
    vacuumedTables: vacuum.vacuumed,
    isComplete,
    continuedPendingErasure: pending.length > 0,
    foundNothing,
    refused: foundNothing && isComplete && options.force !== true,
    temporalHistories,
    runningDeliveries: running.count,
  };
  if (report.refused) return report;
  // Found only in the dead letters, or forced, or incomplete: the member's identifiers still get their tombstones.
  if (!tombstones.isWritten) await writeTombstones(options.pool, tombstones, memberJids);
  await recordErasureRun(options.pool, {
    id: report.runId,
    requestedBy: report.requestedBy,
    startedAt,
    counts: report.counts,
    notReached,
  });
  return report;
}

/**
 * `forget --participant name:NAME` (ADR 0023): a sender of exported messages no participant is known for. Only the
 * lake holds it (exported rows pass through neither the outbox nor Temporal), so the run is complete when the lake
 * transaction commits; refused like any run that finds nothing, unless `force`.
 */
async function eraseExportSender(
  options: { pool: pg.Pool; requestedBy: string; temporalNamespace?: string; force?: boolean; erasureKey: string },
  name: string
): Promise<ErasureReport> {
  const startedAt = new Date();
  const pseudonym = `erased-${randomUUID()}@erased`;
  const tombstones: Tombstones = { key: options.erasureKey, pseudonym, isWritten: false };
  const lake = await eraseInLakeUnlessNothing(options.pool, tombstones, options.force !== true, async (client) => ({
    result: await forgetExportSenderInLake(client, name, pseudonym),
    identifiers: [{ kind: 'name', value: name }],
  }));
  const counts = { lake: lake.counts, outboxRowsRewritten: 0, deadLetterEntriesRedacted: 0 };
  const foundNothing = isNothingFound(counts);
  const vacuum = await vacuumErasedTables(
    options.pool,
    tombstones.isWritten ? tablesChangedByErasure(lake.counts) : []
  );
  const notReached = [
    'the chat export files themselves (.txt, .zip): delete them by hand',
    ...alwaysNotReached(),
    ...postgresNotReachedLines(vacuum),
  ];
  const report: ErasureReport = {
    runId: randomUUID(),
    requestedBy: options.requestedBy,
    counts,
    notReached,
    vacuumedTables: vacuum.vacuumed,
    isComplete: true,
    continuedPendingErasure: false,
    foundNothing,
    refused: foundNothing && options.force !== true,
    temporalHistories: temporalHistoriesOf(options.temporalNamespace ?? 'default', new Set(), []),
    runningDeliveries: null,
  };
  if (report.refused) return report;
  await recordErasureRun(options.pool, {
    id: report.runId,
    requestedBy: report.requestedBy,
    startedAt,
    counts,
    notReached,
  });
  return report;
}

/** @throws LinkedAccountIdentifierError when the member's JIDs (aliases included) share a user with the account. */
async function refuseLinkedAccount(
  pool: pg.Pool,
  jids: readonly string[],
  knownAccountJids: readonly string[]
): Promise<void> {
  const accountJids = [...knownAccountJids, ...(await findLinkedAccountJids(pool))];
  const accountUsers = new Set(jidUsers(accountJids));
  const memberJids = await expandAliases(pool, jids);
  const shared = memberJids.filter((jid) => jidUsers([jid]).some((user) => accountUsers.has(user)));
  if (shared.length > 0) throw new LinkedAccountIdentifierError(shared);
}

/** The member's JID digits an earlier incomplete run kept hashed, as they appear in the outbox. */
function recognisePendingUsers(outbox: OutboxStore, pending: readonly PendingErasure[]): string[] {
  if (pending.length === 0) return [];
  return findMemberUsersInOutbox(outbox, (user) => pending.some((erasure) => erasure.has(user)));
}

/** How many `deliverEvent` workflows are running now, or null with the reason they could not be counted. */
async function countRunningDeliveries(client: Client | null): Promise<{ count: number | null; reason?: string }> {
  if (client === null) return { count: null };
  try {
    return { count: (await client.workflow.count(RUNNING_DELIVERIES_QUERY)).count };
  } catch (err) {
    return { count: null, reason: err instanceof Error ? err.message : String(err) };
  }
}
