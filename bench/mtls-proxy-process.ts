/**
 * The bench's TLS-terminating proxy in a process of its own (`bench/secured-temporal.ts`), so its TLS and piping
 * do not share an event loop with the worker and client under measurement, as a TLS frontend would not.
 * Run: `npx tsx bench/mtls-proxy-process.ts <certificate dir> <server name> <upstream host:port>`; prints the
 * proxy's `host:port` on one line, stops on SIGTERM.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { startMtlsProxy } from '../test/helpers/mtls-proxy.js';

const [dir = '', serverName = '', upstream = ''] = process.argv.slice(2);
const proxy = await startMtlsProxy(
  {
    dir,
    caCertPath: join(dir, 'ca.crt'),
    serverCertPath: join(dir, 'server.crt'),
    serverKeyPath: join(dir, 'server.key'),
    clientCertPath: join(dir, 'client.crt'),
    clientKeyPath: join(dir, 'client.key'),
    serverName,
    read: (path) => readFileSync(path),
    remove: () => undefined,
  },
  upstream
);
process.stdout.write(`${proxy.address}\n`);
process.on('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
