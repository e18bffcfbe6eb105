import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Closes, as it is accepted, a connection from an address that already holds `maxPerAddress` open connections
 * (ADR 0014): without it, one client's idle keep-alive connections could fill `INGEST_MAX_CONNECTIONS`
 * (`server.maxConnections`) and lock every other client out until they time out. Counts TCP peers: behind a reverse
 * proxy every connection is the proxy's, so the cap must exceed the proxy's own pool of upstream connections.
 *
 * @param maxPerAddress - `INGEST_MAX_CONNECTIONS_PER_ADDRESS`.
 * @returns how many connections each address holds now (for tests and metrics), live.
 */
export function limitConnectionsPerAddress(server: Server, maxPerAddress: number): ReadonlyMap<string, number> {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= maxPerAddress) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return open;
}
