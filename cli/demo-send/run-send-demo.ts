import type pg from 'pg';
import type { Logger } from '../../common/logger.js';
import {
  createPool,
  generateApiKey,
  normalizeRecipient,
  placeholdersOf,
  SendAdminRepository,
  SendTemplatesRepository,
} from '../../lake/index.js';
import type { SendState } from '../../workflows/send-contracts.js';
import { waitForOutboxDrain } from '../demo/wait-for-outbox-drain.js';
import { startLocalStack } from '../local-stack/start-local-stack.js';
import {
  createDemoWhatsApp,
  DEMO_ACCOUNT_ID,
  DEMO_GROUPS,
  DEMO_OPT_IN_PHONES,
  DEMO_SELF_PARTICIPANT_IDS,
  DEMO_TEMPLATE,
  DEMO_TIMINGS,
  PHASE_1,
  PHASE_2,
} from './send-demo-plan.js';
import { type Accepted, DemoApiClient } from './demo-api-client.js';
import { startDemoLinkPage } from './demo-link-page.js';
import { type ObservedMessage, type SendDemoSummary, summarizeSendDemo } from './send-demo-summary.js';
import { countAckEventsInLake, readMessages, readStates } from './demo-send-rows.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Options of {@link runSendDemo}; `timeoutMs` bounds each wait (ms). */
export interface SendDemoOptions {
  dataDir: string;
  /** Base environment (process.env at the edge); the demo's send settings win over it. */
  env: Env;
  logger: Logger;
  timeoutMs: number;
  abortSignal?: AbortSignal;
}

/** The summary plus the per-message rows it was counted from (for the printed table). */
export interface SendDemoResult {
  summary: SendDemoSummary;
  messages: ObservedMessage[];
}

/** Send settings of the demo: its own account, and a rate that lets a dozen messages through at once. */
const DEMO_ENV = {
  SEND_ACCOUNT_ID: DEMO_ACCOUNT_ID,
  OUTBOUND_SEND_ENABLED: 'true',
  SEND_RATE_PER_MINUTE: '600',
  SEND_RATE_BURST: '20',
  SEND_SWEEP_INTERVAL_MS: '1000',
  OUTBOX_POLL_INTERVAL_MS: '100',
  SESSION_RECONNECT_BASE_DELAY_MS: '200',
  // The linked page is on 127.0.0.1 (no network): previews of private addresses are for demos and tests only.
  SEND_LINK_PREVIEW: 'true',
  SEND_LINK_PREVIEW_ALLOW_PRIVATE: 'true',
};

/**
 * Polls `check` every 200 ms. @throws Error naming `what` when it is still false after `timeoutMs`; the
 * signal's reason when `signal` aborts (Ctrl-C), so the demo stops its stack at once.
 */
async function waitUntil(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
  signal?: AbortSignal
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (!(await check())) throw new Error(`demo-send: ${what} not reached within ${timeoutMs} ms`);
}

/**
 * Runs the whole send path on one machine (architecture.md §12): the local stack (embedded
 * PostgreSQL, Temporal dev server, ingest API, `wa-lake worker`, collector with its dispatch worker)
 * against a {@link createDemoWhatsApp simulated WhatsApp}. Requests go over HTTP to `POST /api/v1/messages`
 * with a key created here. Faults: lost ACKs (two turn up later), one disconnect, one slow send (longer
 * than the send timeout), one number not on WhatsApp, one deadline that passes while disconnected. One
 * message links to a page this demo serves on 127.0.0.1 and goes out with its preview.
 * Counts come from PostgreSQL rows and the simulated socket's wire log. Stops everything it started.
 *
 * @throws when the stack cannot start or the session never opens; a message that does not reach its
 *   expected state is reported in the summary (`ok: false`), not thrown.
 */
