import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { explainListenError, ListenAddressError } from '../../../common/listen-error.js';

function listen(server: Server, port: number): Promise<unknown> {
  return new Promise((resolve) => {
    server.once('error', resolve);
    server.listen(port, '127.0.0.1', () => resolve(null));
  });
}

describe('explainListenError', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('names the taken port, how to find its owner and the settings that move it', async () => {
    const holder = createServer();
    servers.push(holder);
    await listen(holder, 0);
    const address = holder.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const failure = await listen(createServer(), port);

    const explained = explainListenError(failure, 'dashboard', '127.0.0.1', port, 'DASHBOARD_HOST/DASHBOARD_PORT');

    expect(explained).toBeInstanceOf(ListenAddressError);
    expect((explained as Error).message).toBe(
      `the dashboard cannot listen on 127.0.0.1:${port}: the port is already in use (find its owner with ` +
        `ss -ltnp 'sport = :${port}'); stop it or choose another with DASHBOARD_HOST/DASHBOARD_PORT`
    );
  });

  it('names the setting of a host name that does not resolve', () => {
    const failure = Object.assign(new Error('getaddrinfo ENOTFOUND nohost.invalid'), { code: 'ENOTFOUND' });

    const explained = explainListenError(failure, 'dashboard', 'nohost.invalid', 8687, 'DASHBOARD_HOST/DASHBOARD_PORT');

    expect(explained).toBeInstanceOf(ListenAddressError);
    expect((explained as Error).message).toBe(
      'the dashboard cannot listen on nohost.invalid:8687: the host name does not resolve (ENOTFOUND); set ' +
        'DASHBOARD_HOST/DASHBOARD_PORT'
    );
  });

  it('returns other errors unchanged', () => {
    const other = new Error('boom');
    expect(explainListenError(other, 'dashboard', '::1', 1, 'X')).toBe(other);
  });
});
