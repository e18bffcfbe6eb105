import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { envPayloadEncryptionKeys } from '../../../common/payload-encryption-keys.js';
import { openWebhookSecret } from '../../../common/webhook-secret-box.js';
import { createPool } from '../../../lake/pool.js';
import { TEST_PAYLOAD_ENCRYPTION_KEYS } from '../../helpers/temporal-env.js';

const CLI = fileURLToPath(new URL('../../../bin/wa-lake.js', import.meta.url));
const run = promisify(execFile);
const pool = createPool(inject('databaseUrl'), { max: 1 });
afterAll(() => pool.end());

/** Runs `wa-lake api-keys create …` as an operator would. */
async function createKeyCli(
  args: string[],
  extraEnv: Record<string, string> = {}
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli(['api-keys', 'create', ...args], extraEnv);
}

/** Runs `wa-lake <args>` against the test database; a non-zero exit is returned, not thrown. */
async function runCli(
  args: string[],
  extraEnv: Record<string, string> = {}
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env['PATH'] ?? '', DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'warn', ...extraEnv };
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function storedSecret(name: string): Promise<string | null> {
  const { rows } = await pool.query<{ webhook_secret: string | null }>(
    'SELECT webhook_secret FROM send_api_keys WHERE name = $1',
    [name]
  );
  return rows[0]?.webhook_secret ?? null;
}

describe('wa-lake api-keys create --webhook-url (ADR 0011)', () => {
  it('prints a whsec_ secret once and stores it sealed under PAYLOAD_ENCRYPTION_KEYS', async () => {
    const name = `cli-${randomUUID()}`;
    const result = await createKeyCli(['--name', name, '--webhook-url', 'https://crm.example/hooks/wa'], {
      PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
    });
    expect(result.code).toBe(0);
    const printed = /webhook signing secret: (whsec_[A-Za-z0-9+/=]+)/.exec(result.stdout)?.[1];
    expect(printed).toBeDefined();
    const stored = await storedSecret(name);
    expect(stored).toMatch(/^aes256gcm:test1:/);
    expect(stored).not.toContain(printed?.slice(6));
    expect(openWebhookSecret(stored ?? '', envPayloadEncryptionKeys.parse(TEST_PAYLOAD_ENCRYPTION_KEYS))).toBe(printed);
  });

  it('stores the secret marked clear, and says so, without PAYLOAD_ENCRYPTION_KEYS; no secret without a URL', async () => {
    const withUrl = `cli-${randomUUID()}`;
    const withoutUrl = `cli-${randomUUID()}`;
    // Two keys of their own names: created side by side.
    const [clear, plain] = await Promise.all([
      createKeyCli(['--name', withUrl, '--webhook-url', 'http://127.0.0.1:9/hook'], {
        SEND_WEBHOOK_ALLOW_HTTP: 'true',
        SEND_WEBHOOK_ALLOW_PRIVATE: 'true',
      }),
      createKeyCli(['--name', withoutUrl]),
    ]);
    expect(clear.code).toBe(0);
    expect(clear.stdout).toContain('stored in clear');
    expect(await storedSecret(withUrl)).toMatch(/^clear:whsec_/);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain('whsec_');
    expect(await storedSecret(withoutUrl)).toBeNull();
  });

  it('refuses loopback, metadata and credential URLs (any notation) unless development allows them (ADR 0014)', async () => {
    const urls = ['https://2130706433/hook', 'https://169.254.169.254/latest/meta-data/', 'https://u:p@crm.example/'];
    // Each refusal is its own run under its own name: all of them side by side.
    const [refusals, plainHttp] = await Promise.all([
      Promise.all(
        urls.map(async (url) => {
          const name = `cli-${randomUUID()}`;
          return { url, name, result: await createKeyCli(['--name', name, '--webhook-url', url]) };
        })
      ),
      createKeyCli(['--name', `cli-${randomUUID()}`, '--webhook-url', 'http://127.0.0.1:9/h'], {
        SEND_WEBHOOK_ALLOW_PRIVATE: 'true',
      }),
    ]);
    for (const { url, name, result } of refusals) {
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(`webhook URL "${url}" is refused`);
      expect((await pool.query('SELECT 1 FROM send_api_keys WHERE name = $1', [name])).rowCount).toBe(0);
    }
    expect(plainHttp.stderr).toContain('http needs SEND_WEBHOOK_ALLOW_HTTP=true');
  });

  it('refuses a webhook URL that is not http(s) and creates no key', async () => {
    const name = `cli-${randomUUID()}`;
    const result = await createKeyCli(['--name', name, '--webhook-url', 'ftp://crm.example/hook']);
    expect(result.code).not.toBe(0);
    expect((await pool.query('SELECT 1 FROM send_api_keys WHERE name = $1', [name])).rowCount).toBe(0);
  });
});