export async function runSendDemo(options: SendDemoOptions): Promise<SendDemoResult> {
  const startedAt = Date.now();
  const signal = options.abortSignal;
  const whatsapp = createDemoWhatsApp();
  const linkPage = await startDemoLinkPage();
  const stack = await startLocalStack({
    dataDir: options.dataDir,
    env: { ...options.env, ...DEMO_ENV },
    logger: options.logger,
    source: { kind: 'live' },
    uiPort: null,
    whatsAppSocketFactory: whatsapp.socketFactory,
    sendTimeoutMs: DEMO_TIMINGS.sendTimeoutMs,
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  const pool = createPool(stack.databaseUrl, { max: 2 });
  try {
    const admin = new SendAdminRepository(pool);
    await waitUntil(() => whatsapp.connected, options.timeoutMs, 'the simulated WhatsApp session', signal);
    const generated = generateApiKey();
    const apiKeyId = await admin.createApiKey({
      name: 'demo-send',
      accountId: DEMO_ACCOUNT_ID,
      keyHash: generated.hash,
      keyPrefix: generated.prefix,
      webhookUrl: null,
      // ADR 0015: exactly the planned messages fit the day's quota; one more is refused.
      dailyLimit: PHASE_1.length + PHASE_2.length,
    });
    const testKey = generateApiKey();
    await admin.createApiKey({
      name: 'demo-send-test',
      accountId: DEMO_ACCOUNT_ID,
      keyHash: testKey.hash,
      keyPrefix: testKey.prefix,
      webhookUrl: null,
      environment: 'test',
    });
    const templates = new SendTemplatesRepository(pool);
    const template = await templates.addVersion({
      accountId: DEMO_ACCOUNT_ID,
      name: DEMO_TEMPLATE.name,
      body: DEMO_TEMPLATE.body,
      variables: placeholdersOf(DEMO_TEMPLATE.body),
    });
    await templates.approve(DEMO_ACCOUNT_ID, DEMO_TEMPLATE.name, template.version);
    await admin.setAccountParticipants(DEMO_ACCOUNT_ID, DEMO_SELF_PARTICIPANT_IDS);
    await admin.approveAccount(DEMO_ACCOUNT_ID);
    for (const phone of DEMO_OPT_IN_PHONES) {
      const recipient = normalizeRecipient(phone);
      if (recipient) await admin.addOptIn(DEMO_ACCOUNT_ID, recipient.jid, 'wa-lake demo-send');
    }
    // The groups reach the lake through the real path: snapshot on open → outbox → Temporal → ingest.
    await waitUntil(
      async () => {
        const allowed = await Promise.all(
          DEMO_GROUPS.map((jid) => admin.isRecipientAllowed(DEMO_ACCOUNT_ID, { kind: 'group', jid }))
        );
        return allowed.every(Boolean);
      },
      options.timeoutMs,
      'the demo groups in the lake',
      signal
    );

    const client = new DemoApiClient(stack.ingestUrl, generated.key, linkPage.url);
    const accepted: Accepted[] = [];
    for (const [index, plan] of PHASE_1.entries()) accepted.push(await client.request(plan, index));
    const replayed = await client.replay(accepted[0]!.id);
    await waitUntil(
      async () => (await readStates(pool, apiKeyId)).every((row) => row.state !== 'queued'),
      options.timeoutMs,
      'phase 1 dispatch',
      signal
    );

    whatsapp.disconnect(DEMO_TIMINGS.outageMs);
    for (const [index, plan] of PHASE_2.entries()) accepted.push(await client.request(plan, PHASE_1.length + index));
    const refusalBody = { to: DEMO_GROUPS[0], text: 'one too many', category: 'marketing' };
    const quotaRefusal = await client.refused(refusalBody);
    const testKeyRefusal = await client.refused(refusalBody, testKey.key);
    const expected = new Map(accepted.map((a) => [a.id, a.plan.expected]));
    await waitForExpected(pool, apiKeyId, expected, options.timeoutMs, signal);

    // Phase 3: some lost ACKs turn up after all (WhatsApp delivers a late server ack).
    for (const message of await readMessages(pool, apiKeyId, accepted)) {
      if (!message.lateAck) continue;
      whatsapp.ack(message.waMessageId, 'sent');
      expected.set(message.id, 'sent');
    }
    await waitForExpected(pool, apiKeyId, expected, options.timeoutMs, signal);

    const messages = (await readMessages(pool, apiKeyId, accepted)).map((m) => ({
      ...m,
      expected: expected.get(m.id) ?? m.expected,
    }));
    // The group ACKs above went through the collector; none may have become a lake event.
    if (stack.collector) await waitForOutboxDrain(stack.collector.outbox, options.timeoutMs);
    const summary = summarizeSendDemo({
      ownAcksInLake: await countAckEventsInLake(pool),
      requested: client.requested - client.replays,
      accepted: client.accepted,
      idempotentReplays: replayed ? 1 : 0,
      expectedReplays: 1,
      messages,
      wire: whatsapp.wire,
      elapsedMs: Date.now() - startedAt,
      templateSends: accepted.filter((a) => a.plan.template !== undefined).length,
      linkSends: accepted.filter((a) => a.plan.hasLink === true).length,
      testKeyRefusal,
      quotaRefusal,
    });
    return { summary, messages };
  } finally {
    whatsapp.close();
    await pool.end();
    await stack.stop();
    await linkPage.close();
  }
}

/** Waits until every message is in its expected state; on timeout returns (the summary shows the mismatch). */
async function waitForExpected(
  pool: pg.Pool,
  apiKeyId: string,
  expected: ReadonlyMap<string, SendState>,
  timeoutMs: number,
  signal: AbortSignal | undefined
): Promise<void> {
  await waitUntil(
    async () => (await readStates(pool, apiKeyId)).every((row) => expected.get(row.id) === row.state),
    timeoutMs,
    'expected states',
    signal
  ).catch((err: unknown) => {
    if (signal?.aborted) throw err;
  });
}
