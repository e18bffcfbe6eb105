import { PRIVATE_UMASK } from '../common/private-files.js';
import {
  createIndexedProgram,
  createProgram,
  planCommand,
  readCommandIndex,
  registerCommandModules,
} from './command-index.js';

// Every file wa-lake or a program it starts writes (keys, sessions, outbox, captures, databases, reports) is
// owner-only whatever the shell's umask (ADR 0014 decision 6).
process.umask(PRIVATE_UMASK);

// Entry of the `wa-lake` CLI (architecture.md §10): wiring only; every command lives in cli/commands/. Only the
// module of the command asked for is imported (ADR 0017): the others pull in Baileys, Fastify, Temporal….
const index = readCommandIndex(new URL('./command-index.json', import.meta.url));
const plan = planCommand(process.argv.slice(2), index);
// A typo or an unknown option gets commander's message, suggestion and help from the index alone.
const program = plan.kind === 'unknown' && index !== null ? createIndexedProgram(index) : createProgram();
if (plan.kind === 'help' && index !== null) {
  (plan.isError ? process.stderr : process.stdout).write(index.helpText);
  process.exit(plan.isError ? 1 : 0);
}
if (plan.kind === 'command-help') {
  process.stdout.write(plan.text);
  process.exit(0);
}
if (plan.kind !== 'unknown') {
  await registerCommandModules(program, plan.kind === 'module' ? new Set([plan.id]) : undefined);
}

// `wa-lake … | head` closes stdout early: the reader has what it wanted, so stop quietly as Unix tools do on
// SIGPIPE, instead of a stack trace for an EPIPE (output is printed after the work is done).
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  throw err;
});

try {
  await program.parseAsync(process.argv);
} catch (err) {
  const { reportFailure } = await import('./report-failure.js');
  process.exit(reportFailure(err, process.env['LOG_LEVEL'], process.env['LOG_FORMAT']));
}
