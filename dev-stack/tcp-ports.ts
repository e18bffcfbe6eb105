import { createServer } from 'node:net';

/** A port asked for explicitly, and what it was asked for (e.g. `the ingest API (--ingest-port)`). */
export interface TakenPort {
  port: number;
  purpose: string;
}

/** Thrown when one or more ports that were asked for explicitly are already taken on 127.0.0.1; names every one. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  /** The first taken port (of {@link ports}). */
  readonly port: number;
  readonly purpose: string;
  constructor(readonly ports: readonly [TakenPort, ...TakenPort[]]) {
    // A server a killed wa-lake dev left on the same data folder is stopped before the ports are checked (ADR
    // 0017); one left on another folder, or another program, is named here for the operator to stop.
    const isOne = ports.length === 1;
    const named = ports.map(({ port, purpose }) => `${port} for ${purpose}`).join(', ');
    const filter = ports.map(({ port }) => `sport = :${port}`).join(' or ');
    super(
      `${isOne ? 'port' : 'ports'} ${named} ${isOne ? 'is' : 'are'} already in use on 127.0.0.1: by another ` +
        `program, or by a server that a killed wa-lake dev left running on another data folder (find ` +
        `${isOne ? 'it' : 'them'} with: ss -ltnp '${filter}'). Stop ${isOne ? 'it' : 'them'}, or choose ` +
        `${isOne ? 'another port' : 'other ports'}.`
    );
    this.port = ports[0].port;
    this.purpose = ports[0].purpose;
  }
}

function tryListen(port: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(null) : reject(err)));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}

/** Asks the OS for a free TCP port on 127.0.0.1. */
export async function findFreePort(): Promise<number> {
  return (await tryListen(0)) ?? 0;
}

/**
 * Fails fast when `port` is taken, before a child process is started on it: otherwise a readiness probe
 * can reach the OTHER server on that port and report ours as ready.
 * @throws PortInUseError naming the port and its purpose.
 */
export async function assertPortFree(port: number, purpose: string): Promise<void> {
  if (!(await isPortFree(port))) throw new PortInUseError([{ port, purpose }]);
}

/** Whether `port` can be listened on at 127.0.0.1 right now (it is bound, then let go at once). */
export async function isPortFree(port: number): Promise<boolean> {
  return (await tryListen(port)) !== null;
}
