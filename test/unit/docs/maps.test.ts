import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram, registerCommandModules } from '../../../cli/command-index.js';
import { projectPath, readProjectFile } from '../../helpers/compose-file.js';

// The maps of the house: they fail here when they go stale, not when a newcomer trips.
const ADRS = readdirSync(projectPath('docs/adr')).filter((name) => name.endsWith('.md'));
const architecture = readProjectFile('docs/architecture.md');
const trackedFiles = execFileSync('git', ['ls-files'], { cwd: projectPath('.'), encoding: 'utf8' })
  .split('\n')
  .filter((file) => file.length > 0);
const READMES = trackedFiles.filter((file) => /(^|\/)README\.md$/.test(file) && !file.startsWith('node_modules/'));

/** Every command of the program as its words: `['dlq', 'list']`. */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return [path, ...commandPaths(sub, path)];
  });
}

/** Files a README may name that exist only at run time or after a build. */
const RUNTIME_FILES = new Set(['collector-status.json']);

/**
 * The backticked names in a README that look like a file of this repository (`pool.ts`, `events/x.ts`), except
 * build output (`dist/…`), run-time files, and a name the README says is absent ("No `errors.ts`").
 */
function namedFiles(markdown: string): string[] {
  return [...markdown.matchAll(/(\b[Nn]o )?`([\w@./-]+\.(?:ts|js|mjs|json|yml|yaml|md|sh|sql))`/g)]
    .filter((match) => match[1] === undefined)
    .map((match) => match[2] ?? '')
    .filter((name) => !name.startsWith('dist/') && !RUNTIME_FILES.has(name));
}

/** Whether a README's name resolves: beside the README, from the repository root, or anywhere below its folder. */
function resolves(readme: string, name: string): boolean {
  const folder = dirname(readme);
  if (existsSync(projectPath(join(folder, name))) || existsSync(projectPath(name))) return true;
  const below = folder === '.' ? '' : `${folder}/`;
  return trackedFiles.some((file) => file.startsWith(below) && (file.endsWith(`/${name}`) || file === name));
}

describe('the maps', () => {
  it.each(ADRS)('docs/README.md links ADR %s', (adr) => {
    expect(readProjectFile('docs/README.md')).toContain(`](adr/${adr})`);
  });

  it.each(ADRS)('the decisions of docs/architecture.md link ADR %s', (adr) => {
    expect(architecture).toContain(`](adr/${adr})`);
  });

  it('docs/architecture.md names every workflow the worker registers', () => {
    const workflows = [...readProjectFile('workflows/index.ts').matchAll(/^export \{ (\w+) \}/gm)].map((m) => m[1]);
    expect(workflows.length).toBeGreaterThan(3);
    expect(workflows.filter((name) => !architecture.includes(`\`${name ?? ''}\``))).toEqual([]);
  });

  it("README's command table names every wa-lake command and subcommand", async () => {
    const program = createProgram();
    await registerCommandModules(program);
    const table = readProjectFile('README.md')
      .split('\n')
      .filter((line) => line.startsWith('| `wa-lake '));
    const missing = commandPaths(program).filter(([top, ...rest]) => {
      const rows = table.filter(
        (row) => row.includes(`\`wa-lake ${top ?? ''}`) || row.includes(`wa-lake ${top ?? ''} `)
      );
      const last = rest.at(-1);
      return rows.length === 0 || (last !== undefined && !rows.some((row) => new RegExp(`\\b${last}\\b`).test(row)));
    });
    expect(missing.map((path) => path.join(' '))).toEqual([]);
  }, 120_000); // imports every command module, Baileys and Temporal included: slow on a busy machine, never wrong

  it('every README names only files that exist', () => {
    const missing = READMES.flatMap((readme) =>
      namedFiles(readFileSync(projectPath(readme), 'utf8'))
        .filter((name) => !resolves(readme, name))
        .map((name) => `${readme}: ${name}`)
    );
    expect(missing).toEqual([]);
  });

  it('every README links only files that exist', () => {
    const missing = READMES.flatMap((readme) =>
      [...readFileSync(projectPath(readme), 'utf8').matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((match) => match[1] ?? '')
        .filter((target) => !/^[a-z]+:/.test(target))
        .filter((target) => !existsSync(join(dirname(projectPath(readme)), target)))
        .map((target) => `${readme} → ${target}`)
    );
    expect(missing).toEqual([]);
  });
});
