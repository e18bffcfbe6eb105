/** Types of ensure-compiled.js (plain JavaScript, bin/README.md). */
export declare function findStaleSource(root?: string): string | null;
export declare function ensureCompiled(
  onBuild?: (reason: string) => void,
  root?: string
): 'current' | 'built' | 'no-sources';
