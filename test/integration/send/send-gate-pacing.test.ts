import { describe, expect, it } from 'vitest';
import { sendGateWorkflowId } from '../../../workflows/send-contracts.js';
import { createSendKit, startSend } from '../../helpers/send-workflow-kit.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';

const harness = useTemporalTestbed();

describe('sendGate per-recipient pacing (ADR 0015)', () => {
  it('grants one recipient at most once per 6 s while another recipient’s message goes ahead at once', async () => {
    const kit = await createSendKit(harness.env, harness.bundle, {
      gate: { ratePerMinute: 600, burst: 10, marketingJitterMaxMs: 0, perRecipientIntervalMs: 6_000 },
    });
    await kit.run(async () => {
      const alice = '5511911110001@s.whatsapp.net';
      const bob = '5511922220002@s.whatsapp.net';
      const inputs = [alice, alice, alice, bob].map((toJid) =>
        kit.newInput({ toJid, category: 'transactional', options: { ackWaitMs: 60_000 } })
      );
      const handles = [];
      for (const input of inputs) handles.push(await startSend(harness.env, kit, input));
      for (const handle of handles) expect(await handle.result()).toMatchObject({ state: 'dispatched' });
      const grantAt = (messageId: string): number =>
        kit.dispatched.find((d) => d.messageId === messageId)?.grantedAtMs ?? Number.NaN;
      const aliceGrants = inputs
        .slice(0, 3)
        .map((input) => grantAt(input.messageId))
        .sort((a, b) => a - b);
      expect((aliceGrants[1] ?? 0) - (aliceGrants[0] ?? 0)).toBeGreaterThanOrEqual(6_000);
      expect((aliceGrants[2] ?? 0) - (aliceGrants[1] ?? 0)).toBeGreaterThanOrEqual(6_000);
      // Bob's message was not queued behind Alice's paced ones.
      expect(grantAt(inputs[3]?.messageId ?? '')).toBeLessThan(aliceGrants[1] ?? 0);
      expect(kit.double.wire).toHaveLength(4);
      await harness.env.client.workflow
        .getHandle(sendGateWorkflowId(kit.accountId))
        .terminate('test over')
        .catch(() => undefined);
    });
  });
});
