/**
 * `npm run chaos -- --events N [--dir D] [--wrong-secret-ms MS]` (issue #14 item 8): runs the chaos test
 * (see chaos-run.ts), prints progress and one figure line, and exits 1 when the lake of the chaos run
 * differs from the fault-free reference in any way.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { formatChaosFigures, runChaos } from './chaos-run.js';

const program = new Command('chaos')
  .option('--events <n>', 'distinct messages in the generated capture', '3000')
  .option('--dir <dir>', 'state and logs of both runs (default: a new temp folder)')
  .option('--wrong-secret-ms <ms>', 'how long the worker runs with a wrong secret', '60000')
  .parse();
const options = program.opts<{ events: string; dir?: string; wrongSecretMs: string }>();
const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'wa-lake-chaos-'));
const events = Number(options.events);
const report = await runChaos({
  events,
  dir,
  wrongSecretMs: Number(options.wrongSecretMs),
  onProgress: (line) => process.stdout.write(`${line}\n`),
});
process.stdout.write(`state and logs: ${dir}\n${formatChaosFigures(report, events)}\n`);
// Exit explicitly: a closed gRPC channel or pg socket can keep the event loop alive for minutes after the
// report, and `npm run chaos` must end when it has said its result.
process.exit(report.ok ? 0 : 1);
