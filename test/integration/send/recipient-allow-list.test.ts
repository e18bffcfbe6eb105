import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Recipient } from '../../../lake/send/send-admin-repository.js';
import {
  createTestApiKey,
  postMessage,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';

// The allow-list (architecture.md §12) is written once (`send-recipient-allow-list.ts`) and applied by the
// accept statement and by the ask-only `isRecipientAllowed` the send demo waits on: both must answer alike.
const SELF = '100000000000091@lid';
let server: SendTestServer;

beforeAll(async () => {
  server = await startSendTestServer(inject('databaseUrl'));
});
afterAll(async () => {
  await server.close();
});

describe('the send allow-list, asked and applied', () => {
  it('answers isRecipientAllowed as POST /api/v1/messages accepts (202) or refuses (422) each recipient', async () => {
    const withSelf = await createTestApiKey(server.admin, { self: [SELF] });
    const withoutSelf = await createTestApiKey(server.admin);
    const memberGroup = await seedGroup(server.pool, [SELF]);
    const otherGroup = await seedGroup(server.pool, ['100000000000092@lid']);
    const leftGroup = await seedGroup(server.pool, [], [SELF]);
    await server.admin.addOptIn(withSelf.accountId, '5511999990091@s.whatsapp.net', null);
    const cases: Array<[typeof withSelf, string, Recipient, boolean]> = [
      [withSelf, memberGroup, { kind: 'group', jid: memberGroup }, true],
      [withSelf, otherGroup, { kind: 'group', jid: otherGroup }, false],
      [withSelf, leftGroup, { kind: 'group', jid: leftGroup }, false],
      [withSelf, '120363999999999991@g.us', { kind: 'group', jid: '120363999999999991@g.us' }, false],
      // No participant ids recorded for the account: any group known to the lake is allowed.
      [withoutSelf, otherGroup, { kind: 'group', jid: otherGroup }, true],
      [withSelf, '+55 11 99999-0091', { kind: 'phone', jid: '5511999990091@s.whatsapp.net' }, true],
      [withSelf, '+55 11 99999-0092', { kind: 'phone', jid: '5511999990092@s.whatsapp.net' }, false],
      // An opt-in belongs to one account.
      [withoutSelf, '+55 11 99999-0091', { kind: 'phone', jid: '5511999990091@s.whatsapp.net' }, false],
    ];
    const observed = [];
    const expected = [];
    for (const [apiKey, to, recipient, isAllowed] of cases) {
      const asked = await server.admin.isRecipientAllowed(apiKey.accountId, recipient);
      const response = await postMessage(server.url, apiKey.key, { to, text: 'x', category: 'otp' });
      observed.push({ to, asked, status: response.status });
      expected.push({ to, asked: isAllowed, status: isAllowed ? 202 : 422 });
    }
    expect(observed).toEqual(expected);
  });
});
