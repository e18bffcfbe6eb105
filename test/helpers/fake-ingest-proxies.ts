import { createServer as createHttpServer } from 'node:http';
import { createConnection, createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy that can be cut (every connection dropped, new ones refused at the TCP level) and restored. */
export interface CuttableTcpProxy {
  port: number;
  setDown(isDown: boolean): void;
  close(): Promise<void>;
}

/** Proxies 127.0.0.1:<port> → `target`; used in front of PostgreSQL to simulate "database down". */
export async function startCuttableTcpProxy(target: { host: string; port: number }): Promise<CuttableTcpProxy> {
  let isDown = false;
  const sockets = new Set<Socket>();
  const server = createTcpServer((client) => {
    if (isDown) return client.destroy();
    const upstream = createConnection(target);
    sockets.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    setDown(next) {
      isDown = next;
      if (next) for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP front proxy whose `decide` may forward normally or forward and then lose the response. */
export interface FrontProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * Forwards every request to `targetUrl` (same path, headers and bytes). When `shouldLoseResponse()` is
 * true for a request, the upstream response is awaited (the row is committed) and the client's socket is
 * destroyed instead of answering: "response lost after commit".
 */
export async function startFrontProxy(targetUrl: string, shouldLoseResponse: () => boolean): Promise<FrontProxy> {
  const server = createHttpServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'x-event-id', 'x-signature']) headers[name] = String(req.headers[name] ?? '');
      const upstream = await fetch(`${targetUrl}${req.url ?? ''}`, {
        method: req.method,
        headers,
        body: Buffer.concat(chunks),
        redirect: 'manual',
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (shouldLoseResponse()) return req.socket.destroy();
      res.writeHead(upstream.status, Object.fromEntries(upstream.headers)).end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
