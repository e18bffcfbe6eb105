import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { toTerminalLine } from './terminal-text.js';

/** A module of `cli/commands/` that registers one command group (e.g. `dlq list` and `dlq replay`). */
interface CommandModule {
  id: string;
  load(): Promise<(program: Command) => void>;
}

/** Every command group, in the order `wa-lake --help` lists them. Each is imported only when it runs. */
const COMMAND_MODULES: readonly CommandModule[] = [
  { id: 'dev', load: async () => (await import('./commands/dev.js')).registerDevCommands },
  { id: 'demo', load: async () => (await import('./commands/demo.js')).registerDemoCommand },
  { id: 'collector', load: async () => (await import('./commands/collector.js')).registerCollectorCommands },
  { id: 'worker', load: async () => (await import('./commands/worker.js')).registerWorkerCommand },
  { id: 'ingest-api', load: async () => (await import('./commands/ingest-api.js')).registerIngestCommands },
  { id: 'status', load: async () => (await import('./commands/status.js')).registerStatusCommand },
  { id: 'dlq', load: async () => (await import('./commands/dlq.js')).registerDlqCommands },
  { id: 'report', load: async () => (await import('./commands/report.js')).registerReportCommand },
  { id: 'dashboard', load: async () => (await import('./commands/dashboard.js')).registerDashboardCommand },
  { id: 'coverage', load: async () => (await import('./commands/coverage.js')).registerCoverageCommand },
  { id: 'backfill', load: async () => (await import('./commands/backfill.js')).registerBackfillCommand },
  {
    id: 'import-export',
    load: async () => (await import('./commands/import-export.js')).registerImportExportCommand,
  },
  { id: 'members', load: async () => (await import('./commands/members.js')).registerMembersCommands },
  { id: 'codec-server', load: async () => (await import('./commands/codec-server.js')).registerCodecServerCommand },
  { id: 'privacy', load: async () => (await import('./commands/privacy.js')).registerPrivacyCommands },
  { id: 'send-admin', load: async () => (await import('./commands/send-admin.js')).registerSendAdminCommands },
  { id: 'send', load: async () => (await import('./commands/send.js')).registerSendCommands },
  {
    id: 'send-templates',
    load: async () => (await import('./commands/send-templates.js')).registerSendTemplateCommands,
  },
  {
    id: 'send-environments',
    load: async () => (await import('./commands/send-environments.js')).registerSendEnvironmentCommands,
  },
  { id: 'demo-send', load: async () => (await import('./commands/demo-send.js')).registerDemoSendCommand },
];

/**
 * What the build records about the commands (`dist/cli/command-index.json`, ADR 0017): the top-level
 * help text and, for each command name and alias, the id of the module that registers it. With it, `wa-lake X`
 * imports only X's module, and `wa-lake --help` imports none.
 */
export interface CommandIndex {
  helpText: string;
  moduleOf: Record<string, string>;
  /** Each command's own help, by its words (`status`, `dlq list`; aliases too), so `X --help` imports nothing. */
  commandHelp?: Record<string, string>;
}

/**
 * The `wa-lake` program without commands. Commander's own errors (`error: option '--from <date>' argument '…' is
 * invalid`) echo what was typed, so they go through {@link toTerminalLine} like every line the CLI prints
 * (architecture.md §10). `.command()` copies this output configuration to each subcommand it creates, at any depth.
 */
export function createProgram(): Command {
  return new Command('wa-lake')
    .description('WhatsApp group events → SQLite outbox → Temporal → ingest API → PostgreSQL lake')
    .configureOutput({
      writeErr: (text) => process.stderr.write(toTerminalLine(text)),
      outputError: (text, write) => write(toTerminalLine(text)),
    })
    .showHelpAfterError();
}

