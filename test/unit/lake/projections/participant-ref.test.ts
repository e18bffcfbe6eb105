import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../../common/json-value.js';
import { fromIds, lidFirstId } from '../../../../lake/projections/participant-ref.js';

const LID = '100000000000001@lid';
const OTHER_LID = '100000000000002@lid';
const PHONE = '5500000000001@s.whatsapp.net';
const OTHER_PHONE = '5500000000002@s.whatsapp.net';
const GROUP = '120363000000000001@g.us';

describe('lidFirstId', () => {
  // lidFirstId is the allocation-free twin of fromIds' participantId: the two must never disagree.
  const ids = [LID, PHONE, GROUP, 'raw-id'];
  const alternates: (JsonValue | undefined)[] = [undefined, null, 7, '', OTHER_LID, OTHER_PHONE, GROUP];
  for (const id of ids)
    for (const alternate of alternates)
      it(`keys ${id} with alternate ${JSON.stringify(alternate) ?? 'undefined'} as fromIds does`, () => {
        expect(lidFirstId(id, alternate)).toBe(fromIds(id, alternate, undefined, null).participantId);
      });

  it('prefers the LID, then the phone JID, then the id itself', () => {
    expect(lidFirstId(PHONE, LID)).toBe(LID);
    expect(lidFirstId(GROUP, PHONE)).toBe(PHONE);
    expect(lidFirstId('raw-id', undefined)).toBe('raw-id');
  });
});
