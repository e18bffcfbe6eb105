import type { ProgressListener, ProgressReport } from '../common/progress-meter.js';

const number = (value: number): string => value.toLocaleString('en-US');

/** `8 s`, `4 min`, `2.5 h`: the time left as a person reads it. */
function formatDuration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3_600).toFixed(1)} h`;
}

/**
 * One progress line of a long command (ADR 0017), e.g. `rebuild: projections 45,000 of 120,000 events (37 %),
 * 8,000 events/s, about 9 s left`.
 */
export function formatProgressLine(command: string, noun: string, report: ProgressReport): string {
  const eta =
    report.done >= report.total
      ? 'done'
      : report.etaSeconds === null
        ? 'time left unknown'
        : `about ${formatDuration(report.etaSeconds)} left`;
  return (
    `${command}: ${report.phase} ${number(report.done)} of ${number(report.total)} ${noun} (${report.percent} %), ` +
    `${number(report.perSecond)} ${noun}/s, ${eta}`
  );
}

/**
 * A listener that writes progress lines on stderr (stdout keeps the command's result): the first report, then at
 * most one every `everyMs`, and the last of each phase.
 */
export function createProgressPrinter(
  command: string,
  noun: string,
  options: { write?: (line: string) => void; now?: () => number; everyMs?: number } = {}
): ProgressListener {
  const write = options.write ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const everyMs = options.everyMs ?? 2_000;
  let lastPhase: string | null = null;
  let lastAtMs = 0;
  return (report) => {
    const isNewPhase = report.phase !== lastPhase;
    const isLast = report.done >= report.total;
    if (!isNewPhase && !isLast && now() - lastAtMs < everyMs) return;
    lastPhase = report.phase;
    lastAtMs = now();
    write(formatProgressLine(command, noun, report));
  };
}
