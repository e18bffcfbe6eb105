/**
 * Benchmark of the payload codec (ADR 0010): the delivery path — a client starts `deliverEvent`
 * (encode), the real worker runs it (decode, encode of activity input/results) and POSTs to a stub
 * ingest on 127.0.0.1 answering 201 — with the AES-256-GCM codec on and off, in the same run, rounds
 * alternating so machine load hits both alike. Reports events/s per mode (median of rounds), the ratio
 * on/off (target ≥ 0.9) and the codec's own cost per payload. The ingest API never sees the codec
 * (it receives the plain body over HTTP), so its figure is unchanged by construction.
 * Run: `npx tsx bench/payload-codec.ts` (`npm run bench:codec`).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { bundleWorkflowCode } from '@temporalio/worker';
import { EncryptionCodec } from '../common/encryption-codec.js';
import { createRootLogger } from '../common/logger.js';
import { envPayloadEncryptionKeys, formatPayloadEncryptionKey } from '../common/payload-encryption-keys.js';
import { createDataConverter } from '../common/temporal-data-converter.js';
import { resolveTemporalCliPath } from '../dev-stack/temporal-binaries.js';
import { startTemporalDevServer } from '../dev-stack/temporal-dev-server.js';
import { loadWorkerConfig } from '../worker/config.js';
import { installRuntimeLoggerOnce } from '../worker/runtime-logger.js';
import { runWorker } from '../worker/run-worker.js';
import { resolveWorkflowsPath } from '../worker/workflows-path.js';
import type { DeliverEventInput } from '../workflows/contracts.js';

const EVENTS_PER_ROUND = 200;
const START_CONCURRENCY = 32;
const ROUNDS = 3;
const TARGET_RATIO = 0.9;
const CHAT_JID = '120363000000000001@g.us';
const KEYS = formatPayloadEncryptionKey('bench', randomBytes(32));

function deliverInput(): DeliverEventInput {
  const eventId = randomUUID();
  const payload = {
    key: { remoteJid: CHAT_JID, id: eventId.slice(0, 20), participant: '100000000000001@lid' },
    messageTimestamp: 1700000000,
    pushName: 'Member 1',
    message: { conversation: `héllo group 😀 ${'lorem ipsum '.repeat(40)}` },
  };
  const body = JSON.stringify({
    type: 'messages.upsert',
    chat_jid: CHAT_JID,
    payload,
    captured_at: new Date().toISOString(),
  });
  return { eventId, type: 'messages.upsert', chatJid: CHAT_JID, body };
}

async function startStubIngest(): Promise<{ url: string; close(): void }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end('{"status":"stored"}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/api/webhooks/whatsapp`, close: () => server.close() };
}

/** Delivers EVENTS_PER_ROUND events end to end; returns events per second. */
async function deliverRound(client: Client, taskQueue: string): Promise<number> {
  const inputs = Array.from({ length: EVENTS_PER_ROUND }, deliverInput);
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: START_CONCURRENCY }, async () => {
      while (next < inputs.length) {
        const input = inputs[next++] as DeliverEventInput;
        await client.workflow.execute('deliverEvent', { taskQueue, workflowId: input.eventId, args: [input] });
      }
    })
  );
  return Math.round(EVENTS_PER_ROUND / (Number(process.hrtime.bigint() - started) / 1e9));
}

/** Codec cost alone: µs per payload for encode + decode of a delivery input. */
async function codecMicroseconds(): Promise<number> {
  const codec = new EncryptionCodec(envPayloadEncryptionKeys.parse(KEYS) ?? []);
  const payloads = Array.from({ length: 2_000 }, () => defaultPayloadConverter.toPayload(deliverInput()));
  await codec.decode(await codec.encode(payloads.slice(0, 200)));
  const started = process.hrtime.bigint();
  for (const payload of payloads) await codec.decode(await codec.encode([payload]));
  return Number((Number(process.hrtime.bigint() - started) / 1e3 / payloads.length).toFixed(1));
}

/**
 * Wall time spent inside the codec (every EncryptionCodec instance: client and worker), in ns. Counted by
 * wrapping the prototype: on a shared, loaded host the rates swing by 2x between rounds, while the share
 * of each round spent encrypting is a stable upper bound of what the codec can cost.
 */
let codecNs = 0n;
for (const method of ['encode', 'decode'] as const) {
  const original = EncryptionCodec.prototype[method];
  EncryptionCodec.prototype[method] = async function timed(this: EncryptionCodec, payloads) {
    const started = process.hrtime.bigint();
    try {
      return await original.call(this, payloads);
    } finally {
      codecNs += process.hrtime.bigint() - started;
    }
  };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const logger = createRootLogger({ level: 'error' });
  installRuntimeLoggerOnce(logger);
  const temporal = await startTemporalDevServer({ cliPath: resolveTemporalCliPath(process.env), uiPort: null });
  const ingest = await startStubIngest();
  const connection = await Connection.connect({ address: temporal.address });
  const bundle = await bundleWorkflowCode({
    workflowsPath: resolveWorkflowsPath(),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
  });
  const modes = { off: '', on: KEYS } as const;
  const rates: Record<keyof typeof modes, number[]> = { off: [], on: [] };
  const codecShares: number[] = [];
  try {
    for (let round = 0; round <= ROUNDS; round += 1) {
      for (const mode of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const taskQueue = `bench-codec-${mode}-${round}`;
        const config = loadWorkerConfig({
          TEMPORAL_ADDRESS: temporal.address,
          TEMPORAL_TASK_QUEUE: taskQueue,
          WEBHOOK_URL: ingest.url,
          WHATSAPP_WEBHOOK_SECRET: 'bench-secret-0123456789abcdef',
          PAYLOAD_ENCRYPTION_KEYS: modes[mode],
          LOG_LEVEL: 'warn',
        });
        const worker = await runWorker({ config, logger, workflowBundle: bundle });
        const client = new Client({
          connection,
          dataConverter: createDataConverter(config.PAYLOAD_ENCRYPTION_KEYS),
        });
        codecNs = 0n;
        const roundStarted = process.hrtime.bigint();
        const rate = await deliverRound(client, taskQueue);
        if (mode === 'on' && round > 0)
          codecShares.push(Number(codecNs) / Number(process.hrtime.bigint() - roundStarted));
        await worker.stop();
        if (round > 0) rates[mode].push(rate); // round 0 warms up both modes
        process.stdout.write(`round ${round} codec ${mode}: ${rate} events/s${round === 0 ? ' (warm-up)' : ''}\n`);
      }
    }
  } finally {
    await connection.close();
    ingest.close();
    await temporal.stop();
  }
  const off = median(rates.off);
  const on = median(rates.on);
  const ratio = Number((on / off).toFixed(2));
  const micro = await codecMicroseconds();
  process.stdout.write(
    `\ndelivery e2e (dev server, ${EVENTS_PER_ROUND} events/round, ${START_CONCURRENCY} in flight, median of ${ROUNDS}):\n` +
      `  codec off ${off} events/s · codec on ${on} events/s · ratio ${ratio} (target ≥ ${TARGET_RATIO}) ${ratio >= TARGET_RATIO ? 'OK' : 'BELOW TARGET'}\n` +
      `  codec cost: ${micro} µs per encode+decode of one delivery input; time inside the codec during codec-on rounds: ` +
      `${(median(codecShares) * 100).toFixed(2)} % of wall time (bound on the slowdown: ratio ≥ ${(1 - median(codecShares)).toFixed(3)})\n` +
      `  load average ${loadavg()[0]?.toFixed(2)} (rates on a shared host swing between rounds; the share does not)\n`
  );
}

await main();
