import type { ChaosSendStack } from './chaos-send-stack.js';

/** How long the collector stays down after its first kill (longer than the deadline batch's 5 s). */
const COLLECTOR_OUTAGE_MS = 10_000;
const POLL_MS = 200;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What the fault schedule watches and may do besides killing processes. */
export interface SendFaultContext {
  stack: ChaosSendStack;
  /** Messages the phase requests (the deadline batch comes on top). */
  messages: number;
  /** Requests answered so far. */
  answered: () => number;
  /** Sends on the simulated WhatsApp's wire so far. */
  wireSends: () => number;
  /** Requests the batch with a short deadline; resolves with its size once every request was answered. */
  requestDeadlineBatch: () => Promise<number>;
  /** Wall clock after which a trigger stops waiting and fires anyway. */
  giveUpAtMs: number;
  onProgress?: (line: string) => void;
}

/** The faults of the send phase, in the order they fire. */
export const SEND_FAULTS = [
  'collector SIGKILL, a deadline batch requested while it is down, restarted',
  'ingest API SIGKILL, restarted after 2 s',
  'collector SIGKILL while messages are going out, restarted after 3 s',
  'worker SIGKILL while messages are going out, restarted after 3 s',
  'Temporal dev server restart while messages are going out (same database file)',
] as const;

/**
 * Runs the send phase's faults. Two fire on the accept path, when a share of the requests has been
 * answered; three on the dispatch path, when a share of the messages is on the wire: on a loaded machine
 * dispatching trails accepting by minutes, and faults timed by requests alone all landed before the first
 * message went out, so no kill ever met a send in flight.
 *
 * @returns the names of the faults that fired, in order.
 */
export async function runSendFaults(context: SendFaultContext): Promise<string[]> {
  const { stack } = context;
  const fired: string[] = [];
  const when = async (
    progress: () => number,
    fraction: number,
    name: (typeof SEND_FAULTS)[number],
    fault: () => Promise<void>
  ): Promise<void> => {
    while (progress() < Math.ceil(context.messages * fraction) && Date.now() < context.giveUpAtMs) await sleep(POLL_MS);
    context.onProgress?.(
      `send fault: ${name} (answered ${context.answered()}/${context.messages}, on the wire ${context.wireSends()})`
    );
    await fault();
    fired.push(name);
  };
  const [collectorDown, ingestKill, collectorMidSend, workerKill, temporalRestart] = SEND_FAULTS;
  await when(context.answered, 0.1, collectorDown, async () => {
    await stack.collector?.kill();
    const requested = await context.requestDeadlineBatch();
    context.onProgress?.(`deadline batch: ${requested} requested`);
    await sleep(COLLECTOR_OUTAGE_MS);
    stack.startCollector();
  });
  await when(context.answered, 0.5, ingestKill, async () => {
    await stack.ingest?.kill();
    await sleep(2_000);
    stack.startIngest();
  });
  await when(context.wireSends, 0.25, collectorMidSend, async () => {
    await stack.collector?.kill();
    await sleep(3_000);
    stack.startCollector();
  });
  await when(context.wireSends, 0.5, workerKill, async () => {
    await stack.worker?.kill();
    await sleep(3_000);
    stack.startWorker();
  });
  await when(context.wireSends, 0.75, temporalRestart, () => stack.restartTemporal());
  return fired;
}
