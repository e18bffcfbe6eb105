import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const RUNBOOK_PATH = fileURLToPath(new URL('../../docs/runbook.md', import.meta.url));

/**
 * The command inside the fenced block right after `<!-- runbook:<marker> -->` in docs/runbook.md,
 * exactly as an operator would copy it.
 * @throws Error when the marker or its fenced block is missing.
 */
export function readRunbookCommand(marker: string): string {
  const text = readFileSync(RUNBOOK_PATH, 'utf8');
  const match = new RegExp(`<!-- runbook:${marker} -->\\s*\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\``).exec(text);
  const command = match?.[1]?.trim();
  if (!command) throw new Error(`docs/runbook.md has no fenced command after <!-- runbook:${marker} -->`);
  return command;
}

/** Splits a one-line shell command into argv, honouring single and double quotes (no expansions). */
export function splitShellWords(command: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g))
    words.push(match[1] ?? match[2] ?? match[3] ?? '');
  return words;
}

/** Runs `binaryPath` with `args` and `env`, resolving stdout; rejects with stderr on a non-zero exit. */
export function runBinary(binaryPath: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binaryPath, args, { env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${binaryPath} ${args.join(' ')} failed: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}
