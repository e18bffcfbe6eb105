import { readdirSync, readFileSync } from 'node:fs';

// Linux reports utime/stime in clock ticks; USER_HZ is 100 on every platform Node supports.
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) used so far by `rootPid` and every process below it, from `/proc/<pid>/stat`
 * (Linux only; exited children are not counted, so measure while they run). Benchmarks use it for a figure
 * that other tenants of a shared host bend less than a rate: e.g. PostgreSQL CPU per request.
 */
export function processTreeCpuSeconds(rootPid: number): number {
  const processes = new Map<number, { parentPid: number; cpuSeconds: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the parenthesised command name: state ppid … utime(12th) stime(13th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    processes.set(Number(entry), {
      parentPid: Number(fields[1]),
      cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
    });
  }
  let total = 0;
  for (const [pid, info] of processes) {
    let ancestor = pid;
    while (ancestor !== rootPid && ancestor > 1) ancestor = processes.get(ancestor)?.parentPid ?? 0;
    if (ancestor === rootPid) total += info.cpuSeconds;
  }
  return total;
}

/**
 * CPU seconds (user + system) used so far by the calling thread alone, from `/proc/thread-self/stat` (Linux only).
 * On the ingest bench this is the API's event-loop thread: the one thread every request goes through, and at
 * high concurrency the one that bounds the rate (ADR 0013), apart from the load client's worker and V8's
 * helper threads, which `process.cpuUsage()` adds in.
 */
export function currentThreadCpuSeconds(): number {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
