import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { awaitDeliveries } from '../../../cli/demo/await-deliveries.js';
import { waitForOutboxDrain } from '../../../cli/demo/wait-for-outbox-drain.js';
import { startLocalStack } from '../../../cli/local-stack/start-local-stack.js';
import { expectedDistinctEventIds } from '../../helpers/expected-capture-events.js';
import { createMigratedDatabase } from '../../helpers/lake-databases.js';

const CAPTURE = 'examples/capture.jsonl';
const logger = pino({ level: 'silent' });

async function lakeEventIds(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ event_id: string }>(
      'SELECT event_id FROM whatsapp_event_logs ORDER BY event_id'
    );
    return result.rows.map((row) => row.event_id);
  } finally {
    await client.end();
  }
}

/** Starts the whole local stack (real dev server, worker, ingest API, PostgreSQL) replaying the capture. */
async function replayThroughStack(dataDir: string, databaseUrl: string, outboxPath: string) {
  const stack = await startLocalStack({
    dataDir,
    env: { DATABASE_URL: databaseUrl, OUTBOX_PATH: outboxPath, OUTBOX_POLL_INTERVAL_MS: '100', LOG_LEVEL: 'silent' },
    logger,
    source: { kind: 'replay', path: CAPTURE },
    uiPort: null,
  });
  try {
    const collector = stack.collector!;
    const summary = await collector.replayDone!;
    expect(await waitForOutboxDrain(collector.outbox, 120_000)).toBe(0);
    const tally = await awaitDeliveries(stack.temporalClient, [...summary.eventIds], 120_000);
    return { summary, tally, outbox: collector.outbox.countByState() };
  } finally {
    await stack.stop();
  }
}

describe('replaying examples/capture.jsonl through the whole pipeline', () => {
  let dataDir: string;
  let databaseUrl: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'wa-lake-e2e-'));
    databaseUrl = await createMigratedDatabase(inject('databaseUrl'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('stores exactly the distinct kept events, and a second replay adds no row', async () => {
    const expected = expectedDistinctEventIds(CAPTURE);
    expect(expected.size).toBeGreaterThanOrEqual(30);

    const first = await replayThroughStack(dataDir, databaseUrl, join(dataDir, 'outbox-1.sqlite'));
    expect(first.tally).toEqual({ completed: expected.size, failed: 0, unfinished: 0 });
    expect(first.outbox).toEqual({ pending: 0, started: expected.size, dead: 0 });
    expect(new Set(first.summary.eventIds)).toEqual(expected);
    const lakeAfterFirst = await lakeEventIds(databaseUrl);
    expect(new Set(lakeAfterFirst)).toEqual(expected);
    expect(lakeAfterFirst).toHaveLength(expected.size);

    // A fresh outbox forgets the first run: only the Temporal workflowId and the lake's UNIQUE(event_id)
    // stand between the second replay and a duplicate.
    const second = await replayThroughStack(dataDir, databaseUrl, join(dataDir, 'outbox-2.sqlite'));
    expect(second.outbox).toEqual({ pending: 0, started: expected.size, dead: 0 });
    expect(await lakeEventIds(databaseUrl)).toEqual(lakeAfterFirst);
  });
});
