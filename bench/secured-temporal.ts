/**
 * Benchmark of ADR 0022: delivery over a secured Temporal against today's plaintext one, in one run on one
 * dev server. Each round starts the real worker (`runWorker`) and a client built from `TEMPORAL_*` keys, then
 * delivers `--events` `deliverEvent` workflows (8 in flight, as the sender does) to a fake ingest:
 *   plain     — plaintext gRPC to the dev server, no payload codec (today's bench);
 *   encrypted — plaintext gRPC, payload codec required and failure attributes encoded (the codec's share);
 *   secured   — the same through mTLS: a TLS-terminating proxy in a process of its own (client certificate,
 *               custom CA and server name), one more hop than a TLS frontend has.
 *   proxied   — plain through a plaintext TCP pipe in a process of its own: the secured kind's extra hop and
 *               process without TLS or codec, so secured/proxied is what TLS and the codec cost.
 * Rounds alternate the kinds, and every other round runs them in reverse (plain, encrypted, secured, then secured,
 * encrypted, plain, …), so a drift of the shared host hits each kind alike. Each round's ratio to the plain run of the
 * same round is the figure: the median of those paired ratios with their spread (min–max and every value), beside
 * the ratio of the medians, so the noise of a shared box stays visible instead of hiding in one number; and per
 * block of a forward and a reversed round, the geometric mean of its two ratios, which cancels a linear drift of
 * the host's load (the kind that runs first in a round is otherwise favoured while the load rises). Prints
 * events/s and start→result latency p50/p99 and the load averages per round.
 * Run: `npx tsx bench/secured-temporal.ts [--events 200] [--rounds 6] [--kinds plain,proxied,encrypted,secured]`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createLazyTemporalClient } from '../common/lazy-temporal-client.js';
import { createDataConverter } from '../common/temporal-data-converter.js';
import { runWorker } from '../worker/run-worker.js';
import { DELIVER_EVENT_WORKFLOW_TYPE, type DeliverEventInput } from '../workflows/contracts.js';
import { startFakeIngest } from '../test/helpers/fake-ingest.js';
import { silentLogger } from '../test/helpers/silent-logger.js';
import { startDevTemporal } from '../test/helpers/temporal-dev.js';
import {
  bundleWorkflows,
  sampleBody,
  TEST_PAYLOAD_ENCRYPTION_KEYS,
  TEST_SECRET,
  testWorkerConfig,
} from '../test/helpers/temporal-env.js';
import { createTestCertificates } from '../test/helpers/test-certificates.js';
import { loadCollectorConfig } from '../collector/config.js';

type Kind = 'plain' | 'proxied' | 'encrypted' | 'secured';
const ALL_KINDS: readonly Kind[] = ['plain', 'proxied', 'encrypted', 'secured'];
const isKind = (value: string): value is Kind => (ALL_KINDS as readonly string[]).includes(value);

const { values: flags } = parseArgs({
  options: {
    events: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '6' },
    kinds: { type: 'string', default: ALL_KINDS.join(',') },
  },
});
const EVENTS = Number(flags.events);
const ROUNDS = Number(flags.rounds);
const KINDS: Kind[] = flags.kinds.split(',').map((kind) => {
  if (!isKind(kind)) throw new Error(`--kinds: ${kind} is not one of ${ALL_KINDS.join(', ')}`);
  return kind;
});
if (!KINDS.includes('plain')) throw new Error('--kinds must include plain: every ratio is to plain');
const IN_FLIGHT = 8;
const print = (line: string): void => void process.stdout.write(`${line}\n`);
const loads = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] ?? Number.NaN;
  return ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
};
/** Median, min–max and every value of paired ratios, e.g. `1.02 (0.91–1.20: 0.91 1.02 1.20)`. */
const spread = (ratios: number[]): string =>
  `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}: ` +
  `${ratios.map((r) => r.toFixed(2)).join(' ')})`;

