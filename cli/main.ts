import { Command } from 'commander';
import { ConfigError } from '../common/config-schema.js';
import { withEncryptedPayloadHint } from '../common/encrypted-payload-hint.js';
import { registerCodecServerCommand } from './commands/codec-server.js';
import { registerCollectorCommands } from './commands/collector.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerDemoSendCommand } from './commands/demo-send.js';
import { registerDevCommands } from './commands/dev.js';
import { registerDlqCommands } from './commands/dlq.js';
import { registerIngestCommands } from './commands/ingest-api.js';
import { registerMembersCommands } from './commands/members.js';
import { registerReportCommand } from './commands/report.js';
import { registerPrivacyCommands } from './commands/privacy.js';
import { registerSendAdminCommands } from './commands/send-admin.js';
import { registerSendCommands } from './commands/send.js';
import { registerSendEnvironmentCommands } from './commands/send-environments.js';
import { registerSendTemplateCommands } from './commands/send-templates.js';
import { registerStatusCommand } from './commands/status.js';
import { registerWorkerCommand } from './commands/worker.js';
import { ShutdownRequestedError } from './run-until-os-signal.js';

/** `message: cause: cause…`, so a wrapped failure still says why (e.g. which database refused). */
function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = err; current != null && parts.length < 5;) {
    if (current instanceof Error) {
      parts.push(current.message || current.name);
      current = current.cause;
    } else {
      parts.push(typeof current === 'string' ? current : JSON.stringify(current));
      break;
    }
  }
  return (
    withEncryptedPayloadHint(parts.join(': ')) ||
    'a component failed without giving a reason (run with LOG_LEVEL=debug)'
  );
}

// Entry of the `wa-lake` CLI (architecture.md §10): wiring only; every command lives in cli/commands/.
const program = new Command('wa-lake')
  .description('WhatsApp group events → SQLite outbox → Temporal → ingest API → PostgreSQL lake')
  .showHelpAfterError();

registerDevCommands(program);
registerDemoCommand(program);
registerCollectorCommands(program);
registerWorkerCommand(program);
registerIngestCommands(program);
registerStatusCommand(program);
registerDlqCommands(program);
registerReportCommand(program);
registerMembersCommands(program);
registerCodecServerCommand(program);
registerPrivacyCommands(program);
registerSendAdminCommands(program);
registerSendCommands(program);
registerSendTemplateCommands(program);
registerSendEnvironmentCommands(program);
registerDemoSendCommand(program);

// `wa-lake … | head` closes stdout early: the reader has what it wanted, so stop quietly as Unix tools do on
// SIGPIPE, instead of a stack trace for an EPIPE (a fresh-user finding; output is printed after the work is done).
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  throw err;
});

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\nSee .env.example and docs/configuration.md.\n`);
    process.exit(1);
  }
  if (err instanceof ShutdownRequestedError) {
    process.stderr.write(`wa-lake: ${err.message} during start-up; everything started was stopped\n`);
    process.exit(130);
  }
  // Operators get the sentence; the stack only when they asked for detail (LOG_LEVEL=debug|trace).
  const isVerbose = ['debug', 'trace'].includes(process.env['LOG_LEVEL'] ?? '');
  const message = isVerbose && err instanceof Error ? (err.stack ?? err.message) : describeError(err);
  process.stderr.write(`wa-lake: ${message}\n`);
  process.exit(1);
}
