import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../../common/logger.js';
import { makeDirectory } from '../../common/make-directory.js';
import { formatCaptureLine } from './capture-line.js';

/** Never recorded: key material must not leave the process (architecture.md §3). */
const NEVER_RECORDED = new Set(['creds.update']);

/**
 * Writes `wa-lake collector --record FILE`: every Baileys event the session receives (before
 * filtering, plus the synthetic `groups.metadata`), minus `creds.update`, one line per event in
 * our capture format (see `formatCaptureLine`). Appends with synchronous writes so a line is in
 * the OS before the event callback returns; `close()` fsyncs. The file holds personal data
 * (message text, phone numbers): it is created with mode 0600. Source: architecture.md §10.
 */
export class CaptureRecorder {
  private fd: number | null;
  private recorded = 0;
  private unserializable = 0;

  private constructor(
    fd: number,
    private readonly path: string,
    private readonly logger: Logger
  ) {
    this.fd = fd;
  }

  /**
   * Opens (creating or appending to) a capture file.
   * @throws the `fs` error when the file cannot be opened.
   */
  static open(path: string, logger: Logger): CaptureRecorder {
    makeDirectory(dirname(path));
    const fd = openSync(path, 'a', 0o600);
    return new CaptureRecorder(fd, path, logger.child({ component: 'capture-recorder' }));
  }

  /** Counts since open: lines written and events that could not be serialized (skipped, logged). */
  get stats(): { recorded: number; unserializable: number } {
    return { recorded: this.recorded, unserializable: this.unserializable };
  }

  /**
   * Appends one event (synchronously). `creds.update` and calls after `close()` are ignored; an
   * event that cannot be serialized is skipped with a `warn` (never thrown: capture must go on).
   */
  record(event: string, data: unknown, capturedAt: Date): void {
    if (this.fd === null || NEVER_RECORDED.has(event)) return;
    let line: string;
    try {
      line = `${formatCaptureLine(event, data, capturedAt)}\n`;
    } catch (err) {
      this.unserializable++;
      this.logger.warn({ err, event }, 'cannot serialize event for the capture file');
      return;
    }
    try {
      writeSync(this.fd, line);
      this.recorded++;
    } catch (err) {
      this.logger.error({ err, path: this.path }, 'cannot write capture file');
    }
  }

  /** Flushes to disk and closes the file; further `record` calls are ignored. */
  close(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.logger.info({ path: this.path, ...this.stats }, 'capture file closed');
  }
}
