import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { explainListenError } from '../../../common/listen-error.js';
import { reportFailure } from '../../../cli/report-failure.js';

function listen(server: Server, port: number): Promise<unknown> {
  return new Promise((resolve) => {
    server.once('error', resolve);
    server.listen(port, '127.0.0.1', () => resolve(null));
  });
}

describe('reportFailure', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('says a taken port in words and stops there, without the raw listen EADDRINUSE', async () => {
    const holder = createServer();
    servers.push(holder);
    await listen(holder, 0);
    const address = holder.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const failure = await listen(createServer(), port);
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });

    const code = reportFailure(
      explainListenError(failure, 'dashboard', '127.0.0.1', port, 'DASHBOARD_HOST/DASHBOARD_PORT'),
      'info'
    );

    expect(code).toBe(1);
    expect(written.join('')).toBe(
      `wa-lake: the dashboard cannot listen on 127.0.0.1:${port}: the port is already in use (find its owner with ` +
        `ss -ltnp 'sport = :${port}'); stop it or choose another with DASHBOARD_HOST/DASHBOARD_PORT\n`
    );
  });
});
