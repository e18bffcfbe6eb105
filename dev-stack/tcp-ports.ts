import { createServer } from 'node:net';

/** Thrown when a port that was asked for explicitly is already taken on 127.0.0.1. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(
    readonly port: number,
    readonly purpose: string
  ) {
    // A server a killed wa-lake dev left on the same data folder is stopped before the ports are checked (ADR
    // 0017); one left on another folder, or another program, is named here for the operator to stop.
    super(
      `port ${port} for ${purpose} is already in use on 127.0.0.1: by another program, or by a server that a ` +
        `killed wa-lake dev left running on another data folder (find it with: ss -ltnp 'sport = :${port}'). ` +
        'Stop it, or choose another port.'
    );
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
  if ((await tryListen(port)) === null) throw new PortInUseError(port, purpose);
}
