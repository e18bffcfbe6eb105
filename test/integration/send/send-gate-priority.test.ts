import { describe, expect, it } from 'vitest';
import {
  requestDispatchSignal,
  sendGateStatusQuery,
  sendGateWorkflowId,
  type SendGateInput,
} from '../../../workflows/send-contracts.js';
import { createSendKit, startSend } from '../../helpers/send-workflow-kit.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';

const harness = useTemporalTestbed();

/** Largest number of grants inside any half-open window [t, t + windowMs). */
function maxInWindow(timesMs: number[], windowMs: number): number {
  const sorted = [...timesMs].sort((a, b) => a - b);
  let max = 0;
  for (let start = 0, end = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && (sorted[end] ?? 0) < (sorted[start] ?? 0) + windowMs) end += 1;
    max = Math.max(max, end - start);
  }
  return max;
}

describe('sendGate (architecture.md §12)', () => {
  it('dispatches an otp within its 2-minute deadline behind 500 queued marketing messages, at no more than 20 per minute', async () => {
    const kit = await createSendKit(harness.env, harness.bundle, {
      gate: { ratePerMinute: 20, burst: 1, marketingJitterMaxMs: 0 },
    });
    const gateInput: SendGateInput = { accountId: kit.accountId, ratePerMinute: 20, burst: 1, marketingJitterMaxMs: 0 };
    await kit.run(async () => {
      for (let i = 0; i < 500; i += 1) {
        await harness.env.client.workflow.signalWithStart('sendGate', {
          taskQueue: kit.taskQueue,
          workflowId: sendGateWorkflowId(kit.accountId),
          args: [gateInput],
          signal: requestDispatchSignal,
          signalArgs: [
            {
              target: sendGateWorkflowId(kit.accountId),
              messageId: `marketing-${i}`,
              category: 'marketing',
              deliverByMs: null,
            },
          ],
        });
      }
      const gate = harness.env.client.workflow.getHandle(sendGateWorkflowId(kit.accountId));
      await harness.env.sleep(5 * 60_000);
      const startedAtMs = await harness.env.currentTimeMs();
      const deliverBy = new Date(startedAtMs + 2 * 60_000).toISOString();
      const otp = kit.newInput({ category: 'otp', deliverBy, options: { ackWaitMs: 60_000 } });
      const result = await (await startSend(harness.env, kit, otp)).result();
      expect(result).toMatchObject({ state: 'dispatched', dispatchAttempts: 1 });
      expect(kit.double.wire.map((send) => send.messageId)).toEqual([otp.waMessageId]);
      const status = await gate.query(sendGateStatusQuery);
      expect(kit.dispatched.map((input) => input.messageId)).toEqual([otp.messageId]);
      expect(kit.dispatched[0]?.grantedAtMs).toBeLessThan(Date.parse(deliverBy));
      expect(status.recentGrants.map((grant) => grant.messageId)).toContain(otp.messageId);
      expect(status.queued).toBeGreaterThan(0);
      expect(status.recentGrants.length).toBeGreaterThan(20);
      expect(
        maxInWindow(
          status.recentGrants.map((grant) => grant.atMs),
          60_000
        )
      ).toBeLessThanOrEqual(20);
      await gate.terminate('test over').catch(() => undefined); // may be between runs (continue-as-new)
    });
  });
});
