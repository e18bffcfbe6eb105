import { describe, expect, it } from 'vitest';
import { sendAckSignal, sendStatusQuery, WA_SEND_STATE } from '../../../workflows/send-contracts.js';
import { boomLike } from '../../helpers/whatsapp-send-double.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { createSendKit, startSend, type SendKit } from '../../helpers/send-workflow-kit.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';

const harness = useTemporalTestbed();

const DAY_MS = 24 * 60 * 60_000;

describe('sendMessage (architecture.md §12)', () => {
  it('never re-sends after a lost ACK: after 3 days one send on the wire, dispatched, one alert; a late ACK → sent', async () => {
    const kit = await createSendKit(harness.env, harness.bundle);
    await kit.run(async () => {
      const input = kit.newInput();
      const handle = await startSend(harness.env, kit, input);
      await waitUntil(() => kit.double.wire.length === 1);
      await harness.env.sleep(3 * DAY_MS);
      const status = await handle.query(sendStatusQuery);
      expect(status.state).toBe('dispatched');
      expect(kit.double.wire).toEqual([
        // A text without a link goes without a preview.
        { jid: input.toJid, text: input.text, messageId: input.waMessageId, linkPreview: null },
      ]);
      expect(kit.alerts.map((alert) => alert.kind)).toEqual(['send_ack_missing']);
      expect((await handle.describe()).typedSearchAttributes.get(WA_SEND_STATE)).toBe('dispatched');
      await handle.signal(sendAckSignal, { target: handle.workflowId, status: 'sent', at: new Date().toISOString() });
      await handle.signal(sendAckSignal, { target: handle.workflowId, status: 'read', at: new Date().toISOString() });
      const result = await handle.result();
      expect(result).toMatchObject({ state: 'read', dispatchAttempts: 1 });
      expect(kit.double.wire).toHaveLength(1);
      expect(kit.reported.filter((t) => t.messageId === input.messageId).map((t) => t.state)).toEqual([
        'dispatched',
        'sent',
        'read',
      ]);
    });
  });

  it('retries a send that timed out in flight with the same WhatsApp id (distinct wire ids: 1)', async () => {
    const kit = await createSendKit(harness.env, harness.bundle, { sendTimeoutMs: 300 });
    kit.double.hangsMs.push(2_000);
    await kit.run(async () => {
      const input = kit.newInput({ options: { ackWaitMs: 60_000 } });
      const result = await (await startSend(harness.env, kit, input)).result();
      expect(result).toMatchObject({ state: 'dispatched', dispatchAttempts: 2 });
      expect(kit.double.wire).toHaveLength(2);
      expect(kit.double.distinctIds()).toBe(1);
      expect(kit.double.wire[0]?.messageId).toBe(input.waMessageId);
    });
  });

  it('keeps an ACK that arrives before dispatched is recorded, and ignores a late lower one (monotonic)', async () => {
    const kit = await createSendKit(harness.env, harness.bundle);
    await kit.run(async () => {
      const input = kit.newInput({ options: { ackWaitMs: 60_000 } });
      const handle = await startSend(harness.env, kit, input);
      kit.double.onAccepted = async () => {
        await handle.signal(sendAckSignal, {
          target: handle.workflowId,
          status: 'delivered',
          at: new Date().toISOString(),
        });
      };
      await waitUntil(() => kit.double.wire.length === 1);
      await handle.signal(sendAckSignal, { target: handle.workflowId, status: 'sent', at: new Date().toISOString() });
      const result = await handle.result();
      expect(result.state).toBe('delivered');
      expect(kit.reported.map((t) => t.state)).toEqual(['delivered']);
    });
  });

  it('fails at once with a reason code when the recipient is not on WhatsApp (typed, nothing sent)', async () => {
    const kit = await createSendKit(harness.env, harness.bundle);
    kit.double.notOnWhatsApp.add('5511999990003@s.whatsapp.net');
    await kit.run(async () => {
      const input = kit.newInput({ toJid: '5511999990003@s.whatsapp.net' });
      const result = await (await startSend(harness.env, kit, input)).result();
      expect(result).toMatchObject({ state: 'failed', reasonCode: 'not_on_whatsapp', dispatchAttempts: 1 });
      expect(kit.double.wire).toHaveLength(0);
    });
  });

  it.each([
    [403, 'blocked'],
    [406, 'invalid_payload'],
  ])('fails at once on a %i from the session layer (%s)', async (statusCode, reason) => {
    const kit = await createSendKit(harness.env, harness.bundle);
    kit.double.failures.push(boomLike(statusCode));
    await kit.run(async () => {
      const result = await (await startSend(harness.env, kit, kit.newInput())).result();
      expect(result).toMatchObject({ state: 'failed', reasonCode: reason, dispatchAttempts: 1 });
    });
  });

  it('retries not-connected and server errors with backoff, then sends once', async () => {
    const kit = await createSendKit(harness.env, harness.bundle);
    kit.double.failures.push(boomLike(428), boomLike(500));
    await kit.run(async () => {
      const input = kit.newInput({ options: { ackWaitMs: 60_000 } });
      const result = await (await startSend(harness.env, kit, input)).result();
      expect(result).toMatchObject({ state: 'dispatched', dispatchAttempts: 3 });
      expect(kit.double.wire).toHaveLength(1);
    });
  });

  it('expires a message whose deliver_by passes while the session is down, and never sends it afterwards', async () => {
    const kit = await createSendKit(harness.env, harness.bundle);
    kit.isOpen.value = false;
    await kit.run(async () => {
      const deliverBy = new Date((await harness.env.currentTimeMs()) + 10 * 60_000).toISOString();
      const input = kit.newInput({ deliverBy });
      const result = await (await startSend(harness.env, kit, input)).result();
      kit.isOpen.value = true;
      expect(result).toMatchObject({ state: 'expired', reasonCode: 'deliver_by_passed' });
      expect(result.dispatchAttempts).toBeGreaterThan(1);
      expect(kit.double.wire).toHaveLength(0);
      expectExpiredAt(kit, input.messageId, deliverBy);
    });
  });

  it('expires at deliver_by, not at the dispatch schedule-to-start timeout, while no collector polls', async () => {
    const kit = await createSendKit(harness.env, harness.bundle);
    await kit.runWithoutCollector(async () => {
      // Well inside the attempt's 60 s schedule-to-start timeout (the 45 s-late case). Real seconds: the
      // time-skipping server does not skip while an activity is outstanding.
      const deliverBy = new Date((await harness.env.currentTimeMs()) + 5_000).toISOString();
      const input = kit.newInput({ deliverBy });
      const result = await (await startSend(harness.env, kit, input)).result();
      expect(result).toMatchObject({ state: 'expired', reasonCode: 'deliver_by_passed', dispatchAttempts: 1 });
      expectExpiredAt(kit, input.messageId, deliverBy);
    });
    expect(kit.dispatched).toHaveLength(0);
    expect(kit.double.wire).toHaveLength(0);
  });

  it('records dispatched, never expired, when deliver_by passes while an attempt the socket accepted is still running', async () => {
    const kit = await createSendKit(harness.env, harness.bundle, { sendTimeoutMs: 10_000 });
    // The socket puts the message on the wire at once but answers only 7 s later; the deadline (3 s, time for a
    // loaded worker to pick the attempt up) falls in between.
    kit.double.hangsMs.push(7_000);
    await kit.run(async () => {
      const deliverBy = new Date((await harness.env.currentTimeMs()) + 3_000).toISOString();
      // Short ACK waits: after the previous test's cancelled, never-started attempt, the time-skipping server
      // stopped skipping time (its history showed the 15 min ACK-grace timer started but never fired).
      const input = kit.newInput({ deliverBy, options: { ackGraceMs: 1_000, ackWaitMs: 2_000 } });
      const result = await (await startSend(harness.env, kit, input)).result();
      expect(result).toMatchObject({ state: 'dispatched', dispatchAttempts: 1 });
      expect(kit.double.wire).toHaveLength(1);
      expect(kit.reported.filter((t) => t.messageId === input.messageId).map((t) => t.state)).not.toContain('expired');
    });
  });
});

/** The `expired` transition was recorded at `deliverBy`, to the second (workflow time; ADR 0009). */
function expectExpiredAt(kit: SendKit, messageId: string, deliverBy: string): void {
  const expired = kit.reported.find((t) => t.messageId === messageId && t.state === 'expired');
  expect(expired).toBeDefined();
  const lateMs = Date.parse(expired?.at ?? '') - Date.parse(deliverBy);
  expect({ lateMs, withinASecond: lateMs >= 0 && lateMs < 1_000 }).toMatchObject({ withinASecond: true });
}
