import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

// ADR 0014: `wa-lake send --api-key K` put the key in `ps` and shell history.
describe('wa-lake send takes its key from SEND_API_KEY or a file, never an argument', () => {
  const seenKeys: string[] = [];
  let server: Server;
  let url: string;
  const dir = mkdtempSync(join(tmpdir(), 'send-key-'));

  beforeAll(async () => {
    server = createServer((request, response) => {
      seenKeys.push(String(request.headers['x-api-key']));
      request.resume();
      const isRepeat = request.headers['idempotency-key'] === 'seen-before';
      request.on('end', () =>
        response
          .writeHead(202, {
            'content-type': 'application/json',
            ...(isRepeat ? { 'idempotent-replayed': 'true' } : {}),
          })
          .end('{"id":"x","status":"queued"}')
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const send = (extra: string[], env: Record<string, string> = {}): ReturnType<typeof runCli> =>
    runCli(['send', '--to', '5511999990000', '--text', 'hi', '--url', url, ...extra], { env });

  it('sends with the key from SEND_API_KEY, or from --api-key-file', async () => {
    const fromEnv = await send([], { SEND_API_KEY: 'wlk_from_env' });
    expect(fromEnv.code).toBe(0);
    const file = join(dir, 'key');
    writeFileSync(file, 'wlk_from_file\n', { mode: 0o600 });
    const fromFile = await send(['--api-key-file', file], { SEND_API_KEY: 'wlk_from_env' });
    expect(fromFile.code).toBe(0);
    expect(seenKeys).toEqual(['wlk_from_env', 'wlk_from_file']);
  });

  it('prints the same answer for a replay and says on stderr that nothing new was sent (ADR 0030)', async () => {
    const first = await send([], { SEND_API_KEY: 'wlk_from_env' });
    const replay = await send(['--idempotency-key', 'seen-before'], { SEND_API_KEY: 'wlk_from_env' });
    expect([replay.code, replay.stdout]).toEqual([0, first.stdout]);
    expect(first.stderr).not.toContain('accepted before');
    expect(replay.stderr).toContain('this Idempotency-Key was accepted before; nothing new was sent');
  });

  it('refuses to run without a key and no longer accepts --api-key', async () => {
    const before = seenKeys.length;
    const none = await send([]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('set SEND_API_KEY or pass --api-key-file');
    const argument = await send(['--api-key', 'wlk_visible_in_ps']);
    expect(argument.code).toBe(1);
    expect(argument.stderr).toContain("unknown option '--api-key'");
    expect(seenKeys.length).toBe(before);
  });

  it('names a key file it cannot read and a base URL that is not one, in words, sending nothing', async () => {
    const before = seenKeys.length;
    const missing = await send(['--api-key-file', join(dir, 'no-such-key')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`cannot read the API key file ${join(dir, 'no-such-key')}: there is no such file`);
    const folder = await send(['--api-key-file', dir]);
    expect(folder.stderr).toContain('it is a folder, not a file');
    const badUrl = await runCli(['send', '--to', '5511999990000', '--text', 'hi', '--url', 'not-a-url'], {
      env: { SEND_API_KEY: 'wlk_from_env' },
    });
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain('"not-a-url" is not a URL');
    expect(seenKeys.length).toBe(before);
  });
});

/** An IPv4 address of this machine that is not loopback (the test's stand-in for another machine), if any. */
function nonLoopbackAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')?.address;
}

// ADR 0014 decision 5: `--url http://<another host>` would carry the key in clear across a network.
describe('wa-lake send over plain http to another machine', () => {
  const address = nonLoopbackAddress();
  const seenKeys: string[] = [];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      seenKeys.push(String(request.headers['x-api-key']));
      request.resume();
      request.on('end', () => response.writeHead(202, { 'content-type': 'application/json' }).end('{"id":"x"}'));
    });
    await new Promise<void>((resolve) => server.listen(0, address ?? '127.0.0.1', resolve));
    url = `http://${address ?? 'send.example.invalid'}:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const send = (extra: string[]): ReturnType<typeof runCli> =>
    runCli(['send', '--to', '5511999990000', '--text', 'hi', '--url', url, ...extra], {
      env: { SEND_API_KEY: 'wlk_secret_key' },
    });

  it('refuses without --insecure, saying the key would travel unencrypted, and sends nothing', async () => {
    const run = await send([]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `refusing to send the API key to ${new URL(url).origin} over plain http: it would travel unencrypted`
    );
    expect(run.stderr).toContain('pass --insecure');
    expect(seenKeys).toEqual([]);
  });

  it.skipIf(address === undefined)(
    'sends with --insecure, warning on stderr that the key travels unencrypted',
    async () => {
      const run = await send(['--insecure']);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`warning: the API key travels unencrypted to ${new URL(url).origin}`);
      expect(seenKeys).toEqual(['wlk_secret_key']);
    }
  );
});
