import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The title the demo's page announces (`og:title`): the preview on the wire must carry it. */
export const DEMO_LINK_PAGE_TITLE = 'wa-lake demo: the next community meeting';

const PAGE = `<!doctype html><html><head>
<meta property="og:title" content="${DEMO_LINK_PAGE_TITLE}">
<meta property="og:description" content="A page on this machine, previewed by the collector before it sends.">
<title>${DEMO_LINK_PAGE_TITLE}</title>
</head><body><p>No network needed.</p></body></html>`;

/** A page on 127.0.0.1 that a demo message links to. */
export interface DemoLinkPage {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves one HTML page with `og:` tags on a free loopback port (the demo has no network): the collector
 * previews the link to it, which the demo allows with `SEND_LINK_PREVIEW_ALLOW_PRIVATE` (ADR 0015).
 */
export async function startDemoLinkPage(): Promise<DemoLinkPage> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/meeting`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
