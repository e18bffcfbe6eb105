import { Connection } from '@temporalio/client';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resolveTemporalCliPath } from '../../../dev-stack/temporal-binaries.js';
import { startTemporalDevServer, type RunningTemporalDevServer } from '../../../dev-stack/temporal-dev-server.js';
import { findFreePort } from '../../../dev-stack/tcp-ports.js';
import { sendWorkflowId } from '../../../workflows/send-contracts.js';
import { bundleWorkflows, connectTestNativeConnection, createTestClient } from '../../helpers/temporal-env.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { createSendKit } from '../../helpers/send-workflow-kit.js';
import {
  createTestApiKey,
  postMessage,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';

const cleanups: Array<() => Promise<void>> = [];
/** Deadline of one workflow start in the backlog test (SEND_API_START_TIMEOUT_MS). */
const START_BUDGET_MS = 5_000;
/**
 * Deadline of one workflow start in the sweeper test: the accepts' starts fail at it while Temporal is down, and
 * a start that misses it later is tried again by the next sweep the test asks for.
 */
const SWEEPER_START_TIMEOUT_MS = 2_000;
// Bundled while the first test waits for its starts to fail; awaited where the worker starts.
let bundling: Promise<WorkflowBundleWithSourceMap>;
beforeAll(() => {
  bundling = bundleWorkflows();
  bundling.catch(() => undefined);
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

describe('accepted means never lost (architecture.md §12)', () => {
  it('accepts 20 requests while Temporal is down; once it is up the sweeper starts 20 workflows and 20 sends reach the wire', async () => {
    const port = await findFreePort();
    const accountId = `acct-sweep-${port}`;
    const taskQueue = `send-sweep-${port}`;
    const server: SendTestServer = await startSendTestServer(inject('databaseUrl'), {
      env: {
        TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
        TEMPORAL_TASK_QUEUE: taskQueue,
        SEND_SWEEP_INTERVAL_MS: '60000',
        SEND_API_START_TIMEOUT_MS: String(SWEEPER_START_TIMEOUT_MS),
      },
    });
    cleanups.push(() => server.close());
    const apiKey = await createTestApiKey(server.admin, { accountId });
    const groupJid = await seedGroup(server.pool, []);
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const response = await postMessage(server.url, apiKey.key, {
        to: groupJid,
        text: `note ${i}`,
        category: 'marketing',
      });
      expect(response.status).toBe(202);
      ids.push(response.json['id'] as string);
    }
    await server.send.starter.stop(); // the background starts have failed: Temporal is not there
    const unstarted = await server.pool.query(
      'SELECT 1 FROM outbound_messages WHERE id = ANY($1) AND workflow_started_at IS NULL',
      [ids]
    );
    expect(unstarted.rowCount).toBe(20);

    const temporal: RunningTemporalDevServer = await startTemporalDevServer({
      cliPath: resolveTemporalCliPath(process.env),
      uiPort: null,
      port,
    });
    cleanups.push(() => temporal.stop());
    const connection = await Connection.connect({ address: temporal.address });
    cleanups.push(() => connection.close());
    const client = createTestClient(connection);
    const nativeConnection = await connectTestNativeConnection(temporal.address);
    cleanups.push(() => nativeConnection.close());
    const kit = await createSendKit({ client, nativeConnection }, await bundling, { accountId, taskQueue });
    await kit.run(async () => {
      await waitUntil(async () => {
        await server.send.starter.sweepOnce();
        const { rowCount } = await server.pool.query(
          'SELECT 1 FROM outbound_messages WHERE id = ANY($1) AND workflow_started_at IS NOT NULL',
          [ids]
        );
        return rowCount === 20;
      });
      const described = await Promise.all(ids.map((id) => client.workflow.getHandle(sendWorkflowId(id)).describe()));
      expect(described.map((d) => d.type)).toEqual(Array(20).fill('sendMessage'));
      await waitUntil(() => kit.double.wire.length >= 20);
      expect(kit.double.wire).toHaveLength(20);
      expect(kit.double.distinctIds()).toBe(20);
    });
  });

  it('starts a backlog larger than one sweep batch in one sweep, once Temporal is back', async () => {
    const port = await findFreePort();
    const server: SendTestServer = await startSendTestServer(inject('databaseUrl'), {
      env: {
        TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
        TEMPORAL_TASK_QUEUE: `send-backlog-${port}`,
        SEND_SWEEP_INTERVAL_MS: '60000',
        // A sweep stops at its first failed start: each start gets a budget a loaded machine cannot overrun.
        SEND_API_START_TIMEOUT_MS: String(START_BUDGET_MS),
      },
      sweepBatchSize: 10,
    });
    cleanups.push(() => server.close());
    const apiKey = await createTestApiKey(server.admin, { accountId: `acct-backlog-${port}` });
    const groupJid = await seedGroup(server.pool, []);
    const responses = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        postMessage(server.url, apiKey.key, { to: groupJid, text: `n ${i}`, category: 'otp' })
      )
    );
    expect(responses.map((r) => r.status)).toEqual(Array(25).fill(202));
    const ids = responses.map((r) => r.json['id'] as string);
    await server.send.starter.stop(); // the background starts have failed: Temporal is not there
    const temporal = await startTemporalDevServer({ cliPath: resolveTemporalCliPath(process.env), uiPort: null, port });
    cleanups.push(() => temporal.stop());
    const connection = await Connection.connect({ address: temporal.address });
    cleanups.push(() => connection.close());
    const client = createTestClient(connection);
    // The server answers before the sweep asks it for anything, and the sweeper takes only rows older than
    // the start budget: both are waits for a state, however long a busy machine needs to reach it.
    await waitUntil(() =>
      connection.workflowService.getSystemInfo({}).then(
        () => true,
        () => false
      )
    );
    await waitUntil(async () => {
      const { rows } = await server.pool.query<{ count: string }>(
        `SELECT count(*) FROM outbound_messages WHERE id = ANY($1) AND created_at <= now() - $2 * interval '1 ms'`,
        [ids, START_BUDGET_MS]
      );
      return Number(rows[0]?.count) === ids.length;
    });

    // ≥: the database is shared with other test files, whose unstarted rows this sweep may start too.
    expect(await server.send.starter.sweepOnce()).toBeGreaterThanOrEqual(25);
    const { rowCount } = await server.pool.query(
      'SELECT 1 FROM outbound_messages WHERE id = ANY($1) AND workflow_started_at IS NOT NULL',
      [ids]
    );
    expect(rowCount).toBe(25);
    const described = await Promise.all(ids.map((id) => client.workflow.getHandle(sendWorkflowId(id)).describe()));
    expect(described.map((d) => d.type)).toEqual(Array(25).fill('sendMessage'));
  });
});
