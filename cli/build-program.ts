import { Command } from 'commander';
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

/**
 * The `wa-lake` program with every command registered (architecture.md §10), not yet parsed: `main.ts` runs it,
 * and test/unit/docs/maps.test.ts walks it to check that README names every command.
 */
export function buildProgram(): Command {
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
  return program;
}
