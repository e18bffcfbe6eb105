import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCodecServerConfig } from '../../../codec-server/config.js';
import { payloadsFromJson, payloadsToJson, type PayloadsJson } from '../../../codec-server/payload-json.js';
import { startCodecServer, type RunningCodecServer } from '../../../codec-server/server.js';
import { EncryptionCodec } from '../../../common/encryption-codec.js';
import { envPayloadEncryptionKeys } from '../../../common/payload-encryption-keys.js';
import { prepareDataDir } from '../../../cli/local-stack/data-dir.js';
import { startDevCodecServer } from '../../../cli/local-stack/dev-codec-server.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { TEST_PAYLOAD_ENCRYPTION_KEYS } from '../../helpers/temporal-env.js';

// ADR 0010 over real HTTP: the remote codec protocol the Web UI and `temporal --codec-endpoint` speak.
const TOKEN = 'codec-token-0123456789abcdef';
const UI_ORIGIN = 'http://127.0.0.1:8233';
const codec = new EncryptionCodec(envPayloadEncryptionKeys.parse(TEST_PAYLOAD_ENCRYPTION_KEYS) ?? []);
let server: RunningCodecServer;

beforeAll(async () => {
  server = await startCodecServer({
    config: loadCodecServerConfig({
      CODEC_SERVER_PORT: '0',
      CODEC_SERVER_TOKEN: TOKEN,
      CODEC_SERVER_CORS_ORIGINS: UI_ORIGIN,
      PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
    }),
    logger: silentLogger(),
  });
});
afterAll(async () => {
  await server?.close();
});

async function encryptedBody(value: unknown): Promise<PayloadsJson> {
  return payloadsToJson(await codec.encode([defaultPayloadConverter.toPayload(value)]));
}

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
    body: JSON.stringify(body),
  });
}

describe('wa-lake codec-server', () => {
  it('decodes an encrypted payload for a bearer token holder', async () => {
    const response = await post('/decode', await encryptedBody({ text: 'bom dia' }), {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(response.status).toBe(200);
    const [payload] = payloadsFromJson((await response.json()) as PayloadsJson);
    expect(defaultPayloadConverter.fromPayload(payload!)).toEqual({ text: 'bom dia' });
  });

  it('accepts the token as the path prefix the Web UI uses, and encodes', async () => {
    const clear = payloadsToJson([defaultPayloadConverter.toPayload('olá')]);
    const encoded = await post(`/${TOKEN}/encode`, clear);
    expect(encoded.status).toBe(200);
    const encodedBody = (await encoded.json()) as PayloadsJson;
    expect(Buffer.from(encodedBody.payloads[0]?.data ?? '', 'base64').toString()).not.toContain('olá');
    const decoded = await post(`/${TOKEN}/decode`, encodedBody);
    expect(await decoded.json()).toEqual(clear);
  });

  it('answers 401 without the token or with a wrong one', async () => {
    const body = await encryptedBody('x');
    expect((await post('/decode', body)).status).toBe(401);
    const wrong = await post('/decode', body, { authorization: 'Bearer not-the-token-at-all' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'WA_ERR_CODEC_UNAUTHORIZED' });
    expect((await post('/not-the-token-at-all/decode', body)).status).toBe(401);
  });

  it('answers 400 for a body that is not {payloads: [...]}', async () => {
    const response = await post('/decode', { nope: true }, { authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(400);
  });

  it('allows the Web UI origin in a CORS preflight, and no other origin', async () => {
    const preflight = (origin: string) =>
      fetch(`${server.url}/${TOKEN}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace',
        },
      });
    const allowed = await preflight(UI_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/i);
    const other = await preflight('http://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('wa-lake codec-server for the temporal CLI (ADR 0028)', () => {
  it('answers {} (a signal or query without input) with an empty payload list', async () => {
    for (const path of ['/decode', '/encode']) {
      const response = await post(path, {}, { authorization: `Bearer ${TOKEN}` });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ payloads: [] });
    }
    expect((await post('/decode', { payloads: 'x' }, { authorization: `Bearer ${TOKEN}` })).status).toBe(400);
  });
});

describe("wa-lake dev's codec server (ADR 0022)", () => {
  it('gives the Web UI an endpoint without the token, so the dev server command line holds none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-codec-dev-'));
    try {
      const layout = prepareDataDir(dir);
      const codecServer = await startDevCodecServer(layout, {}, { uiPort: 8233, codecPort: 0 }, silentLogger());
      try {
        const token = readFileSync(layout.codecTokenFile, 'utf8').trim();
        expect(token.length).toBeGreaterThanOrEqual(16);
        expect(codecServer?.uiEndpoint).toBe(codecServer?.server.url);
        expect(codecServer?.uiEndpoint).not.toContain(token);
        // ADR 0028: `Origin` is a header any program sends; the dev codec server needs the token from every caller.
        const body = { payloads: [] };
        const url = codecServer?.server.url ?? '';
        for (const origin of ['http://127.0.0.1:8233', 'http://localhost:8233']) {
          const forged = await fetch(`${url}/decode`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', origin },
            body: JSON.stringify(body),
          });
          expect(forged.status).toBe(401);
        }
        const withToken = await fetch(`${url}/${token}/decode`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:8233' },
          body: JSON.stringify(body),
        });
        expect(withToken.status).toBe(200);
      } finally {
        await codecServer?.server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
