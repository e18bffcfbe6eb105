import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

// ADR 0017: a key's status webhook URL and signing secret change without a new key.
describe('wa-lake api-keys webhook', () => {
  const fresh = useFreshLake();
  const cli = (args: readonly string[]): ReturnType<typeof runCli> =>
    runCli(args, { env: { DATABASE_URL: fresh.url, SEND_WEBHOOK_ALLOW_HTTP: 'true' } });
  const stored = async (id: string) =>
    (
      await fresh.lake.pool.query<{ webhook_url: string | null; webhook_secret: string | null }>(
        'SELECT webhook_url, webhook_secret FROM send_api_keys WHERE id = $1',
        [id]
      )
    ).rows[0];

  it('rotates the secret, moves the URL, and removes the webhook of one key', async () => {
    const created = await cli(['api-keys', 'create', '--name', 'crm', '--webhook-url', 'https://93.184.215.14/a']);
    expect(created.code, created.stderr).toBe(0);
    const id = /created key ([0-9a-f-]{36})/.exec(created.stdout)?.[1] ?? '';
    const firstSecret = /webhook signing secret: (whsec_\S+)/.exec(created.stdout)?.[1];
    const before = await stored(id);

    const rotated = await cli(['api-keys', 'webhook', id, '--rotate-secret']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const secret = /webhook signing secret: (whsec_\S+)/.exec(rotated.stdout)?.[1];
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(firstSecret);
    const after = await stored(id);
    expect(after?.webhook_url).toBe('https://93.184.215.14/a');
    expect(after?.webhook_secret).not.toBe(before?.webhook_secret);

    const moved = await cli(['api-keys', 'webhook', id, '--url', 'https://93.184.215.14/b']);
    expect(moved.stdout).toContain(`webhook URL https://93.184.215.14/a -> https://93.184.215.14/b`);
    expect(moved.stdout).not.toContain('signing secret');
    expect(await stored(id)).toEqual({ webhook_url: 'https://93.184.215.14/b', webhook_secret: after?.webhook_secret });

    const short = await cli(['api-keys', 'webhook', id.slice(0, 4), '--remove']);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('shorter than 8 characters');
    const removed = await cli(['api-keys', 'webhook', id, '--remove']);
    expect(removed.stdout).toContain('webhook removed');
    expect((await stored(id))?.webhook_url).toBeNull();
  });
});
