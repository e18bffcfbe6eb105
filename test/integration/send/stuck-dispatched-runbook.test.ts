import type { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTemporalCliPath } from '../../../dev-stack/temporal-binaries.js';
import { SEND_MESSAGE_WORKFLOW_TYPE, WA_SEND_STATE, sendWorkflowId } from '../../../workflows/send-contracts.js';
import { bundleWorkflows, connectTestNativeConnection } from '../../helpers/temporal-env.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { readRunbookCommand, runBinary, splitShellWords } from '../../helpers/temporal-runbook.js';
import { createSendKit } from '../../helpers/send-workflow-kit.js';

// The runbook against a real dev server (visibility, unlike the time-skipping server, answers list
// queries): the runbook's command for messages stuck in `dispatched`, run with the real binary.
let temporal: DevTemporal;
let nativeConnection: NativeConnection;

beforeAll(async () => {
  temporal = await startDevTemporal();
  nativeConnection = await connectTestNativeConnection(temporal.server.address);
});
afterAll(async () => {
  await nativeConnection?.close();
  await temporal?.close();
});

describe('runbook: messages stuck in dispatched', () => {
  it("lists a message the socket accepted but WhatsApp never acknowledged with the runbook's command", async () => {
    const kit = await createSendKit({ client: temporal.client, nativeConnection }, await bundleWorkflows());
    const input = kit.newInput();
    const handle = await kit.run(async () => {
      const started = await temporal.client.workflow.start(SEND_MESSAGE_WORKFLOW_TYPE, {
        taskQueue: kit.taskQueue,
        workflowId: sendWorkflowId(input.messageId),
        args: [input],
        typedSearchAttributes: [{ key: WA_SEND_STATE, value: 'queued' }],
      });
      await waitUntil(
        async () => {
          const description = await started.describe();
          return description.typedSearchAttributes.get(WA_SEND_STATE) === 'dispatched';
        },
        { what: 'the message is dispatched' }
      );
      return started;
    });
    expect(kit.double.wire).toHaveLength(1);

    const [binary, ...args] = splitShellWords(readRunbookCommand('send-stuck-dispatched'));
    expect(binary).toBe('temporal');
    await waitUntil(
      async () => {
        const output = await runBinary(resolveTemporalCliPath(process.env), args, {
          TEMPORAL_ADDRESS: temporal.server.address,
        });
        return output.includes(handle.workflowId);
      },
      { what: 'the runbook command lists it' }
    );
    await handle.terminate('test done');
  });
});
