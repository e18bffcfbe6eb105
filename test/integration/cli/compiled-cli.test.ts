import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCompiled, findStaleSource } from '../../../bin/ensure-compiled.js';
import { runCli } from '../../helpers/run-cli.js';

/** Moves a file's time `seconds` ahead, as an edit or a `git pull` after the build would. */
function touchLater(path: string, seconds: number): void {
  const at = new Date(Date.now() + seconds * 1000);
  utimesSync(path, at, at);
}

// ADR 0017: `bin/wa-lake.js` preferred dist/ whenever it existed, so after a build and a `git pull` it
// ran stale code without a word. Here a small checkout of its own shows the rule: build, rebuild, refuse.
describe('ensureCompiled (the CLI never runs code older than its sources)', () => {
  let root: string;
  const source = (): string => join(root, 'cli', 'main.ts');
  const compiled = (): string => readFileSync(join(root, 'dist', 'cli', 'main.js'), 'utf8');
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'wa-lake-compiled-'));
    mkdirSync(join(root, 'cli'));
    mkdirSync(join(root, 'scripts'));
    writeFileSync(join(root, 'tsconfig.json'), '{}\n');
    const compilerOptions = { outDir: 'dist', rootDir: '.', module: 'NodeNext', strict: true, types: [] };
    writeFileSync(join(root, 'tsconfig.build.json'), JSON.stringify({ compilerOptions, include: ['cli'] }));
    // Stand in for the build's steps after tsc: the workflow bundles (none here), then the command index, the last
    // step, whose file is the stamp.
    writeFileSync(join(root, 'scripts', 'write-workflow-bundle.mjs'), '\n');
    writeFileSync(
      join(root, 'scripts', 'write-command-index.mjs'),
      "import { writeFileSync } from 'node:fs'; writeFileSync('dist/cli/command-index.json', '{}');\n"
    );
    writeFileSync(source(), 'export const answer: number = 1;\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('builds a checkout that has no build, then finds it current', () => {
    expect(findStaleSource(root)).toBe('no build');
    expect(ensureCompiled(undefined, root)).toBe('built');
    expect(compiled()).toContain('answer = 1');
    expect(findStaleSource(root)).toBeNull();
    expect(ensureCompiled(undefined, root)).toBe('current');
  });

  it('compiles again when a source is newer than the build, and says which', () => {
    writeFileSync(source(), 'export const answer: number = 2;\n');
    touchLater(source(), 5);
    const reasons: string[] = [];
    expect(ensureCompiled((reason) => reasons.push(reason), root)).toBe('built');
    expect(reasons).toEqual(['cli/main.ts']);
    expect(compiled()).toContain('answer = 2');
  });

  it('refuses sources that do not compile, with tsc’s diagnostics, and leaves no stamp to run stale code by', () => {
    writeFileSync(source(), "export const answer: number = 'three';\n");
    touchLater(source(), 10);
    expect(() => ensureCompiled(undefined, root)).toThrow(/the sources do not compile[\s\S]*TS2322/);
    expect(findStaleSource(root)).toBe('no build');
  });
});

describe('wa-lake from its compiled tree', () => {
  it('prints the top-level help with every command group (from the build’s command index)', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    for (const command of ['dev [options]', 'demo [options] [capture]', 'members', 'forget [options]', 'demo-send']) {
      expect(run.stdout).toContain(`  ${command}`);
    }
  });

  it('loads one command group for its command and still suggests a name for a typo', async () => {
    const members = await runCli(['members', '--help']);
    expect(members.code).toBe(0);
    expect(members.stdout).toContain('link <participant> <memberId>');
    const typo = await runCli(['memebrs']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("unknown command 'memebrs'");
    expect(typo.stderr).toContain('(Did you mean members?)');
  });

  it('prints a command’s own help from the index, the same text commander gives with the module loaded', async () => {
    const status = await runCli(['status', '--help']);
    expect(status.code).toBe(0);
    const index = JSON.parse(readFileSync(join('dist', 'cli', 'command-index.json'), 'utf8')) as {
      commandHelp: Record<string, string>;
    };
    expect(status.stdout).toBe(index.commandHelp['status']);
    expect(status.stdout).toContain('Usage: wa-lake status [options]');
    expect(status.stdout).toContain('--healthcheck');
    const list = await runCli(['help', 'dlq', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(index.commandHelp['dlq list']);
    expect(list.stdout).toContain('Usage: wa-lake dlq list [options]');
    // An option before --help is no command word: commander answers with the module loaded, as before.
    const withOption = await runCli(['status', '--json', '--help']);
    expect(withOption.stdout).toBe(index.commandHelp['status']);
  });
});
