import { describe, expect, it } from 'vitest';
import {
  countWireDuplicates,
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
