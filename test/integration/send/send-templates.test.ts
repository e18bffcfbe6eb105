import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCliOnLake } from '../../helpers/run-cli-on-lake.js';
import {
  createTestApiKey,
  getMessage,
  postMessage,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';

// Templates (ADR 0015): versions, approval, variables, rendered once at accept.
let server: SendTestServer;
let groupJid: string;
let apiKey: { key: string; accountId: string; id: string };
const cli = (args: string[]): ReturnType<typeof runCliOnLake> =>
  runCliOnLake(inject('databaseUrl'), [...args, '--account', apiKey.accountId]);

beforeAll(async () => {
  server = await startSendTestServer(inject('databaseUrl'), { env: { SEND_TEXT_MAX_CHARS: '60' } });
  groupJid = await seedGroup(server.pool, []);
  apiKey = await createTestApiKey(server.admin);
});
afterAll(async () => {
  await server.close();
});

async function storedText(id: unknown): Promise<string | undefined> {
  const { rows } = await server.pool.query<{ text: string }>('SELECT text FROM outbound_messages WHERE id = $1', [id]);
  return rows[0]?.text;
}

describe('wa-lake templates and {template, variables} sends (ADR 0015)', () => {
  it('renders the newest approved version once at accept and records it; drafts wait for approval', async () => {
    const added = await cli(['templates', 'add', 'otp-code', '--body', 'Code {{code}}, valid {{ minutes }} min']);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('version 1 added as draft');
    expect(added.stdout).toContain('variables: code, minutes');
    const templateId = /\(([0-9a-f-]{36})\)/.exec(added.stdout)?.[1];
    const send = (
      template: string,
      variables: Record<string, unknown>,
      key = randomUUID()
    ): ReturnType<typeof postMessage> =>
      postMessage(server.url, apiKey.key, { to: groupJid, template, variables, category: 'otp' }, key);

    const draftOnly = await send('otp-code', { code: '1234', minutes: 5 });
    expect([draftOnly.status, draftOnly.json['code']]).toEqual([422, 'WA_ERR_TEMPLATE_NOT_APPROVED']);
    expect((await cli(['templates', 'approve', 'otp-code'])).stdout).toContain('approved');

    const idempotencyKey = randomUUID();
    const first = await send('otp-code', { code: '1234', minutes: 5 }, idempotencyKey);
    expect(first.status).toBe(202);
    expect(await storedText(first.json['id'])).toBe('Code 1234, valid 5 min');

    expect((await cli(['templates', 'add', 'otp-code', '--body', 'Your code: {{code}} ({{minutes}} min)'])).code).toBe(
      0
    );
    const stillV1 = await send(templateId ?? '', { code: '77', minutes: 2 });
    const status = await getMessage(server.url, apiKey.key, stillV1.json['id'] as string);
    expect(status.json['template']).toEqual({ id: templateId, name: 'otp-code', version: 1 });
    expect((await cli(['templates', 'approve', 'otp-code', '--version', '2'])).code).toBe(0);
    const v2 = await send('otp-code', { code: '88', minutes: 3 });
    expect(await storedText(v2.json['id'])).toBe('Your code: 88 (3 min)');
    expect((await getMessage(server.url, apiKey.key, v2.json['id'] as string)).json['template']).toMatchObject({
      version: 2,
    });
    // Rendered once: the accepted message keeps its text, and its replay still answers after the template changed.
    expect(await storedText(first.json['id'])).toBe('Code 1234, valid 5 min');
    expect((await cli(['templates', 'archive', 'otp-code'])).stdout).toMatch(/archived .* v1 .*\n.*archived .* v2/);
    expect(await send('otp-code', { code: '1234', minutes: 5 }, idempotencyKey)).toMatchObject({
      status: 202,
      json: first.json,
    });
    const archived = await send('otp-code', { code: '1', minutes: 1 });
    expect([archived.status, archived.json['code']]).toEqual([422, 'WA_ERR_TEMPLATE_NOT_FOUND']);
    const listed = await cli(['templates', 'list']);
    expect(listed.stdout).toMatch(/otp-code {2}v1 {2}archived {2}variables code,minutes/);
  });

  it('answers a distinct 422 code for a missing template, a missing and an unknown variable, and too long a text', async () => {
    expect((await cli(['templates', 'add', 'hello', '--body', 'Hi {{name}}', '--variables', 'name'])).code).toBe(0);
    expect((await cli(['templates', 'approve', 'hello', '--version', '1'])).code).toBe(0);
    const send = (body: Record<string, unknown>): ReturnType<typeof postMessage> =>
      postMessage(server.url, apiKey.key, { to: groupJid, category: 'marketing', ...body });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ template: 'no-such-template', variables: {} }, 'WA_ERR_TEMPLATE_NOT_FOUND'],
      [{ template: 'hello', variables: {} }, 'WA_ERR_TEMPLATE_VARIABLE_MISSING'],
      [{ template: 'hello', variables: { name: 'Ana', extra: 'x' } }, 'WA_ERR_TEMPLATE_VARIABLE_UNKNOWN'],
      [{ template: 'hello', variables: { name: 'x'.repeat(80) } }, 'WA_ERR_TEXT_TOO_LONG'],
      [{ template: 'hello', text: 'both', variables: { name: 'Ana' } }, 'WA_ERR_INVALID_BODY'],
      [{ variables: { name: 'Ana' } }, 'WA_ERR_INVALID_BODY'],
    ];
    for (const [body, code] of cases) {
      const response = await send(body);
      expect([response.status, response.json['code']]).toEqual([422, code]);
    }
    const missing = await send({ template: 'hello', variables: {} });
    expect(missing.json['fields']).toEqual([{ field: 'variables.name', message: 'missing' }]);
    expect((await send({ template: 'hello', variables: { name: 'Ana' } })).status).toBe(202);
  });

  it('refuses a template whose declared variables do not match its placeholders', async () => {
    const result = await cli(['templates', 'add', 'bad', '--body', 'Hi {{name}}', '--variables', 'name,city']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('declared variable(s) not in the body: city');
  });
});
