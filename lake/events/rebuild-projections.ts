import type pg from 'pg';
import { ProgressMeter, type ProgressListener } from '../../common/progress-meter.js';
import { extractProjectionFacts, hasProjectionWork } from '../projections/extract-projection-facts.js';
import { extractMessageFacts, hasMessageWork } from '../projections/message-facts.js';
import { upsertExportGroups } from '../chat-export/export-groups.js';
import { RebuildFailedError } from '../errors.js';
import { applyMessageProjections } from './apply-message-projections.js';
import type { MessageProjectionItem } from './message-projection-item.js';
import { applyProjectionsInSavepoint } from './apply-projections.js';
import { countRawEvents, readRawEventPages } from './read-raw-event-pages.js';
import type { SkippedRow } from './unreadable-rows.js';
import { checkTimeZone, rebuildMessageReadModel } from './rebuild-messages.js';

const BATCH_SIZE = 500;
const PROJECTION_TABLES = [
  'whatsapp_groups',
  'whatsapp_participants',
  'whatsapp_lid_aliases',
  'whatsapp_group_memberships',
  'whatsapp_membership_facts',
  'whatsapp_group_snapshots',
  'whatsapp_projection_errors',
];

/**
 * Rebuilds every projection from the raw `whatsapp_event_logs` table (`wa-lake rebuild`, architecture.md §9).
 * One transaction: the raw table is locked in SHARE mode (ingest inserts wait, reads go on), the
 * projection tables are emptied and every event is applied again in `id` order with the same code
 * as live ingest — projections are order-independent, so the result equals the incremental one.
 *
 * Every raw row is read: any event may name people.
 *
 * Then the message read model (`lake/events/rebuild-messages.ts`), and the engagement time zone set to
 * `engagementTimeZone` when given; `messageEvents` counts the raw events replayed for it. With `onProgress`, each
 * page of each pass is reported with its share done, rate and ETA (ADR 0017; the raw rows are counted first).
 * @returns `{ events }`: how many raw events were replayed.
 * @throws RebuildFailedError when a query fails (the transaction is rolled back and the old projections stay).
 */
export async function rebuildProjections(
  pool: pg.Pool,
  options: { engagementTimeZone?: string; onProgress?: ProgressListener } = {}
): Promise<{ events: number; messageEvents: number; skipped: SkippedRow[] }> {
  const client = await pool.connect();
  let failure: Error | undefined;
  let events = 0;
  const skipped: SkippedRow[] = [];
  try {
    await client.query('BEGIN');
    // A zone PostgreSQL does not know fails the rebuild now, not after every event was replayed.
    if (options.engagementTimeZone !== undefined) await checkTimeZone(client, options.engagementTimeZone);
    await client.query('LOCK TABLE whatsapp_event_logs IN SHARE MODE');
    await client.query(`TRUNCATE ${PROJECTION_TABLES.join(', ')}`);
    // A running ingest API drops the identities it remembers at its next statement (ADR 0019).
    await client.query(`UPDATE whatsapp_identity_generation SET generation = generation + 1`);
    const meter = options.onProgress ? new ProgressMeter('projections', await countRawEvents(client)) : null;
    for await (const page of readRawEventPages(client, {
      pageSize: BATCH_SIZE,
      onSkipped: (row) => skipped.push(row),
    })) {
      const messageItems: MessageProjectionItem[] = [];
      for (const event of page) {
        // The same split as live ingest (`EventsRepository.store`): group work per event, the rest by batch.
        const facts = extractProjectionFacts(event);
        const messageFacts = extractMessageFacts(event);
        if (hasProjectionWork(facts)) {
          facts.participants.push(...messageFacts.identities);
          await applyProjectionsInSavepoint(client, event, facts);
        } else if (hasMessageWork(messageFacts)) {
          messageItems.push({
            eventId: event.eventId,
            type: event.type,
            effectiveAt: event.effectiveAt,
            facts: messageFacts,
          });
        }
      }
      await applyMessageProjections(client, messageItems);
      events += page.length;
      if (meter) options.onProgress?.(meter.advance(page.length));
    }
    // Exported messages make no group row as they replay: their groups are made again from them (ADR 0029).
    await upsertExportGroups(client, null);
    // The message read model in the same transaction: all projections change at once.
    const messageEvents = await rebuildMessageReadModel(
      client,
      options.engagementTimeZone,
      skipped,
      options.onProgress
    );
    await client.query('COMMIT');
    return { events, messageEvents, skipped };
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
    await client.query('ROLLBACK').catch(() => undefined);
    throw new RebuildFailedError(events, err);
  } finally {
    client.release(failure);
  }
}
