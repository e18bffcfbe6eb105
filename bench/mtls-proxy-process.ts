/**
 * The bench's proxies in a process of their own (`bench/secured-temporal.ts`), so their TLS and piping do not share
 * an event loop with the worker and client under measurement, as a TLS frontend would not:
 * - `<certificate dir> <server name> <upstream host:port>`: the TLS-terminating mTLS proxy;
 * - `--plain <upstream host:port>`: a plaintext TCP pipe, the same extra hop and process without TLS, so the bench
 *   can tell the cost of TLS from that of the hop (on a box shared by many processes, one more process in the path
 *   also gets one more share of the cores).
 * Prints the proxy's `host:port` on one line, stops on SIGTERM.
 */
import { connect, createServer, type AddressInfo } from 'node:net';
import { startMtlsProxy } from '../test/helpers/mtls-proxy.js';
import { testCertificatesIn } from '../test/helpers/test-certificates.js';

/** Pipes every connection to `upstream` in clear; the plain twin of the mTLS proxy. */
async function startPlainProxy(upstream: string): Promise<{ address: string; close(): Promise<void> }> {
  const separator = upstream.lastIndexOf(':');
  const [host, port] = [upstream.slice(0, separator), Number(upstream.slice(separator + 1))];
  const server = createServer((client) => {
    const backend = connect({ host, port });
    const drop = (): void => {
      client.destroy();
      backend.destroy();
    };
    client.on('error', drop).on('close', drop);
    backend.on('error', drop).on('close', drop);
    client.pipe(backend).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const args = process.argv.slice(2);
const proxy =
  args[0] === '--plain'
    ? await startPlainProxy(args[1] ?? '')
    : await (async () => {
        const [dir = '', serverName = '', upstream = ''] = args;
        return startMtlsProxy(testCertificatesIn(dir, serverName), upstream);
      })();
process.stdout.write(`${proxy.address}\n`);
process.on('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
