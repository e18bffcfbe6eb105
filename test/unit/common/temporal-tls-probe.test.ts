import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTemporalClient } from '../../../cli/commands/shared.js';
import { resolveTemporalConnection, type TemporalConnection } from '../../../common/temporal-connection.js';
import { describeRefusedAddress, probeTemporalConnection } from '../../../common/temporal-tls-probe.js';
import { startMtlsProxy, type MtlsProxy } from '../../helpers/mtls-proxy.js';
import { createTestCertificates, type TestCertificates } from '../../helpers/test-certificates.js';

// ADR 0028: a TLS mistake is named by its likely cause (CA, server name, client certificate, TLS on or off), not
// reported as "is it running?". The endpoint is the mTLS proxy of the Temporal tests in front of a stand-in
// frontend that answers the HTTP/2 preface with bytes of its own, as a gRPC server answers with SETTINGS.
let certificates: TestCertificates;
let strangers: TestCertificates;
let frontend: Server;
let frontendAddress: string;
let proxy: MtlsProxy;

function connection(env: Record<string, string>): TemporalConnection {
  const problems: string[] = [];
  const resolved = resolveTemporalConnection(env, (key, message) => problems.push(`${key}: ${message}`));
  expect(problems).toEqual([]);
  return resolved;
}

function mtls(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caCertPath,
    TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
    TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.clientCertPath,
    TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.clientKeyPath,
    ...overrides,
  };
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

beforeAll(async () => {
  certificates = createTestCertificates();
  strangers = createTestCertificates();
  frontend = createServer((socket) =>
    socket.once('data', () => socket.write(Buffer.from([0, 0, 0, 4, 1, 0, 0, 0, 0])))
  );
  await new Promise<void>((resolve) => frontend.listen(0, '127.0.0.1', resolve));
  frontendAddress = `127.0.0.1:${(frontend.address() as AddressInfo).port}`;
  proxy = await startMtlsProxy(certificates, frontendAddress);
});

afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => frontend.close(resolve));
  certificates.remove();
  strangers.remove();
});

describe('probeTemporalConnection', () => {
  it('finds nothing wrong with the right CA, server name and client certificate', async () => {
    expect(await probeTemporalConnection(connection(mtls()))).toBeNull();
  });

  it('names the CA when the server certificate is signed by another one', async () => {
    const cause = await probeTemporalConnection(
      connection(mtls({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: strangers.caCertPath }))
    );
    expect(cause).toMatch(/is not signed by the configured CA \(TEMPORAL_TLS_SERVER_CA_CERT_PATH\/_DATA; [A-Z_]+\)$/);
  });

  it('names the server name when the certificate is for another one', async () => {
    const cause = await probeTemporalConnection(connection(mtls({ TEMPORAL_TLS_SERVER_NAME: 'other.example' })));
    expect(cause).toBe(
      `the server's certificate at ${proxy.address} is not for other.example: set TEMPORAL_TLS_SERVER_NAME to a name it holds (DNS:${certificates.serverName})`
    );
  });

  it('names the missing client certificate, and a client certificate the server does not trust', async () => {
    const without = await probeTemporalConnection(
      connection(mtls({ TEMPORAL_TLS_CLIENT_CERT_PATH: undefined, TEMPORAL_TLS_CLIENT_KEY_PATH: undefined }))
    );
    expect(without).toMatch(
      /requires a client certificate: set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH/
    );
    const foreign = await probeTemporalConnection(
      connection(
        mtls({
          TEMPORAL_TLS_CLIENT_CERT_PATH: strangers.clientCertPath,
          TEMPORAL_TLS_CLIENT_KEY_PATH: strangers.clientKeyPath,
        })
      )
    );
    expect(foreign).toMatch(/refuse[sd]? the client certificate \(TEMPORAL_TLS_CLIENT_CERT_\*/);
  });

  it('says when TLS is on against a plaintext server, or off against a TLS one', async () => {
    expect(
      await probeTemporalConnection(connection({ TEMPORAL_ADDRESS: frontendAddress, TEMPORAL_TLS: 'true' }))
    ).toMatch(/does not speak TLS .*: set TEMPORAL_TLS=false/);
    expect(await probeTemporalConnection(connection({ TEMPORAL_ADDRESS: proxy.address }))).toMatch(
      /speaks TLS but TLS is off: set TEMPORAL_TLS=true/
    );
  });

  it('says nothing answers when nothing listens, TLS or not', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const envs: Record<string, string>[] = [
      { TEMPORAL_ADDRESS: address },
      { TEMPORAL_ADDRESS: address, TEMPORAL_TLS: 'true' },
    ];
    for (const env of envs) {
      expect(await probeTemporalConnection(connection(env))).toMatch(
        /^nothing answers at .*ECONNREFUSED; is it running\?/
      );
    }
  });
  it('says at once when nothing listens, without waiting out the connect timeout', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    expect(await describeRefusedAddress(address)).toMatch(/^nothing answers at .*ECONNREFUSED; is it running\?/);
    expect(await describeRefusedAddress(frontendAddress)).toBeNull();
    // An hour's connect timeout: only the refusal seen first ends this call within the test's budget.
    await expect(connectTemporalClient(connection({ TEMPORAL_ADDRESS: address }), 3_600_000)).rejects.toThrow(
      `cannot reach Temporal at ${address}: nothing answers at ${address} (ECONNREFUSED`
    );
  });

  it('puts the cause in the CLI\'s error instead of "is it running?"', async () => {
    const temporal = connection(mtls({ TEMPORAL_TLS_SERVER_NAME: 'other.example' }));
    await expect(connectTemporalClient(temporal, 1_000)).rejects.toThrow(
      `cannot reach Temporal at ${proxy.address}: the server's certificate at ${proxy.address} is not for other.example`
    );
  });
});
