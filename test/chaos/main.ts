/**
 * `npm run chaos -- --events N [--send-messages M] [--send-only] [--settle-idle-minutes S] [--dir D]
 * [--wrong-secret-ms MS]`: runs the chaos test of the lake (see chaos-run.ts), then its send phase (see
 * chaos-send-run.ts), prints progress and one figure line per part, and exits 1 when the lake of the chaos run
 * differs from the fault-free reference in any way or the send phase found a message unsettled, unknown, on
 * the wire without a dispatched record or under two ids. `--send-only` (`npm run chaos:send`) runs the send
 * phase alone; `--send-messages` sets its message count.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { formatChaosFigures, runChaos } from './chaos-run.js';
import { formatChaosSendFigures, runChaosSend } from './chaos-send-run.js';

const program = new Command('chaos')
  .option('--events <n>', 'distinct messages in the generated capture', '3000')
  .option('--send-messages <n>', 'messages requested in the send phase (0: no send phase)', '1000')
  .option('--send-only', 'run the send phase alone')
  .option('--settle-idle-minutes <n>', 'the send phase gives up after this long without any message moving', '6')
  .option('--dir <dir>', 'state and logs of both runs (default: a new temp folder)')
  .option('--wrong-secret-ms <ms>', 'how long the worker runs with a wrong secret', '60000')
  .parse();
const options = program.opts<{
  events: string;
  sendMessages: string;
  sendOnly?: boolean;
  settleIdleMinutes: string;
  dir?: string;
  wrongSecretMs: string;
}>();
const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'wa-lake-chaos-'));
const onProgress = (line: string): void => void process.stdout.write(`${line}\n`);
const lines: string[] = [];
let ok = true;
if (options.sendOnly !== true) {
  const events = Number(options.events);
  const report = await runChaos({ events, dir, wrongSecretMs: Number(options.wrongSecretMs), onProgress });
  lines.push(formatChaosFigures(report, events));
  ok &&= report.ok;
}
const sendMessages = Number(options.sendMessages);
if (sendMessages > 0) {
  const report = await runChaosSend({
    messages: sendMessages,
    dir,
    settleIdleMs: Number(options.settleIdleMinutes) * 60_000,
    onProgress,
  });
  lines.push(formatChaosSendFigures(report));
  ok &&= report.ok;
}
process.stdout.write(`state and logs: ${dir}\n${lines.join('\n')}\n`);
// Exit explicitly: a closed gRPC channel or pg socket can keep the event loop alive for minutes after the
// report, and `npm run chaos` must end when it has said its result.
process.exit(ok ? 0 : 1);
