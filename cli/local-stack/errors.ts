/** Thrown by `startLocalStack` when another live `wa-lake dev` (or `demo`) already uses the data folder. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number | null,
    options?: { cause?: unknown }
  ) {
    super(
      `another wa-lake dev (pid ${ownerPid ?? 'unknown'}) is already using the data folder ${dataDir}; ` +
        'stop it first, or pass another --data-dir',
      options
    );
  }
}
