import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SimulatedWhatsApp } from '../../../cli/demo-send/simulated-whatsapp.js';
import { createDispatchActivity } from '../../../collector/send/dispatch-activity.js';
import { createLinkPreviewer, type LinkPreviewer } from '../../../collector/send/link-preview.js';
import { asSendSocket, type SendSocket } from '../../../collector/session/send-socket.js';
import type { ResolveAll } from '../../../common/webhook-url-policy.js';
import { findFreePort } from '../../../dev-stack/tcp-ports.js';

// ADR 0015: a link in an outbound text gets a preview, best effort, fetched by the collector through the guarded
// fetch of caller-supplied URLs. A local page with og: tags stands in for the web (no network here).

const ARTICLE = `<!doctype html><html><head>
<meta property="og:title" content="Community meeting on Saturday">
<meta property="og:description" content="Agenda, place and time of the next meeting.">
<title>ignored when og:title is present</title>
</head><body>${'<p>filler</p>'.repeat(2000)}</body></html>`;

const RECIPIENT = '5511970000001@s.whatsapp.net';
let server: Server;
let baseUrl: string;
/** Paths the page server was asked for, in order. */
const requested: string[] = [];

function handle(req: IncomingMessage, res: ServerResponse): void {
  requested.push(req.url ?? '');
  if (req.url === '/meeting') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
  } else if (req.url === '/moved') {
    res.writeHead(301, { location: '/meeting' }).end();
  } else if (req.url === '/hangs') {
    // Never answers: the preview gives up, the message goes out without one.
  } else if (req.url === '/pdf') {
    res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7');
  } else {
    res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title>');
  }
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A simulated WhatsApp with one open socket, as the collector's session hands it to the dispatch activity. */
async function openWhatsApp(): Promise<{ whatsapp: SimulatedWhatsApp; socket: SendSocket }> {
  const whatsapp = new SimulatedWhatsApp({
    self: { id: '5500000000001:1@s.whatsapp.net', lid: '100000000000001:1@lid' },
    groups: {},
    behaviours: new Map(),
    slowSendMs: 0,
    ackStepMs: 60_000,
  });
  const { socket } = await whatsapp.socketFactory();
  await vi.waitFor(() => expect(whatsapp.connected).toBe(true));
  const sendSocket = asSendSocket(socket);
  if (!sendSocket) throw new Error('the simulated socket cannot send');
  return { whatsapp, socket: sendSocket };
}

async function dispatch(text: string, linkPreviewer: LinkPreviewer | undefined): Promise<SimulatedWhatsApp> {
  const { whatsapp, socket } = await openWhatsApp();
  const activities = createDispatchActivity({
    getSocket: () => socket,
    rememberSent: () => undefined,
    ...(linkPreviewer ? { linkPreviewer } : {}),
  });
  await new MockActivityEnvironment().run(activities.dispatchWhatsAppMessage, {
    messageId: '0b0e2c1e-2f7c-4d7e-9a55-5f3c9c1d2a10',
    waMessageId: '3EB0LINKPREVIEW0001',
    toJid: RECIPIENT,
    text,
    category: 'transactional' as const,
    grantedAtMs: Date.now(),
    deliverByMs: null,
  });
  whatsapp.close();
  return whatsapp;
}

const localPreviewer = (timeoutMs?: number): LinkPreviewer =>
  createLinkPreviewer({ allowPrivate: true, ...(timeoutMs ? { timeoutMs } : {}) });

describe('link previews of outbound texts (ADR 0015)', () => {
  it('puts the og: title and description of the linked page into the message on the wire', async () => {
    const text = `Details: ${baseUrl}/meeting. See you there`;
    const whatsapp = await dispatch(text, localPreviewer());
    expect(whatsapp.wire).toHaveLength(1);
    expect(whatsapp.wire[0]).toMatchObject({ text, messageId: '3EB0LINKPREVIEW0001' });
    expect(whatsapp.wire[0]?.linkPreview).toEqual({
      'canonical-url': `${baseUrl}/meeting`,
      'matched-text': `${baseUrl}/meeting`,
      title: 'Community meeting on Saturday',
      description: 'Agenda, place and time of the next meeting.',
    });
  });

  it('follows a redirect on the same guard', async () => {
    const whatsapp = await dispatch(`${baseUrl}/moved`, localPreviewer());
    expect(whatsapp.wire[0]?.linkPreview).toMatchObject({
      'canonical-url': `${baseUrl}/meeting`,
      'matched-text': `${baseUrl}/moved`,
      title: 'Community meeting on Saturday',
    });
  });

  it('still sends, without a preview, to an unreachable host, a page that never answers, a 404 and a PDF', async () => {
    const closedPort = await findFreePort();
    for (const link of [`http://127.0.0.1:${closedPort}/x`, `${baseUrl}/hangs`, `${baseUrl}/404`, `${baseUrl}/pdf`]) {
      const text = `look: ${link}`;
      const whatsapp = await dispatch(text, localPreviewer(500));
      expect(whatsapp.wire, link).toEqual([expect.objectContaining({ text, linkPreview: null })]);
    }
  });

  it('never fetches a private address unless allowed, neither literal nor behind a name', async () => {
    const before = requested.length;
    // A hostile DNS: the name resolves to loopback (the guard checks the addresses after resolution).
    const resolveAll: ResolveAll = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    const strict = createLinkPreviewer({ allowPrivate: false, resolveAll });
    const port = new URL(baseUrl).port;
    for (const link of [`${baseUrl}/meeting`, `http://news.rebind.test:${port}/meeting`, `http://localhost:${port}/`]) {
      const whatsapp = await dispatch(`read ${link}`, strict);
      expect(whatsapp.wire, link).toEqual([expect.objectContaining({ linkPreview: null })]);
    }
    expect(requested.length).toBe(before);
  });

  it('sends a text without a link, or with previews off, with linkPreview null so Baileys fetches nothing itself', async () => {
    expect((await dispatch('no link here', localPreviewer())).wire[0]?.linkPreview).toBeNull();
    const before = requested.length;
    expect((await dispatch(`${baseUrl}/meeting`, undefined)).wire[0]?.linkPreview).toBeNull();
    expect(requested.length).toBe(before);
  });
});
