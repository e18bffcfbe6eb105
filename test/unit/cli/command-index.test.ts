import { describe, expect, it } from 'vitest';
import { createIndexedProgram, planCommand, type CommandIndex } from '../../../cli/command-index.js';

const index: CommandIndex = {
  helpText: 'Usage: wa-lake [options] [command]\n\nCommands:\n  collector  run it\n  members    list them\n',
  moduleOf: { collector: 'collector', replay: 'collector', members: 'members', m: 'members' },
};

/** Runs `args` through the indexed program the way main.ts does, capturing what commander writes and exits with. */
async function runIndexed(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const program = createIndexedProgram(index);
  let stderr = '';
  let stdout = '';
  program.exitOverride().configureOutput({
    writeErr: (text) => (stderr += text),
    writeOut: (text) => (stdout += text),
  });
  try {
    await program.parseAsync(args, { from: 'user' });
    return { code: 0, stderr, stdout };
  } catch (err) {
    return { code: (err as { exitCode: number }).exitCode, stderr, stdout };
  }
}

describe('planCommand', () => {
  it('picks the module of a recorded command and `unknown` for a name the index does not hold', () => {
    expect(planCommand(['replay', 'x.jsonl'], index)).toEqual({ kind: 'module', id: 'collector' });
    expect(planCommand(['colector'], index)).toEqual({ kind: 'unknown' });
    expect(planCommand(['--verbose'], index)).toEqual({ kind: 'unknown' });
    expect(planCommand(['help', 'colector'], index)).toEqual({ kind: 'unknown' });
  });

  it('loads everything without an index (running from sources)', () => {
    expect(planCommand(['colector'], null)).toEqual({ kind: 'all' });
  });
});

describe('createIndexedProgram', () => {
  it('answers a typo with commander’s message, a suggestion and the recorded help, exit 1', async () => {
    const run = await runIndexed(['colector']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: unknown command 'colector'");
    expect(run.stderr).toContain('(Did you mean collector?)');
    expect(run.stderr).toContain(index.helpText);
  });

  it('answers an unknown option the same way', async () => {
    const run = await runIndexed(['--verbose']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: unknown option '--verbose'");
  });
});