interface RoundResult {
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

async function main(): Promise<void> {
  const certificates = createTestCertificates();
  const [temporal, bundle, ingest] = await Promise.all([
    startDevTemporal({ dataConverter: null }),
    bundleWorkflows(),
    startFakeIngest({ secrets: [TEST_SECRET] }),
  ]);
  const proxyProcesses: ChildProcess[] = [];
  const startProxy = async (args: string[]): Promise<string> => {
    const proxyProcess = spawn(
      process.execPath,
      ['--import', 'tsx', new URL('./mtls-proxy-process.ts', import.meta.url).pathname, ...args],
      { stdio: ['ignore', 'pipe', 'inherit'] }
    );
    proxyProcesses.push(proxyProcess);
    const [firstLine] = (await once(proxyProcess.stdout, 'data')) as [Buffer];
    return firstLine.toString('utf8').trim();
  };
  const proxyAddress = await startProxy([certificates.dir, certificates.serverName, temporal.server.address]);
  const plainProxyAddress = await startProxy(['--plain', temporal.server.address]);
  const envs: Record<Kind, Record<string, string>> = {
    plain: { TEMPORAL_ADDRESS: temporal.server.address, PAYLOAD_ENCRYPTION_KEYS: '' },
    proxied: { TEMPORAL_ADDRESS: plainProxyAddress, PAYLOAD_ENCRYPTION_KEYS: '' },
    encrypted: { TEMPORAL_ADDRESS: temporal.server.address, PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS },
    secured: {
      TEMPORAL_ADDRESS: proxyAddress,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caCertPath,
      TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
      TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.clientCertPath,
      TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.clientKeyPath,
      PAYLOAD_ENCRYPTION_KEYS: TEST_PAYLOAD_ENCRYPTION_KEYS,
    },
  };

  async function round(kind: Kind): Promise<RoundResult> {
    const taskQueue = `bench-${kind}-${randomUUID()}`;
    const env = { ...envs[kind], TEMPORAL_TASK_QUEUE: taskQueue };
    const worker = await runWorker({
      config: testWorkerConfig({ ...env, WEBHOOK_URL: ingest.webhookUrl }),
      logger: silentLogger(),
      workflowBundle: bundle,
    });
    const collector = loadCollectorConfig(env);
    const temporalClient = createLazyTemporalClient(
      collector.temporal,
      createDataConverter(collector.PAYLOAD_ENCRYPTION_KEYS)
    );
    const latencies: number[] = [];
    let next = 0;
    const startedAt = performance.now();
    const lane = async (): Promise<void> => {
      for (let index = next++; index < EVENTS; index = next++) {
        const eventId = randomUUID();
        const input: DeliverEventInput = { eventId, type: 'messages.upsert', chatJid: null, body: sampleBody(eventId) };
        const begin = performance.now();
        await temporalClient.client.workflow.execute(DELIVER_EVENT_WORKFLOW_TYPE, {
          taskQueue,
          workflowId: eventId,
          args: [input],
        });
        latencies.push(performance.now() - begin);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    const seconds = (performance.now() - startedAt) / 1000;
    await temporalClient.close();
    await worker.stop();
    latencies.sort((a, b) => a - b);
    return { eventsPerSecond: EVENTS / seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
  }

  try {
    await round('plain'); // warm-up: bundle load, first connections
    const results: Record<Kind, RoundResult[]> = { plain: [], proxied: [], encrypted: [], secured: [] };
    for (let index = 0; index < ROUNDS; index += 1) {
      const order = index % 2 === 0 ? KINDS : [...KINDS].reverse();
      for (const kind of order) {
        const result = await round(kind);
        results[kind].push(result);
        print(
          `${kind.padEnd(9)} round ${index + 1}: ${result.eventsPerSecond.toFixed(1)} events/s, ` +
            `p50 ${result.p50Ms.toFixed(0)} ms, p99 ${result.p99Ms.toFixed(0)} ms (load ${loads()})`
        );
      }
    }
    const summary = (kind: Kind) => ({
      eventsPerSecond: median(results[kind].map((r) => r.eventsPerSecond)),
      p50Ms: median(results[kind].map((r) => r.p50Ms)),
      p99Ms: median(results[kind].map((r) => r.p99Ms)),
    });
    const plain = summary('plain');
    for (const kind of KINDS) {
      const result = summary(kind);
      print(
        `median ${kind.padEnd(9)}: ${result.eventsPerSecond.toFixed(1)} events/s, p50 ${result.p50Ms.toFixed(0)} ms, ` +
          `p99 ${result.p99Ms.toFixed(0)} ms; ratio of medians /plain: throughput ${(result.eventsPerSecond / plain.eventsPerSecond).toFixed(2)}, ` +
          `p50 ${(result.p50Ms / plain.p50Ms).toFixed(2)}, p99 ${(result.p99Ms / plain.p99Ms).toFixed(2)}`
      );
    }
    // Each round's ratio to the plain run of the same round: the drift between rounds cancels, what is left is noise.
    const pairs: Array<[Kind, Kind]> = KINDS.filter((k) => k !== 'plain').map((k): [Kind, Kind] => [k, 'plain']);
    // The proxy's own process and hop apart, secured against proxied is the cost of TLS and the codec alone.
    if (KINDS.includes('secured') && KINDS.includes('proxied')) pairs.push(['secured', 'proxied']);
    for (const [kind, base] of pairs) {
      const paired = (value: (r: RoundResult) => number): number[] =>
        results[kind].map((r, i) => value(r) / value(results[base][i] ?? r));
      // Rounds 1–2, 3–4, … run the kinds forward then reversed: the geometric mean of a block's two ratios cancels
      // a drift that is linear over the block, which a single round's ratio carries whole.
      const blocks = (value: (r: RoundResult) => number): number[] => {
        const ratios = paired(value);
        return Array.from({ length: Math.floor(ratios.length / 2) }, (_, b) =>
          Math.sqrt((ratios[2 * b] ?? Number.NaN) * (ratios[2 * b + 1] ?? Number.NaN))
        );
      };
      print(`${kind}/${base} per round, median (min–max: each round):`);
      print(`  throughput ${spread(paired((r) => r.eventsPerSecond))}`);
      print(`  p50        ${spread(paired((r) => r.p50Ms))}`);
      print(`  p99        ${spread(paired((r) => r.p99Ms))}`);
      if (ROUNDS >= 2) {
        print(`${kind}/${base} per forward+reversed block of two rounds (geometric mean), median (min–max: each):`);
        print(`  throughput ${spread(blocks((r) => r.eventsPerSecond))}`);
        print(`  p50        ${spread(blocks((r) => r.p50Ms))}`);
        print(`  p99        ${spread(blocks((r) => r.p99Ms))}`);
      }
    }
    print(
      `(target: throughput ≥ 0.90, latency ≤ 1.10 of plain; ${EVENTS} events × ${ROUNDS} rounds per kind; load ${loads()})`
    );
  } finally {
    for (const proxyProcess of proxyProcesses) proxyProcess.kill('SIGTERM');
    await ingest.close();
    await temporal.close();
    certificates.remove();
  }
}

await main();
