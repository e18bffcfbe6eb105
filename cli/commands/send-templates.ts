import type { Command } from 'commander';
import { z } from 'zod';
import { envPostgresUrl, parseConfig } from '../../common/config-schema.js';
import {
  createPool,
  describeTemplateBodyProblem,
  placeholdersOf,
  SendTemplatesRepository,
  type TemplateVersion,
} from '../../lake/index.js';
import { integerInRange } from './option-parsers.js';
import { printLine } from './shared.js';

const DEFAULT_ACCOUNT = 'default';
const version = integerInRange(1, 1_000_000);

async function withTemplates(run: (templates: SendTemplatesRepository) => Promise<void>): Promise<void> {
  const { DATABASE_URL } = parseConfig(z.object({ DATABASE_URL: envPostgresUrl }), process.env);
  const pool = createPool(DATABASE_URL, { max: 1 });
  try {
    await run(new SendTemplatesRepository(pool));
  } finally {
    await pool.end();
  }
}

function describeVersion(v: TemplateVersion): string {
  const variables = v.variables.length === 0 ? '-' : v.variables.join(',');
  return `${v.templateId}  ${v.name}  v${v.version}  ${v.status}  variables ${variables}  ${JSON.stringify(v.body)}`;
}

/**
 * The variables a new version declares: `--variables` as given, which must name exactly the body's
 * `{{placeholders}}`; without it, the placeholders themselves.
 *
 * @throws Error for an empty body or stray braces, naming the undeclared placeholders or the unused declarations.
 */
function declaredVariables(body: string, given: string | undefined): string[] {
  const problem = describeTemplateBodyProblem(body);
  if (problem !== null) throw new Error(problem);
  const used = placeholdersOf(body);
  if (given === undefined) return used;
  const declared = [
    ...new Set(
      given
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '')
    ),
  ];
  const undeclared = used.filter((name) => !declared.includes(name));
  const unused = declared.filter((name) => !used.includes(name));
  if (undeclared.length > 0) throw new Error(`the body uses undeclared variable(s): ${undeclared.join(', ')}`);
  if (unused.length > 0) throw new Error(`declared variable(s) not in the body: ${unused.join(', ')}`);
  return declared;
}

/**
 * Registers `wa-lake templates add|list|approve|archive` (ADR 0015): versions of named
 * message templates per account, each with its declared `{{variables}}`; a live key sends only approved ones.
 */
export function registerSendTemplateCommands(program: Command): void {
  const templates = program.command('templates').description('message templates of the send API');
  templates
    .command('add')
    .description('add a draft version of a template (creating the template on first use)')
    .argument('<name>', 'friendly name, unique per account')
    .requiredOption('--body <text>', 'message text with {{variable}} placeholders')
    .option('--variables <names>', 'comma-separated variables the version declares (default: its placeholders)')
    .option('--account <id>', 'sending account', DEFAULT_ACCOUNT)
    .action(async (name: string, options: { body: string; variables?: string; account: string }) => {
      const variables = declaredVariables(options.body, options.variables);
      await withTemplates(async (repo) => {
        const added = await repo.addVersion({ accountId: options.account, name, body: options.body, variables });
        printLine(`template ${name} (${added.templateId}) version ${added.version} added as draft`);
        printLine(`variables: ${variables.length === 0 ? '(none)' : variables.join(', ')}`);
        printLine(`approve it for live keys with: wa-lake templates approve ${name} --version ${added.version}`);
      });
    });
  templates
    .command('list')
    .description('list every version of the account’s templates')
    .option('--account <id>', 'sending account', DEFAULT_ACCOUNT)
    .action(async (options: { account: string }) => {
      await withTemplates(async (repo) => {
        const all = await repo.list(options.account);
        if (all.length === 0) printLine(`no templates for account ${options.account}`);
        for (const v of all) printLine(describeVersion(v));
      });
    });
  for (const verb of ['approve', 'archive'] as const) {
    templates
      .command(verb)
      .description(
        verb === 'approve'
          ? 'approve a draft version (default: the newest draft)'
          : 'archive a version (default: every version, retiring the template)'
      )
      .argument('<template>', 'name or id')
      .option('--version <n>', 'version number', version)
      .option('--account <id>', 'sending account', DEFAULT_ACCOUNT)
      .action(async (ref: string, options: { version?: number; account: string }) => {
        await withTemplates(async (repo) => {
          const changed = await repo[verb](options.account, ref, options.version ?? null);
          if (changed.length === 0) {
            throw new Error(
              `nothing to ${verb}: no matching ${verb === 'approve' ? 'draft' : 'unarchived'} version of ${ref}`
            );
          }
          for (const v of changed) printLine(`${verb === 'approve' ? 'approved' : 'archived'} ${describeVersion(v)}`);
        });
      });
  }
}
