import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import { serverTlsOptions, type TestCertificates } from './test-certificates.js';

/** A TLS endpoint that requires a client certificate, in front of a plaintext Temporal frontend. */
export interface MtlsProxy {
  /** `127.0.0.1:<port>` (TEMPORAL_ADDRESS of the clients under test). */
  address: string;
  /** TLS handshakes refused (no or untrusted client certificate). */
  refusedHandshakes: number;
  /** Connections that passed the handshake and were piped to the frontend. */
  acceptedConnections: number;
  close(): Promise<void>;
}

/**
 * Starts a TLS-terminating proxy (ADR 0022): `requestCert` and `rejectUnauthorized`, so only a client
 * certificate signed by the test CA gets through; ALPN `h2` as gRPC clients ask; every accepted connection is
 * piped to `upstream` (`host:port` of the dev server).
 */
export async function startMtlsProxy(certificates: TestCertificates, upstream: string): Promise<MtlsProxy> {
  const [host, port] = [
    upstream.slice(0, upstream.lastIndexOf(':')),
    Number(upstream.slice(upstream.lastIndexOf(':') + 1)),
  ];
  const sockets = new Set<Socket>();
  const proxy: MtlsProxy = {
    address: '',
    refusedHandshakes: 0,
    acceptedConnections: 0,
    close: () => Promise.resolve(),
  };
  const server = createServer(
    {
      ...serverTlsOptions(certificates),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (client: TLSSocket) => {
      proxy.acceptedConnections += 1;
      const backend = connect({ host, port });
      sockets.add(client).add(backend);
      const drop = (): void => {
        client.destroy();
        backend.destroy();
        sockets.delete(client);
        sockets.delete(backend);
      };
      client.on('error', drop).on('close', drop);
      backend.on('error', drop).on('close', drop);
      client.pipe(backend).pipe(client);
    }
  );
  server.on('tlsClientError', () => {
    proxy.refusedHandshakes += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return proxy;
}
