import type pg from 'pg';
import type { LakeErasureResult } from './lake-erasure-result.js';

/** What {@link vacuumErasedTables} did: tables vacuumed, and those PostgreSQL refused with its SQLSTATE. */
export interface VacuumResult {
  vacuumed: string[];
  failed: Array<{ table: string; sqlState: string }>;
}

/**
 * The tables an erasure changed (`counts` of `forgetParticipantInLake` or `forgetExportSenderInLake`): every
 * `table.column` pseudonymized, the tables whose rows were redacted or deleted, and the kept reports. Sorted, each
 * once.
 */
export function tablesChangedByErasure(counts: LakeErasureResult['counts']): string[] {
  const tables = new Set(Object.keys(counts.pseudonymized).map((column) => column.split('.')[0] ?? column));
  const changedWhen: Array<[string, number]> = [
    ['whatsapp_event_logs', counts.messageBodiesRedacted],
    ['whatsapp_lid_aliases', counts.aliasesDeleted],
    ['whatsapp_participants', counts.participantsDeleted],
    ['whatsapp_member_links', counts.memberLinksDeleted],
    ['send_opt_ins', counts.optInsDeleted],
    ['send_test_recipients', counts.testRecipientsDeleted],
    ['outbound_messages', counts.sentMessagesRedacted],
  ];
  for (const [table, rows] of changedWhen) if (rows > 0) tables.add(table);
  // Every erasure deletes the kept reports (ADR 0034): their old versions may name the member.
  tables.add('engagement_kept_reports');
  return [...tables].sort();
}

/**
 * Runs a plain `VACUUM` on each table after an erasure committed (architecture.md §14, ADR 0027): the row versions
 * the erasure replaced still hold the erased values as dead tuples, which any later reader of the data files (a
 * file-level copy, `pageinspect`) could find; VACUUM removes them from the heap and the indexes and marks their
 * space for reuse. Not `VACUUM FULL`: it would lock each table against every read and write (the ingest API waits)
 * for a rewrite of the whole table, and the old files' blocks would still be freed on disk, not wiped. Neither
 * reaches the write-ahead log or backups (the not-reached list says so). Each table in its own statement (VACUUM
 * cannot run in a transaction); one refused (not its owner) does not stop the others.
 *
 * @param pool - autocommit statements; never a client inside a transaction.
 */
export async function vacuumErasedTables(pool: pg.Pool, tables: readonly string[]): Promise<VacuumResult> {
  const result: VacuumResult = { vacuumed: [], failed: [] };
  for (const table of tables) {
    try {
      await pool.query(`VACUUM ${escapeIdentifier(table)}`);
      result.vacuumed.push(table);
    } catch (err) {
      const sqlState = (err as { code?: unknown }).code;
      if (typeof sqlState !== 'string') throw err;
      result.failed.push({ table, sqlState });
    }
  }
  return result;
}

const escapeIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;
