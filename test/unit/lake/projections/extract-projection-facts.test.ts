import { describe, expect, it } from 'vitest';
import { extractProjectionFacts, type ProjectionEvent } from '../../../../lake/projections/extract-projection-facts.js';

const GROUP = '120363000000000001@g.us';
const event = (type: string, payload: ProjectionEvent['payload']): ProjectionEvent => ({
  eventId: '00000000-0000-4000-8000-000000000001',
  type,
  chatJid: GROUP,
  payload,
  effectiveAt: new Date(0),
  hasOwnTime: true,
});

describe('extractProjectionFacts', () => {
  it('reads participant stubs (Baileys 7 JSON-string parameters) as membership facts, LID first', () => {
    const facts = extractProjectionFacts(
      event('messages.upsert', {
        key: { remoteJid: GROUP, id: 'S1' },
        messageStubType: 32,
        messageStubParameters: [
          JSON.stringify({ id: '5500000000003@s.whatsapp.net', lid: '100000000000003@lid', admin: null }),
        ],
      })
    );
    expect(facts.groupJid).toBe(GROUP);
    expect(facts.memberships).toEqual([
      {
        participant: {
          participantId: '100000000000003@lid',
          lid: '100000000000003@lid',
          phoneJid: '5500000000003@s.whatsapp.net',
          role: 'member',
        },
        isPresent: false,
        role: null,
      },
    ]);
  });

  it('reads subject and announce stubs as group field writes, by number or by name', () => {
    const subject = extractProjectionFacts(
      event('messages.upsert', { key: { remoteJid: GROUP }, messageStubType: 21, messageStubParameters: ['New'] })
    );
    const announce = extractProjectionFacts(
      event('messages.upsert', {
        key: { remoteJid: GROUP },
        messageStubType: 'GROUP_CHANGE_ANNOUNCE',
        messageStubParameters: ['on'],
      })
    );
    expect(subject.groupFields).toEqual({ subject: 'New' });
    expect(announce.groupFields).toEqual({ announce: true });
  });

  it('gives no snapshot for a metadata event without participants (a group is never emptied)', () => {
    const facts = extractProjectionFacts(event('groups.metadata', { id: GROUP, subject: 'S', participants: [] }));
    expect(facts.snapshot).toBeNull();
    expect(facts.groupFields).toMatchObject({ subject: 'S', description: null });
  });

  it('keeps hostile participant ids and actions as plain data', () => {
    const facts = extractProjectionFacts(
      event('groups.metadata', { id: GROUP, participants: [{ id: '__proto__', admin: 'admin' }] })
    );
    expect(Object.keys(facts.snapshot?.members ?? {})).toEqual(['__proto__']);
    expect(
      extractProjectionFacts(
        event('group-participants.update', { id: GROUP, action: 'constructor', participants: [{ id: 'x@lid' }] })
      ).memberships
    ).toEqual([]);
  });

  it('ignores plain messages and reads lid-mapping.update as an alias', () => {
    expect(
      extractProjectionFacts(
        event('messages.upsert', { key: { remoteJid: GROUP, id: 'M' }, message: { conversation: 'hi' } })
      )
    ).toMatchObject({
      groupJid: null,
      participants: [],
    });
    const facts = extractProjectionFacts(event('lid-mapping.update', { lid: '1@lid', pn: '55@s.whatsapp.net' }));
    expect(facts.participants).toEqual([
      { participantId: '1@lid', lid: '1@lid', phoneJid: '55@s.whatsapp.net', role: null },
    ]);
  });
});
