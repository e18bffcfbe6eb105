/** Thrown by `startLocalStack` when another live `wa-lake dev` (or `demo`) already uses the data folder. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number | null,
    options?: { cause?: unknown }
  ) {
    super(
      `another wa-lake dev or demo (pid ${ownerPid ?? 'unknown'}) is already using the data folder ${dataDir}; ` +
        'stop it first, or pass another --data-dir',
      options
    );
  }
}

/** The system error codes a folder refuses writes with, said in words (ADR 0017: never a bare `EROFS`). */
const UNWRITABLE_REASONS: Readonly<Record<string, string>> = {
  EROFS: 'it is on a read-only file system',
  EACCES: 'you have no permission to write there',
  EPERM: 'you have no permission to write there',
  ENOSPC: 'its disk is full',
  EDQUOT: 'your disk quota is used up',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENOENT: 'a part of the path cannot hold folders',
};

/** The first system error code in `err`'s cause chain, or null. */
function systemErrorCode(err: unknown): string | null {
  for (let current = err, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
  }
  return null;
}

/**
 * Thrown by `prepareDataDir` and `lockDataDir` when the data folder cannot be created or written (a read-only file
 * system, no permission, a full disk): one sentence naming the folder and the reason; the cause keeps the system error.
 */
export class DataDirUnusableError extends Error {
  override readonly name = 'DataDirUnusableError';
  constructor(
    readonly dataDir: string,
    options: { cause: unknown }
  ) {
    const reason = UNWRITABLE_REASONS[systemErrorCode(options.cause) ?? ''];
    super(
      `cannot use ${dataDir} as the data folder (--data-dir)${reason ? `: ${reason}` : ''}; pass a folder you can write to`,
      options
    );
  }
}

/**
 * Thrown by `claimDemoDataDir` when `demo`/`demo-send --data-dir` names a folder it must not wipe
 * (ADR 0017): one it did not make, or `/`, `~`, `.`, the checkout. Nothing was deleted.
 */
export class DemoDataDirRefusedError extends Error {
  override readonly name = 'DemoDataDirRefusedError';
  constructor(
    readonly dataDir: string,
    readonly reason: string
  ) {
    super(`refusing to use ${dataDir} as the demo's data folder, which the demo empties at start: ${reason}`);
  }
}

/**
 * Thrown by `wa-lake dev` and `dev:temporal` when `--data-dir` names `/`, `~`, `.`, the checkout or a folder above
 * one of them (architecture.md §10): nothing was written there, not even the stack's lock file.
 */
export class DataDirRefusedError extends Error {
  override readonly name = 'DataDirRefusedError';
  constructor(
    readonly dataDir: string,
    readonly reason: string
  ) {
    super(
      `refusing to use ${dataDir} as the data folder (--data-dir): ${reason}; pass a folder of its own, such as .data`
    );
  }
}
