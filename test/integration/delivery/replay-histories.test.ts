import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import type { temporal } from '@temporalio/proto';
import {
  bundleWorkflows,
  createTimeSkippingEnv,
  decodeStoredPayload,
  testDataConverter,
} from '../../helpers/temporal-env.js';
import { sendStatusWebhookId, sendWorkflowId } from '../../../workflows/send-contracts.js';
import { readHistoryFixture, recordHistories } from '../../helpers/temporal-histories.js';
import { SEND_HISTORY_NAMES, recordSendHistories } from '../../helpers/send-history-recorder.js';

// ADR 0002: recorded histories of every workflow path replay against the current workflow code,
// so a change that breaks determinism fails the build; the sendMessage ones (ADR 0009) too. Re-record (after an
// intended, versioned change) with
//   RECORD_HISTORIES=true npx vitest run --project integration test/integration/delivery/replay-histories.test.ts
// or RECORD_HISTORIES=send to re-record only the sendMessage ones (the others then stay as first recorded).
// Every history is encrypted with the test payload codec, which refuses clear payloads (ADR 0022). The older
// delivery ones were recorded in clear and then encrypted in place, keeping the original recordings: each payload
// the worker's codec decodes, not headers, search attributes or the SDK core's own local-activity marker data.
const HISTORIES_DIR = fileURLToPath(new URL('../../fixtures/histories/', import.meta.url));
const EXPECTED_PATHS = [
  'dead-letter-continued-as-new',
  'deliver-event-auth-blocked-then-delivered',
  'deliver-event-dead-lettered',
  'deliver-event-delivered',
  'deliver-event-misconfigured-then-delivered',
  'deliver-event-transient-then-delivered',
  ...SEND_HISTORY_NAMES,
].sort();

let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  bundle = await bundleWorkflows();
  const record = process.env['RECORD_HISTORIES'];
  if (record === 'true' || record === 'send') {
    const env = await createTimeSkippingEnv();
    try {
      if (record === 'true') await recordHistories(env, bundle, HISTORIES_DIR);
      await recordSendHistories(env, bundle, HISTORIES_DIR);
    } finally {
      await env.teardown();
    }
  }
});

describe('recorded workflow histories', () => {
  it('cover every workflow path and replay without non-determinism', async () => {
    const files = readdirSync(HISTORIES_DIR)
      .filter((file) => file.endsWith('.json'))
      .sort();
    expect(files.map((file) => file.replace(/\.json$/, ''))).toEqual(EXPECTED_PATHS);
    const histories = await Promise.all(
      files.map(async (file) => {
        const history = readHistoryFixture(readFileSync(join(HISTORIES_DIR, file), 'utf8'));
        return { workflowId: await recordedWorkflowId(history, file), history };
      })
    );
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: bundle, dataConverter: testDataConverter() },
      histories
    )) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  });
});

/**
 * The workflow id a history was recorded under, from its start input: `deliverEvent`, `sendMessage` and
 * `deliverSendStatus` run only under the id their input names (ADR 0026). Other workflows keep `fallback`.
 */
async function recordedWorkflowId(history: temporal.api.history.v1.IHistory, fallback: string): Promise<string> {
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const input = (await decodeStoredPayload(started?.input?.payloads?.[0])) as Record<string, string> | undefined;
  switch (started?.workflowType?.name) {
    case 'deliverEvent':
      return input?.['eventId'] ?? fallback;
    case 'sendMessage':
      return input?.['messageId'] ? sendWorkflowId(input['messageId']) : fallback;
    case 'deliverSendStatus':
      return input?.['messageId'] && input['state']
        ? sendStatusWebhookId(input['messageId'], input['state'] as Parameters<typeof sendStatusWebhookId>[1])
        : fallback;
    default:
      return fallback;
  }
}
