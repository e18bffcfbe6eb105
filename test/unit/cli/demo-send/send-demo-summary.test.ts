import { describe, expect, it } from 'vitest';
import {
  countWireDuplicates,
  formatSendDemoSummary,
  summarizeSendDemo,
  type ObservedMessage,
} from '../../../../cli/demo-send/send-demo-summary.js';

const send = (messageId: string, text: string, jid = '5511900000001@s.whatsapp.net') => ({
  jid,
  text,
  messageId,
  atMs: 0,
});

describe('countWireDuplicates', () => {
  it('counts nothing for the same message re-sent with its own id (a retry after a timeout)', () => {
    expect(countWireDuplicates([send('3EB0A', 'hi'), send('3EB0A', 'hi'), send('3EB0B', 'other')])).toBe(0);
  });

  it('counts one message that reached the wire under two ids, and one id reused for other content', () => {
    expect(countWireDuplicates([send('3EB0A', 'hi'), send('3EB0B', 'hi')])).toBe(1);
    expect(countWireDuplicates([send('3EB0A', 'hi'), send('3EB0A', 'changed')])).toBe(1);
  });
});

describe('summarizeSendDemo', () => {
  const message = (over: Partial<ObservedMessage>): ObservedMessage => ({
    id: 'm1',
    label: 'direct, acked',
    toJid: '5511900000001@s.whatsapp.net',
    text: 'hi',
    waMessageId: '3EB0A',
    state: 'read',
    reasonCode: null,
    expected: 'read',
    ...over,
  });
  const base = {
    ownAcksInLake: 0,
    requested: 2,
    accepted: 2,
    idempotentReplays: 1,
    expectedReplays: 1,
    elapsedMs: 1,
    templateSends: 1,
    linkSends: 0,
    testKeyRefusal: { status: 403, code: 'WA_ERR_NOT_A_TEST_RECIPIENT' },
    quotaRefusal: { status: 429, code: 'WA_ERR_QUOTA_EXCEEDED' },
  };

  it('counts a funnel from the states and is ok when every message ended as expected', () => {
    const summary = summarizeSendDemo({
      ...base,
      messages: [message({}), message({ id: 'm2', waMessageId: '3EB0B', state: 'expired', expected: 'expired' })],
      wire: [send('3EB0A', 'hi')],
    });
    expect(summary).toMatchObject({ dispatched: 1, sent: 1, read: 1, expired: 1, duplicatesOnWire: 0, ok: true });
  });

  it('is not ok when an expired message reached the wire', () => {
    const summary = summarizeSendDemo({
      ...base,
      messages: [message({}), message({ id: 'm2', waMessageId: '3EB0B', state: 'expired', expected: 'expired' })],
      wire: [send('3EB0A', 'hi'), send('3EB0B', 'late')],
    });
    expect(summary).toMatchObject({ unexpectedWireSends: 1, ok: false });
  });

  it('is not ok when the request past the quota was accepted (ADR 0015)', () => {
    const summary = summarizeSendDemo({
      ...base,
      quotaRefusal: { status: 202, code: '' },
      messages: [message({}), message({ id: 'm2', waMessageId: '3EB0B', state: 'expired', expected: 'expired' })],
      wire: [send('3EB0A', 'hi')],
    });
    expect(summary.ok).toBe(false);
  });

  it('counts link previews on the wire and is not ok when a linked message went out without one (ADR 0015)', () => {
    const messages = [message({}), message({ id: 'm2', waMessageId: '3EB0B' })];
    const preview = { 'canonical-url': 'http://127.0.0.1/p', 'matched-text': 'http://127.0.0.1/p', title: 'Page' };
    const withPreview = summarizeSendDemo({
      ...base,
      linkSends: 1,
      messages,
      wire: [send('3EB0A', 'hi'), { ...send('3EB0B', 'see http://127.0.0.1/p'), linkPreview: preview }],
    });
    expect(withPreview).toMatchObject({ linkSends: 1, linkPreviews: 1, ok: true });
    const without = summarizeSendDemo({
      ...base,
      linkSends: 1,
      messages,
      wire: [send('3EB0A', 'hi'), { ...send('3EB0B', 'see http://127.0.0.1/p'), linkPreview: null }],
    });
    expect(without).toMatchObject({ linkPreviews: 0, ok: false });
  });
});

describe('formatSendDemoSummary', () => {
  const message = (label: string, state: ObservedMessage['state'], reasonCode: string | null = null) => ({
    id: label,
    label,
    toJid: '5511900000001@s.whatsapp.net',
    text: 'hi',
    waMessageId: label,
    state,
    reasonCode,
    expected: state,
  });

  it('puts every figure’s colon in one column and every message state in another, with no trailing spaces', () => {
    const messages = [
      message('group, acked', 'read'),
      message('lost ACK, never', 'dispatched'),
      message('template, rendered at accept', 'read'),
      message('not on WhatsApp', 'failed', 'not_on_whatsapp'),
    ];
    const summary = summarizeSendDemo({
      ownAcksInLake: 0,
      requested: 4,
      accepted: 4,
      idempotentReplays: 1,
      expectedReplays: 1,
      elapsedMs: 1,
      templateSends: 1,
      linkSends: 0,
      testKeyRefusal: { status: 403, code: 'WA_ERR_NOT_A_TEST_RECIPIENT' },
      quotaRefusal: { status: 429, code: 'WA_ERR_QUOTA_EXCEEDED' },
      messages,
      wire: [],
    });
    const lines = formatSendDemoSummary(summary, messages).split('\n');
    expect(lines).toContain('  our ACKs in the lake : 0');
    expect(lines).toContain('  requests             : 4 · accepted (202) 4 · idempotent replays (202, replayed) 1');
    expect(lines.filter((line) => line.includes(' : ')).map((line) => line.indexOf(' : '))).toEqual(Array(8).fill(22));
    expect(lines).toContain('    template, rendered at accept  read');
    expect(lines).toContain('    lost ACK, never               dispatched');
    expect(lines).toContain('    not on WhatsApp               failed     (not_on_whatsapp)');
    expect(lines.filter((line) => line !== line.trimEnd())).toEqual([]);
  });
});