describe('wa-lake api-keys revoke / list and opt-in list (ADR 0009)', () => {
  async function createKey(): Promise<{ id: string; prefix: string }> {
    const created = await createKeyCli(['--name', `revoke-${randomUUID()}`]);
    const match = /created key (\S+) \((\S+)…\)/.exec(created.stdout);
    if (!match?.[1] || !match[2]) throw new Error(`unexpected create output: ${created.stdout}`);
    return { id: match[1], prefix: match[2] };
  }

  async function isRevoked(id: string): Promise<boolean> {
    const { rows } = await pool.query<{ revoked: boolean }>(
      'SELECT revoked_at IS NOT NULL AS revoked FROM send_api_keys WHERE id = $1',
      [id]
    );
    return rows[0]?.revoked ?? false;
  }

  it('revokes by a prefix of the shown key prefix or of the id, idempotently', async () => {
    const [byKeyPrefix, byId] = await Promise.all([createKey(), createKey()]);
    const first = await runCli(['api-keys', 'revoke', byKeyPrefix.prefix.slice(0, 8)]);
    expect({ code: first.code, revoked: await isRevoked(byKeyPrefix.id) }).toEqual({ code: 0, revoked: true });
    expect(first.stdout).toContain(`revoked key ${byKeyPrefix.id}`);
    const again = await runCli(['api-keys', 'revoke', byKeyPrefix.prefix.slice(0, 8)]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already revoked');

    const result = await runCli(['api-keys', 'revoke', byId.id.slice(0, 8)]);
    expect({ code: result.code, revoked: await isRevoked(byId.id) }).toEqual({ code: 0, revoked: true });
  });

  it('lists the matches and revokes nothing for an ambiguous prefix; exit 1 for no match', async () => {
    const [first, second] = await Promise.all([createKey(), createKey()]);
    const [ambiguous, none] = await Promise.all([
      runCli(['api-keys', 'revoke', 'wlk_', '--yes']),
      runCli(['api-keys', 'revoke', 'nosuchkey']),
    ]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain(first.id);
    expect(ambiguous.stderr).toContain(second.id);
    expect([await isRevoked(first.id), await isRevoked(second.id)]).toEqual([false, false]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('wa-lake: no API key');
  });

  it('refuses a prefix shorter than 8 characters without --yes (ADR 0014)', async () => {
    const key = await createKey();
    const short = await runCli(['api-keys', 'revoke', key.id.slice(0, 6)]);
    expect({ code: short.code, revoked: await isRevoked(key.id) }).toEqual({ code: 1, revoked: false });
    expect(short.stderr).toContain('shorter than 8 characters');
    const confirmed = await runCli(['api-keys', 'revoke', key.id.slice(0, 6), '--yes']);
    expect({ code: confirmed.code, revoked: await isRevoked(key.id) }).toEqual({ code: 0, revoked: true });
  });

  it('says so when an account has no opt-ins', async () => {
    const result = await runCli(['opt-in', 'list', '--account', `empty-${randomUUID()}`]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('no opt-ins');
  });
});

describe('wa-lake api-keys create --self (ADR 0014)', () => {
  async function ownIds(account: string): Promise<string[] | null> {
    const { rows } = await pool.query<{ participant_ids: string[] }>(
      'SELECT participant_ids FROM send_accounts WHERE account_id = $1',
      [account]
    );
    return rows[0]?.participant_ids ?? null;
  }

  it('shows the change and replaces existing own ids only when confirmed; an unconfirmed run creates no key', async () => {
    const account = `self-${randomUUID()}`;
    const first = await createKeyCli(['--name', `self-${randomUUID()}`, '--account', account, '--self', '111@lid']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`account ${account}: own ids (none) -> 111@lid`);

    const name = `self-${randomUUID()}`;
    const refused = await createKeyCli(['--name', name, '--account', account, '--self', '222@lid']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('own ids 111@lid -> 222@lid');
    expect(refused.stderr).toContain('not confirmed, nothing changed');
    expect(await ownIds(account)).toEqual(['111@lid']);
    expect((await pool.query('SELECT 1 FROM send_api_keys WHERE name = $1', [name])).rowCount).toBe(0);

    const confirmed = await createKeyCli(['--name', name, '--account', account, '--self', '222@lid', '--yes']);
    expect(confirmed.code).toBe(0);
    expect(await ownIds(account)).toEqual(['222@lid']);
    const unchanged = await createKeyCli(['--name', `self-${randomUUID()}`, '--account', account, '--self', '222@lid']);
    expect(unchanged.code).toBe(0);
    expect(unchanged.stdout).not.toContain('own ids');
  });
});
