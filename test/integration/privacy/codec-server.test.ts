import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
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

describe('wa-lake codec-server trusting the Web UI origin (wa-lake dev, ADR 0022)', () => {
  let trusting: RunningCodecServer;
  beforeAll(async () => {
    trusting = await startCodecServer({
      config: loadCodecServerConfig({
        CODEC_SERVER_PORT: '0',
        CODEC_SERVER_TOKEN: TOKEN,
        CODEC_SERVER_CORS_ORIGINS: UI_ORIGIN,
        CODEC_SERVER_TRUST_UI_ORIGIN: 'true',
        PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
      }),
      logger: silentLogger(),
    });
  });
  afterAll(async () => {
    await trusting?.close();
  });

  /** A raw HTTP POST, so `Host` can be set as a DNS-rebound page's would be. */
  function rawPost(path: string, body: unknown, headers: Record<string, string>): Promise<number> {
    const url = new URL(trusting.url);
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        }
      );
      request.on('error', reject);
      request.end(JSON.stringify(body));
    });
  }

  it('decodes for the Web UI origin on its loopback name without a token, and nothing else', async () => {
    const body = await encryptedBody({ text: 'oi' });
    const ownHost = new URL(trusting.url).host;
    expect(await rawPost('/decode', body, { origin: UI_ORIGIN, host: ownHost })).toBe(200);
    expect(await rawPost('/decode', body, { origin: 'https://evil.example', host: ownHost })).toBe(401);
    expect(
      await rawPost('/decode', body, { origin: UI_ORIGIN, host: `rebound.example:${new URL(trusting.url).port}` })
    ).toBe(401);
    expect(await rawPost('/decode', body, { host: ownHost })).toBe(401);
    expect(await rawPost('/encode', body, { origin: UI_ORIGIN, host: ownHost })).toBe(401);
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
      } finally {
        await codecServer?.server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
