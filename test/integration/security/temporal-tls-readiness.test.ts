import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startMtlsProxy, type MtlsProxy } from '../../helpers/mtls-proxy.js';
import {
  createTestApiKey,
  postMessage,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';
import { createTestCertificates, type TestCertificates } from '../../helpers/test-certificates.js';

// ADR 0028: the ingest API's send starter behind a TLS mistake (here a server name its certificate does not hold)
// makes GET /readyz answer 503 with the address and the likely cause, instead of staying ready while every send
// waits in the lake. The send itself is still accepted (intent first, architecture.md §12).
const SELF = '100000000000078@lid';
let certificates: TestCertificates;
let frontend: Server;
let proxy: MtlsProxy;
let server: SendTestServer;

beforeAll(async () => {
  certificates = createTestCertificates();
  frontend = createServer((socket) => socket.on('error', () => undefined));
  await new Promise<void>((resolve) => frontend.listen(0, '127.0.0.1', resolve));
  proxy = await startMtlsProxy(certificates, `127.0.0.1:${(frontend.address() as AddressInfo).port}`);
  server = await startSendTestServer(inject('databaseUrl'), {
    env: {
      TEMPORAL_ADDRESS: proxy.address,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caCertPath,
      TEMPORAL_TLS_SERVER_NAME: 'wrong.example',
      TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.clientCertPath,
      TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.clientKeyPath,
      SEND_API_START_TIMEOUT_MS: '1000',
    },
  });
});

afterAll(async () => {
  await server.close();
  await proxy.close();
  await new Promise((resolve) => frontend.close(resolve));
  certificates.remove();
});

describe('GET /readyz with a send starter that cannot reach Temporal', () => {
  it('answers 503 naming the address and the server-name mistake once a start has failed', async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const apiKey = await createTestApiKey(server.admin, { self: [SELF] });
    const groupJid = await seedGroup(server.pool, [SELF]);
    expect((await postMessage(server.url, apiKey.key, { to: groupJid, text: 'hi', category: 'otp' })).status).toBe(202);
    await expect
      .poll(
        async () => {
          const ready = await fetch(`${server.url}/readyz`);
          return { status: ready.status, body: (await ready.json()) as Record<string, unknown> };
        },
        { timeout: 30_000, interval: 200 }
      )
      .toMatchObject({
        status: 503,
        body: {
          code: 'WA_ERR_TEMPORAL_UNAVAILABLE',
          error: `cannot reach Temporal at ${proxy.address} to start sends: the server's certificate at ${proxy.address} is not for wrong.example: set TEMPORAL_TLS_SERVER_NAME to a name it holds (DNS:${certificates.serverName})`,
        },
      });
  });
});
