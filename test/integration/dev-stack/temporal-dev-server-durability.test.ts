import { randomUUID } from 'node:crypto';
import { mkdtempSync, openSync, readSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, type Client } from '@temporalio/client';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveTemporalCliPath } from '../../../dev-stack/temporal-binaries.js';
import { startTemporalDevServer, type RunningTemporalDevServer } from '../../../dev-stack/temporal-dev-server.js';
import { DELIVER_EVENT_WORKFLOW_TYPE } from '../../../workflows/contracts.js';
import { createTestClient } from '../../helpers/temporal-env.js';

// ADR 0008 /: the dev server's state file runs in WAL mode with synchronous=FULL, and a
// workflow start Temporal acknowledged is still there after the server is killed without a shutdown.

/** SQLite file header bytes 18–19 (write / read format version) are 2 for a WAL database. */
function isWalFile(path: string): boolean {
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  return header[18] === 2 && header[19] === 2;
}

describe('temporal dev server state file', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('keeps an acknowledged workflow start across a SIGKILL of the server, in WAL mode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-temporal-durability-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const dbFile = join(dir, 'temporal.db');
    const cliPath = resolveTemporalCliPath(process.env);
    const start = async (): Promise<{ server: RunningTemporalDevServer; client: Client }> => {
      const server = await startTemporalDevServer({ cliPath, dbFile, uiPort: null });
      cleanups.push(() => server.stop());
      const connection = await Connection.connect({ address: server.address });
      cleanups.push(() => connection.close());
      return { server, client: createTestClient(connection) };
    };

    const first = await start();
    const workflowId = `durability-${randomUUID()}`;
    // No worker polls this queue: the execution stays Running, exactly as acknowledged.
    await first.client.workflow.start(DELIVER_EVENT_WORKFLOW_TYPE, {
      taskQueue: `nobody-polls-${randomUUID()}`,
      workflowId,
      args: [{ eventId: workflowId, type: 'messages.upsert', chatJid: null, body: '{}' }],
    });
    await first.server.kill();
    expect(isWalFile(dbFile)).toBe(true);

    const second = await start();
    const description = await second.client.workflow.getHandle(workflowId).describe();
    expect(description.status.name).toBe('RUNNING');
  });
});
