import { createInterface } from 'node:readline/promises';

/**
 * Asks the operator to confirm a change that is hard to undo (ADR 0014 decision 5). `--yes` confirms without a
 * question; on a terminal the question is asked and only `y`/`yes` confirms; without a terminal (a script, a
 * pipe) nothing is confirmed, so a script must say `--yes` explicitly.
 *
 * @returns whether the operator confirmed.
 */
export async function confirmChange(question: string, yes: boolean | undefined): Promise<boolean> {
  if (yes === true) return true;
  if (!process.stdin.isTTY) return false;
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await terminal.question(`${question} [y/N] `);
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    terminal.close();
  }
}

/** Thrown when a change needs a confirmation that was not given; the message says how to give it. */
export class ChangeNotConfirmedError extends Error {
  override readonly name = 'ChangeNotConfirmedError';
  constructor(what: string) {
    super(`${what}: not confirmed, nothing changed (answer y on a terminal, or pass --yes)`);
  }
}
