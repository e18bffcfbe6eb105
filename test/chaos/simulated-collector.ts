/**
 * The collector of the chaos send phase, as its own process (`node --import tsx`): `wa-lake collector` with
 * its send side, connected to the simulated WhatsApp of `demo-send` instead of Baileys (only WhatsApp is
 * faked). The simulated server's wire log outlives the process in `CHAOS_WIRE_PATH` (one JSON line per
 * message accepted, written before `sendMessage` answers), so a SIGKILL loses nothing that reached the wire.
 * On start it hands over the read receipts of every message an earlier process put on the wire, as WhatsApp
 * delivers the receipts a client missed while it was gone. Stops on SIGTERM / SIGINT.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import pino from 'pino';
import { SimulatedWhatsApp, type WireSend } from '../../cli/demo-send/simulated-whatsapp.js';
import { runUntilTerminated } from '../../cli/run-until-os-signal.js';
import { loadCollectorConfig, runCollector } from '../../collector/index.js';
import { createLazyTemporalClient } from '../../common/lazy-temporal-client.js';
import { createDataConverter } from '../../common/temporal-data-converter.js';
import { createWindowedAlertSink } from '../../common/windowed-alert-sink.js';
import { installRuntimeLoggerOnce } from '../../worker/index.js';
import { CHAOS_SEND_SELF, chaosSendBehaviours } from './chaos-send-plan.js';

const wirePath = process.env['CHAOS_WIRE_PATH'];
const recipients = Number(process.env['CHAOS_SEND_RECIPIENTS']);
if (!wirePath || !Number.isInteger(recipients))
  throw new Error('CHAOS_WIRE_PATH and CHAOS_SEND_RECIPIENTS are required');

const config = loadCollectorConfig(process.env);
const logger = pino({ level: config.LOG_LEVEL });
installRuntimeLoggerOnce(logger);
const whatsapp = new SimulatedWhatsApp({
  self: CHAOS_SEND_SELF,
  groups: {},
  behaviours: chaosSendBehaviours(recipients),
  slowSendMs: 0,
  ackStepMs: 200,
  onWireSend: (send) => appendFileSync(wirePath, `${JSON.stringify(send)}\n`),
});
const earlier: WireSend[] = existsSync(wirePath)
  ? readFileSync(wirePath, 'utf8')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as WireSend)
  : [];
whatsapp.wire.push(...earlier);
// Queued until the first open (the simulated server's pending ACKs).
for (const messageId of new Set(earlier.map((send) => send.messageId))) whatsapp.ack(messageId, 'read');

const temporal = createLazyTemporalClient(config.temporal, createDataConverter(config.PAYLOAD_ENCRYPTION_KEYS));
const collector = await runCollector({
  config,
  logger,
  alertSink: createWindowedAlertSink({
    windowMs: config.ALERT_WINDOW_MS,
    webhookUrl: config.ALERT_WEBHOOK_URL,
    logger,
  }),
  temporalClient: temporal.client,
  source: { kind: 'live' },
  socketFactory: whatsapp.socketFactory,
  send: { accountId: config.SEND_ACCOUNT_ID, sendTimeoutMs: 5_000 },
});
logger.info({ earlierWireSends: earlier.length }, 'chaos collector on the simulated WhatsApp started');
await runUntilTerminated(async () => {
  whatsapp.close();
  await collector.stop();
  await temporal.close();
}, logger);
process.exit(0);