/** Registers the command groups whose ids are given (all when `ids` is undefined) on `program`. */
export async function registerCommandModules(program: Command, ids?: ReadonlySet<string>): Promise<void> {
  for (const module of COMMAND_MODULES) {
    if (ids === undefined || ids.has(module.id)) (await module.load())(program);
  }
}

/** Loads every command module once and records the index (run by the build, `scripts/write-command-index.mjs`). */
export async function buildCommandIndex(): Promise<CommandIndex> {
  const program = createProgram();
  const moduleOf: Record<string, string> = {};
  for (const module of COMMAND_MODULES) {
    const known = new Set(program.commands);
    (await module.load())(program);
    for (const command of program.commands.filter((candidate) => !known.has(candidate))) {
      for (const name of [command.name(), ...command.aliases()]) moduleOf[name] = module.id;
    }
  }
  return { helpText: program.helpInformation(), moduleOf, commandHelp: commandHelpOf(program.commands, []) };
}

function commandHelpOf(commands: readonly Command[], parents: readonly string[]): Record<string, string> {
  const help: Record<string, string> = {};
  for (const command of commands) {
    const text = command.helpInformation();
    for (const name of [command.name(), ...command.aliases()]) {
      const words = [...parents, name];
      help[words.join(' ')] = text;
      Object.assign(help, commandHelpOf(command.commands, words));
    }
  }
  return help;
}

/**
 * The program for arguments that name no recorded command (a typo, an unknown option): each recorded name and alias
 * as a command without an action, and the recorded help. Commander then says `unknown command` or
 * `unknown option`, suggests a name and prints the help as with every module registered, without importing one.
 */
export function createIndexedProgram(index: CommandIndex): Command {
  const program = createProgram();
  for (const name of Object.keys(index.moduleOf)) program.command(name);
  program.helpInformation = () => index.helpText;
  return program;
}

/** The index written next to the compiled CLI, or null (running from sources, or an older build). */
export function readCommandIndex(path: URL): CommandIndex | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as CommandIndex;
  } catch {
    return null;
  }
}

/** What `argv` (without node and script) asks of the index: one module, the top-level help, or everything. */
export type CommandPlan =
  | { kind: 'module'; id: string }
  | { kind: 'help'; isError: boolean }
  | { kind: 'command-help'; text: string }
  | { kind: 'unknown' }
  | { kind: 'all' };

const HELP_FLAGS = new Set(['--help', '-h']);

/** The recorded help of `words… --help` or `help words…` (command words only, no options), else undefined. */
function recordedCommandHelp(args: readonly string[], index: CommandIndex): string | undefined {
  const last = args.at(-1);
  const words =
    last !== undefined && HELP_FLAGS.has(last) ? args.slice(0, -1) : args[0] === 'help' ? args.slice(1) : null;
  if (words === null || words.length === 0) return undefined;
  const key = words.join(' ');
  return index.commandHelp !== undefined && Object.hasOwn(index.commandHelp, key) ? index.commandHelp[key] : undefined;
}

/**
 * Picks what to load for `args`: the one module of the named command (also for `help <command>`); the recorded
 * help for `--help`, `-h`, `help` or no arguments (commander prints it to stderr with exit 1 for no arguments);
 * `unknown` for anything else ({@link createIndexedProgram} answers it); everything without an index.
 */
export function planCommand(args: readonly string[], index: CommandIndex | null): CommandPlan {
  if (index === null) return { kind: 'all' };
  const [first, second] = args;
  if (first === undefined) return { kind: 'help', isError: true };
  if (first === '--help' || first === '-h' || (first === 'help' && second === undefined)) {
    return { kind: 'help', isError: false };
  }
  const text = recordedCommandHelp(args, index);
  if (text !== undefined) return { kind: 'command-help', text };
  const name = first === 'help' ? second : first;
  const id = name !== undefined && Object.hasOwn(index.moduleOf, name) ? index.moduleOf[name] : undefined;
  return id === undefined ? { kind: 'unknown' } : { kind: 'module', id };
}
