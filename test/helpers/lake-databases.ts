import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDatabase, dropDatabase } from '../../dev-stack/scratch-databases.js';
import { EventsRepository } from '../../lake/events/events-repository.js';
import { createPool } from '../../lake/pool.js';
import { parseIngestBody } from '../../ingest-api/parse-ingest-body.js';
import { TEST_ERASURE_KEY } from './erasure-key.js';
import { silentLogger } from './silent-logger.js';

/**
 * Creates a fresh, migrated database (random name `wa_lake_<16 hex>`) on the same server as `databaseUrl`
 * and returns its URL: a copy of the run's migrated template (`lakeTemplateDatabase`, made by the global setup
 * once per run). Drop it with {@link dropDatabase} once its pools are ended.
 */
export function createMigratedDatabase(databaseUrl: string): Promise<string> {
  return createDatabase(databaseUrl, `wa_lake_${randomUUID().replaceAll('-', '').slice(0, 16)}`, {
    template: inject('lakeTemplateDatabase'),
  });
}

/** A lake database with a repository, to store events without HTTP. */
export interface TestLake {
  pool: pg.Pool;
  repository: EventsRepository;
  /** Stores one delivery body (JSON text) as the API would. */
  store(eventId: string, body: string, receivedAt?: Date): Promise<string>;
}

/** Opens a pool and repository on `databaseUrl`. */
export function openLake(databaseUrl: string): TestLake {
  const logger = silentLogger();
  const pool = createPool(databaseUrl, { max: 4, logger });
  const repository = new EventsRepository(pool, logger, { erasureKey: TEST_ERASURE_KEY });
  return {
    pool,
    repository,
    store: async (eventId, body, receivedAt = new Date('2030-01-01T00:00:00Z')) =>
      (await repository.store(eventId, parseIngestBody(Buffer.from(body, 'utf8'), 'application/json'), receivedAt))
        .status,
  };
}

/**
 * Registers `beforeAll`/`afterAll` hooks of the calling test file: a fresh migrated database on the test
 * server, a {@link TestLake} on it, and both dropped at the end. Read `lake` and `url` inside tests only
 * (they throw before `beforeAll` ran).
 */
export function useFreshLake(): { readonly lake: TestLake; readonly url: string } {
  const fresh = useFreshLakes(1);
  return {
    get lake() {
      return fresh.at(0).lake;
    },
    get url() {
      return fresh.at(0).url;
    },
  };
}

/**
 * {@link useFreshLake} for a file that compares `count` lakes (e.g. the same events in different orders):
 * `count` fresh migrated databases, created in parallel in one `beforeAll`, each with a {@link TestLake},
 * all dropped in one `afterAll`. Per file, not per test: tests of the file share them. Read them inside
 * tests only. @throws from `at`/`lakes` before `beforeAll` ran, and from `at` for an index ≥ `count`.
 */
export function useFreshLakes(count: number): {
  /** The lakes, in creation order (length `count`). */
  readonly lakes: TestLake[];
  /** Lake `index` and its URL. */
  at(index: number): { lake: TestLake; url: string };
} {
  let opened: Array<{ lake: TestLake; url: string }> | undefined;
  beforeAll(async () => {
    const urls = await Promise.all(Array.from({ length: count }, () => createMigratedDatabase(inject('databaseUrl'))));
    opened = urls.map((url) => ({ url, lake: openLake(url) }));
  });
  afterAll(async () => {
    if (!opened) return;
    await Promise.all(opened.map(({ lake }) => lake.pool.end()));
    await Promise.all(opened.map(({ url }) => dropDatabase(url)));
  });
  const all = (): Array<{ lake: TestLake; url: string }> => {
    if (!opened) throw new Error('useFreshLakes: read the lakes inside a test, after beforeAll');
    return opened;
  };
  return {
    get lakes() {
      return all().map(({ lake }) => lake);
    },
    at(index) {
      const one = all()[index];
      if (!one) throw new Error(`useFreshLakes: no lake ${index} of ${count}`);
      return one;
    },
  };
}

/** Every projection table as plain rows, without processing-time columns, in a stable order. */
export async function readProjections(pool: pg.Pool, groupJids: readonly string[]): Promise<Record<string, unknown[]>> {
  const queries: Record<string, string> = {
    groups: `SELECT jid, subject, description, settings, field_versions, latest_snapshot, snapshot_at, snapshot_event_id FROM whatsapp_groups WHERE jid = ANY($1) ORDER BY jid`,
    memberships: `SELECT group_jid, participant_id, role, joined_at, left_at FROM whatsapp_group_memberships WHERE group_jid = ANY($1) ORDER BY group_jid, participant_id`,
    participants: `SELECT id, lid, phone_jid FROM whatsapp_participants ORDER BY id`,
    aliases: `SELECT lid, phone_jid, first_seen_at, last_seen_at FROM whatsapp_lid_aliases ORDER BY lid, phone_jid`,
    errors: `SELECT event_id, error_name FROM whatsapp_projection_errors ORDER BY event_id`,
    unobserved: `SELECT group_jid, started_at, ended_at FROM whatsapp_group_unobserved_periods WHERE group_jid = ANY($1) ORDER BY group_jid, started_at, ended_at`,
  };
  const result: Record<string, unknown[]> = {};
  for (const [name, sql] of Object.entries(queries))
    result[name] = (await pool.query(sql, sql.includes('$1') ? [groupJids] : [])).rows;
  return result;
}
