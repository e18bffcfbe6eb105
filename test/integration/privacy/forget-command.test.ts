import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import { runCli } from '../../helpers/run-cli.js';

// `forget` writes an erasure tombstone, which holds for the whole lake: every later delivery to that lake needs
// ERASURE_KEY (ADR 0027). So this file erases in a lake of its own, never in the run's shared database.
const fresh = useFreshLake();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function erasureRunExists(databaseUrl: string, runId: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM whatsapp_erasure_runs WHERE id = $1', [runId]);
    return rowCount === 1;
  } finally {
    await client.end();
  }
}

describe('wa-lake forget while Temporal (the dead-letter store) is unreachable', () => {
  it('exits 1, says the dead-letter entries were not erased and why, and what was done', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-forget-'));
    dirs.push(dir);
    const databaseUrl = fresh.url;
    const run = await runCli(['forget', '--participant', '5511900000042'], {
      env: {
        DATABASE_URL: databaseUrl,
        OUTBOX_PATH: join(dir, 'outbox.sqlite'),
        AUTH_DIR: join(dir, 'auth'),
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        ERASURE_KEY: TEST_ERASURE_KEY,
      },
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('INCOMPLETE, the outbox and the dead-letter entries were NOT erased');
    expect(run.stderr).toContain('cannot reach Temporal at 127.0.0.1:1');
    expect(run.stderr).toContain(`collector outbox: no file at ${join(dir, 'outbox.sqlite')}`);
    expect(run.stderr).toContain('rerun the same forget');
    const runId = /lake erased \(run ([0-9a-f-]{36})\)/.exec(run.stderr)?.[1];
    expect(runId).toBeDefined();
    expect(await erasureRunExists(databaseUrl, runId!)).toBe(true);
    // PAYLOAD_ENCRYPTION_KEYS is not set: the report must not suggest the histories are encrypted.
    expect(run.stdout).toContain('it is not set here');
  }, 90_000);
});
