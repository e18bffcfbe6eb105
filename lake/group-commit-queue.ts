/** Limits of a {@link GroupCommitQueue}. */
export interface GroupCommitLimits {
  /** Batch statements in flight at once; each holds one pooled connection. */
  maxConcurrentBatches: number;
  /** Items per statement. */
  maxBatchRows: number;
  /** Sum of item sizes (UTF-16 units of their JSON) per statement; a larger single item still goes alone. */
  maxBatchChars: number;
}

/**
 * The queue of a group commit (ADR 0006): items that arrive while earlier statements run are handed to
 * `writeBatch` together — one statement, one commit — instead of one each. There is no timer: up to
 * `maxConcurrentBatches` batches run at once and a batch is whatever queued meanwhile, so a lone item is
 * written at once. With `waitsForReturningRows`, while a statement runs a free slot waits until as many
 * items queue as the statement that finished last carried (never longer than that running statement), so
 * answered requests coming back do not each start a one-row statement (ADR 0013).
 *
 * `writeBatch` settles its items itself and must not reject; the queue only forms batches.
 */
export class GroupCommitQueue<Item extends { readonly size: number }> {
  private readonly queue: Item[] = [];
  private inFlight = 0;
  /** Items of the batch that finished last (0 before the first). */
  private lastBatchRows = 0;

  constructor(
    private readonly limits: GroupCommitLimits,
    private readonly writeBatch: (batch: Item[]) => Promise<void>,
    private readonly waitsForReturningRows: boolean
  ) {}

  /** Queues one item; it is written by the next batch that has room for it. */
  push(item: Item): void {
    this.queue.push(item);
    this.startBatches();
  }

  private startBatches(): void {
    while (this.inFlight < this.limits.maxConcurrentBatches && this.queue.length > 0) {
      const isWaiting =
        this.waitsForReturningRows &&
        this.inFlight > 0 &&
        this.queue.length < Math.min(this.limits.maxBatchRows, this.lastBatchRows);
      if (isWaiting) return;
      const batch = this.takeBatch();
      this.inFlight += 1;
      void this.writeBatch(batch).finally(() => {
        this.inFlight -= 1;
        this.lastBatchRows = batch.length;
        this.startBatches();
      });
    }
  }

  private takeBatch(): Item[] {
    let chars = 0;
    let count = 0;
    for (const item of this.queue) {
      if (count === this.limits.maxBatchRows) break;
      if (count > 0 && chars + item.size > this.limits.maxBatchChars) break;
      chars += item.size;
      count += 1;
    }
    return this.queue.splice(0, count);
  }
}
