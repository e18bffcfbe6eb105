import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, inject, it } from 'vitest';
import { replayCapture } from '../../../collector/capture/replay-capture.js';
import { EventPipeline } from '../../../collector/event-pipeline.js';
import { createRootLogger } from '../../../common/logger.js';
import { writeChaosCapture } from '../../chaos/chaos-capture.js';
import { writeMixedEngagementCapture } from '../../fixtures/engagement-cases/mixed-capture.js';
import { openTempOutbox } from '../../fixtures/collector/temp-outbox.js';
import { dropDatabase } from '../../../dev-stack/scratch-databases.js';
import { createMigratedDatabase, openLake } from '../../helpers/lake-databases.js';

/**
 * ADR 0019: the engagement figures of the demo capture, the chaos generator's 2,000 events and the
 * mixed generator's 2,000 events (`test/fixtures/engagement-cases/mixed-capture.ts`), as JSON files to compare
 * between two trees. Runs only when asked: `ENGAGEMENT_FIGURES_OUT=/tmp/new npx vitest run --project integration
 * test/integration/ingest-api/engagement-case-figures.test.ts` writes `/tmp/new-{demo,generated,mixed}.json`.
 */
const OUT = process.env['ENGAGEMENT_FIGURES_OUT'];

async function figuresOf(capture: string): Promise<Record<string, unknown>> {
  const temp = openTempOutbox();
  const url = await createMigratedDatabase(inject('databaseUrl'));
  const lake = openLake(url);
  try {
    const pipeline = new EventPipeline({
      outbox: temp.outbox,
      logger: createRootLogger({ level: 'silent' }),
      getSelfJid: () => null,
    });
    const summary = await replayCapture({ path: capture, pipeline });
    for (const eventId of summary.eventIds) {
      const row = temp.outbox.get(eventId);
      if (row?.state === 'pending') await lake.store(eventId, row.body);
    }
    const q = async (sql: string): Promise<unknown[]> => (await lake.pool.query<Record<string, unknown>>(sql)).rows;
    return {
      totals:
        await q(`SELECT sum(messages)::int AS messages, sum(replies)::int AS replies, sum(reactions)::int AS reactions,
                              sum(joins)::int AS joins, sum(leaves)::int AS leaves FROM engagement_group_daily`),
      groupDaily:
        await q(`SELECT group_jid, to_char(day,'YYYY-MM-DD') AS day, messages, replies, reactions, active_members, joins, leaves, member_count
                             FROM engagement_group_daily ORDER BY 1, 2`),
      activeMembers: await q(
        `SELECT group_jid, to_char(day,'YYYY-MM-DD') AS day, dau, wau, mau FROM engagement_active_members ORDER BY 1 NULLS FIRST, 2`
      ),
      memberTotals:
        await q(`SELECT group_jid, participant_id, sum(messages)::int AS messages, sum(replies)::int AS replies,
                                    sum(reactions_given)::int AS reactions_given, sum(reactions_received)::int AS reactions_received,
                                    sum(edits)::int AS edits, sum(deletions)::int AS deletions
                               FROM engagement_member_daily GROUP BY 1, 2 ORDER BY 1, 2`),
      cohorts:
        await q(`SELECT group_jid, to_char(cohort_week,'YYYY-MM-DD') AS cohort_week, week_offset, cohort_size, active_members, retention::float8
                          FROM engagement_cohort_retention ORDER BY 1, 2, 3`),
      lurkers: await q(
        `SELECT group_jid, participant_id, first_active_day::text, last_active_day::text FROM engagement_lurkers ORDER BY 1, 2`
      ),
      membershipChanges: await q(
        `SELECT group_jid, participant_id, at, change FROM engagement_membership_changes ORDER BY 1, 2, 3`
      ),
      participants: await q(`SELECT count(*)::int AS n FROM whatsapp_participants`),
    };
  } finally {
    temp.cleanup();
    await lake.pool.end();
    await dropDatabase(url);
  }
}

describe.skipIf(OUT === undefined)('engagement figures (ADR 0019)', () => {
  it('writes the engagement figures of the demo capture and a 2,000-event generated capture', async () => {
    const generated = join(tmpdir(), `ee-chaos-${process.pid}.jsonl`);
    writeChaosCapture(generated, 2000);
    writeFileSync(`${OUT ?? ''}-demo.json`, JSON.stringify(await figuresOf('examples/capture.jsonl'), null, 1));
    writeFileSync(`${OUT ?? ''}-generated.json`, JSON.stringify(await figuresOf(generated), null, 1));
    const mixed = join(tmpdir(), `ee-mixed-${process.pid}.jsonl`);
    writeMixedEngagementCapture(mixed, 2000);
    writeFileSync(`${OUT ?? ''}-mixed.json`, JSON.stringify(await figuresOf(mixed), null, 1));
  }, 300_000);
});
