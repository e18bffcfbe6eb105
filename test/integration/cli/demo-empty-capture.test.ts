import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

// Each test has a capture and a data folder of its own and runs the CLI in a child process: side by side.
describe.concurrent('wa-lake demo and dev --replay with a capture that holds no events', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wa-lake-demo-empty-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['empty', ''],
    ['blank-only', '\n\n'],
    ['malformed-only', 'not json\n{"also":"not a record"}\n'],
  ])('says so for a %s capture before starting the stack (no MISMATCH, exit 1)', async (name, content) => {
    const capture = join(dir, `${name}.jsonl`);
    writeFileSync(capture, content);
    const dataDir = join(dir, `data-${name}`);
    const run = await runCli(['demo', capture, '--data-dir', dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the capture ${capture} holds no events`);
    expect(run.stderr).toContain('the stack was not started');
    expect(`${run.stdout}${run.stderr}`).not.toContain('MISMATCH');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('names a capture that does not exist, in words, before starting the stack', async () => {
    const capture = join(dir, 'no-such-capture.jsonl');
    const dataDir = join(dir, 'data-missing');
    const run = await runCli(['demo', capture, '--data-dir', dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot read the capture ${capture}: there is no such file or folder`);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('says a folder without a trail is one, not that it holds no events', async () => {
    const folder = join(dir, 'not-a-trail');
    mkdirSync(folder);
    writeFileSync(join(folder, 'notes.txt'), 'hello\n');
    const dataDir = join(dir, 'data-folder');
    const run = await runCli(['demo', folder, '--data-dir', dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${folder} is a folder without a first-collector trail`);
    expect(run.stderr).not.toContain('holds no events');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('dev --replay refuses an empty capture before starting the stack', async () => {
    const capture = join(dir, 'dev-empty.jsonl');
    writeFileSync(capture, '\n');
    const dataDir = join(dir, 'data-dev-empty');
    const run = await runCli(['dev', '--replay', capture, '--data-dir', dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`wa-lake dev: the capture ${capture} holds no events`);
    expect(run.stderr).toContain('nothing was started');
    expect(existsSync(dataDir)).toBe(false);
  });
});
