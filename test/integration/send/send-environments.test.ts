import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKeyWithCli, runCliOnLake } from '../../helpers/run-cli-on-lake.js';
import {
  getMessage,
  postMessage,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';

// Test and live keys (ADR 0015), driven through the operator's CLI.
let server: SendTestServer;
let groupJid: string;
const databaseUrl = (): string => inject('databaseUrl');
const cli = (args: string[]): ReturnType<typeof runCliOnLake> => runCliOnLake(databaseUrl(), args);

beforeAll(async () => {
  server = await startSendTestServer(inject('databaseUrl'));
  groupJid = await seedGroup(server.pool, []);
});
afterAll(async () => {
  await server.close();
});

describe('test and live API keys (ADR 0015)', () => {
  it('lets a test key send only to registered test recipients (403 otherwise), drafts included', async () => {
    const account = `acct-${randomUUID().slice(0, 8)}`;
    const testKey = await createKeyWithCli(databaseUrl(), ['--account', account, '--environment', 'test']);
    expect(
      (await cli(['test-recipients', 'add', '+55 11 98888-0001', '--account', account, '--note', 'QA phone'])).code
    ).toBe(0);
    expect((await cli(['test-recipients', 'list', '--account', account])).stdout).toContain(
      '5511988880001@s.whatsapp.net'
    );
    const toTest = await postMessage(server.url, testKey.key, { to: '+5511988880001', text: 'hi QA', category: 'otp' });
    expect(toTest.status).toBe(202);
    const shown = await getMessage(server.url, testKey.key, toTest.json['id'] as string);
    expect(shown.json['environment']).toBe('test');
    for (const to of ['+5511977770002', groupJid]) {
      const refused = await postMessage(server.url, testKey.key, { to, text: 'not a test recipient', category: 'otp' });
      expect([refused.status, refused.json['code']]).toEqual([403, 'WA_ERR_NOT_A_TEST_RECIPIENT']);
    }
    // A test key may render a draft template; a live key may not (ADR 0015).
    expect((await cli(['templates', 'add', 'welcome', '--body', 'Welcome {{name}}', '--account', account])).code).toBe(
      0
    );
    const draft = await postMessage(server.url, testKey.key, {
      to: '+5511988880001',
      template: 'welcome',
      variables: { name: 'QA' },
      category: 'marketing',
    });
    expect(draft.status).toBe(202);
    expect((await cli(['test-recipients', 'remove', '+5511988880001', '--account', account])).stdout).toContain(
      'removed'
    );
    const removed = await postMessage(server.url, testKey.key, { to: '+5511988880001', text: 'gone', category: 'otp' });
    expect(removed.status).toBe(403);
    const listed = await cli(['api-keys', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`${testKey.id}.*${account} \\(not approved\\).* test `));
  });

  it('lets a live key send only once its account is approved with wa-lake accounts approve', async () => {
    const account = `acct-${randomUUID().slice(0, 8)}`;
    const created = await cli(['api-keys', 'create', '--name', 'live', '--account', account]);
    expect(created.stdout).toContain(`(live)`);
    expect(created.stdout).toContain(`wa-lake accounts approve ${account}`);
    const liveKey = /x-api-key: (\S+)/.exec(created.stdout)?.[1] ?? '';
    const body = { to: groupJid, text: 'announcement', category: 'transactional' };
    const early = await postMessage(server.url, liveKey, body);
    expect([early.status, early.json['code']]).toEqual([403, 'WA_ERR_ACCOUNT_NOT_APPROVED']);
    expect((await cli(['api-keys', 'list'])).stdout).toMatch(new RegExp(`${account} \\(not approved\\).* live `));
    expect((await cli(['accounts', 'approve', account])).stdout).toContain('approved for live sending');
    expect((await cli(['accounts', 'approve', account])).stdout).toContain('already approved');
    const approved = await postMessage(server.url, liveKey, body);
    expect(approved.status).toBe(202);
    expect((await getMessage(server.url, liveKey, approved.json['id'] as string)).json['environment']).toBe('live');
    expect((await cli(['api-keys', 'list'])).stdout).toMatch(new RegExp(`${account} \\(approved\\).* live `));
  });
});
