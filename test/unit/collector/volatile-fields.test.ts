import { describe, expect, it } from 'vitest';
import { isVolatileField, VOLATILE_FIELDS } from '../../../collector/volatile-fields.js';

describe('VOLATILE_FIELDS', () => {
  it('gives every volatile field a reason', () => {
    for (const rule of VOLATILE_FIELDS) expect(rule.reason.length, rule.name).toBeGreaterThan(15);
  });

  it('covers every field architecture.md §4 lists', () => {
    for (const key of [
      'pushName',
      'broadcast',
      'category',
      'retryCount',
      'verifiedBizName',
      'participantAlt',
      'remoteJidAlt',
      'addressingMode',
      'messageContextInfo',
    ]) {
      expect(isVolatileField(key, 'x'), key).toBe(true);
    }
    expect(isVolatileField('status', 3)).toBe(true);
  });
});

describe('isVolatileField', () => {
  it('treats a numeric status (message delivery) as volatile but not a call state', () => {
    expect(isVolatileField('status', 4)).toBe(true);
    expect(isVolatileField('status', 'offer')).toBe(false);
  });

  it('treats phone aliases of LIDs as volatile but not the flag shareOwnPn', () => {
    expect(isVolatileField('ownerPn', '5500000000001@s.whatsapp.net')).toBe(true);
    expect(isVolatileField('shareOwnPn', true)).toBe(false);
  });

  it('keeps real content fields', () => {
    for (const key of [
      'id',
      'subject',
      'desc',
      'participants',
      'admin',
      'conversation',
      'messageStubType',
      'Alt',
      'text',
    ]) {
      expect(isVolatileField(key, 'x'), key).toBe(false);
    }
  });
});
