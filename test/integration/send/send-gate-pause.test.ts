import { describe, expect, it } from 'vitest';
import { stampControlSignal } from '../../../common/control-signal-stamp.js';
import {
  pauseSendingSignal,
  resumeSendingSignal,
  sendGateStatusQuery,
  sendGateWorkflowId,
  sendStatusQuery,
} from '../../../workflows/send-contracts.js';
import { boomLike } from '../../helpers/whatsapp-send-double.js';
import { createSendKit, startSend } from '../../helpers/send-workflow-kit.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';

const harness = useTemporalTestbed();

// One file per environment: a gate left running by another test would hold the shared clock.
describe('sendGate pause (architecture.md §12)', () => {
  it('pauses the account with one alert when the session is logged out, and sends after resume', async () => {
    const kit = await createSendKit(harness.env, harness.bundle);
    kit.double.failures.push(boomLike(401));
    await kit.run(async () => {
      const first = kit.newInput({ options: { ackWaitMs: 60_000 } });
      const second = kit.newInput({ options: { ackWaitMs: 60_000 } });
      const handles = [await startSend(harness.env, kit, first)];
      const gate = harness.env.client.workflow.getHandle(sendGateWorkflowId(kit.accountId));
      for (let i = 0; i < 200 && !(await gate.query(sendGateStatusQuery).catch(() => null))?.paused; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      handles.push(await startSend(harness.env, kit, second));
      // Stamped at the test server's (skipped) time, as a sender's clock would be in production (ADR 0026 §5).
      const stampNow = async (): Promise<ReturnType<typeof stampControlSignal>> =>
        stampControlSignal(gate.workflowId, await harness.env.currentTimeMs());
      await gate.signal(pauseSendingSignal, { reason: 'logged_out', ...(await stampNow()) });
      await harness.env.sleep(60 * 60_000);
      expect((await gate.query(sendGateStatusQuery)).paused).toBe(true);
      expect((await handles[0]!.query(sendStatusQuery)).state).toBe('queued');
      expect(kit.double.wire).toHaveLength(0);
      expect(kit.alerts.map((alert) => alert.kind)).toEqual(['send_paused_logged_out']);
      await gate.signal(resumeSendingSignal, {
        requestedBy: 'operator',
        at: new Date().toISOString(),
        ...(await stampNow()),
      });
      const results = [];
      for (const handle of handles) results.push(await handle.result());
      expect(results.map((result) => result.state)).toEqual(['dispatched', 'dispatched']);
      expect(kit.double.distinctIds()).toBe(2);
    });
  });
});
