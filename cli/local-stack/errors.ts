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

/** Thrown by `prepareDataDir` when the data folder cannot be created; the cause says why. */
export class DataDirUnusableError extends Error {
  override readonly name = 'DataDirUnusableError';
  constructor(
    readonly dataDir: string,
    options: { cause: unknown }
  ) {
    super(`cannot use ${dataDir} as the data folder (--data-dir); pass a folder you can write to`, options);
  }
}

/**
 * Thrown by `claimDemoDataDir` when `demo`/`demo-send --data-dir` names a folder it must not wipe (issue #26
 * item 1): one it did not make, or `/`, `~`, `.`, the checkout. Nothing was deleted.
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
