import { describe, expect, it } from 'vitest';
import { KnownIdentities } from '../../../../lake/events/known-identities.js';

const lone = { participantId: '1@lid', lid: '1@lid', phoneJid: null, role: null };
const pair = { participantId: '2@lid', lid: '2@lid', phoneJid: '2@s.whatsapp.net', role: null };
const phoneOnly = { participantId: '3@s.whatsapp.net', lid: null, phoneJid: '3@s.whatsapp.net', role: null };

describe('KnownIdentities', () => {
  it('skips a committed lone LID, and a pair only inside its committed span of times', () => {
    const known = new KnownIdentities();
    expect(known.withoutKnown([lone, pair, phoneOnly], 100)).toEqual([lone, pair, phoneOnly]);
    known.remember([lone, pair, phoneOnly], 100);
    known.remember([pair], 300);
    expect(known.withoutKnown([lone, pair, phoneOnly], 200)).toEqual([phoneOnly]);
    expect(known.withoutKnown([pair], 301)).toEqual([pair]);
    expect(known.withoutKnown([pair], 99)).toEqual([pair]);
  });
});
