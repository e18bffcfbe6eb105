import { describe, expect, it } from 'vitest';
import { emptyEncodedFacts, encodeMessageFacts } from '../../../../lake/events/messages-repository.js';
import type { ReadModelFacts } from '../../../../lake/projections/extract-read-model-facts.js';

const GROUP = '120363000000000001@g.us';
const LONG = `${'9'.repeat(300)}@lid`;
const at = new Date('2024-01-01T00:00:00Z');
const facts = (overrides: Partial<ReadModelFacts>): ReadModelFacts => ({
  records: [],
  edits: [],
  revokes: [],
  reactions: [],
  ...overrides,
});
const record = (senderId: string): ReadModelFacts['records'][number] => ({
  chatJid: GROUP,
  messageId: 'M1',
  kind: 'text',
  rank: 2,
  senderId,
  sentAt: at,
  replyToId: null,
  mentionCount: 0,
});

describe('encodeMessageFacts', () => {
  it('encodes every fact whose ids fit the read model and reports none left out', () => {
    const into = emptyEncodedFacts();
    const leftOut = encodeMessageFacts(
      into,
      'e1',
      facts({ records: [record('100000000000001@lid')], revokes: [{ chatJid: GROUP, targetId: 'M0', deletedAt: at }] })
    );
    expect(leftOut).toBe(0);
    expect([into.m.length, into.v.length]).toEqual([1, 1]);
  });

  it('leaves out, and counts, each fact naming an id longer than 255 characters, revokes included', () => {
    const into = emptyEncodedFacts();
    const leftOut = encodeMessageFacts(
      into,
      'e1',
      facts({
        records: [record(LONG), record('100000000000001@lid')],
        revokes: [{ chatJid: GROUP, targetId: LONG, deletedAt: at }],
        edits: [{ chatJid: GROUP, targetId: LONG, editedAtMs: at.getTime() }],
        reactions: [{ chatJid: GROUP, targetId: 'M1', reactorId: LONG, text: '👍', reactedAt: at }],
      })
    );
    expect(leftOut).toBe(4);
    expect([into.m.length, into.e.length, into.v.length, into.x.length]).toEqual([1, 0, 0, 0]);
  });
});
