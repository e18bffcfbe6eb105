import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ECHARTS_BUNDLES, resolveEchartsBundle } from '../../../../cli/report/echarts-bundles.js';

describe('ECHARTS_BUNDLES', () => {
  it('names files of echarts/dist that exist, the list the image prune keeps', () => {
    for (const bundle of ['server', 'browser'] as const) {
      expect(ECHARTS_BUNDLES[bundle]).toMatch(/^echarts\/dist\/[^/]+\.js$/);
      expect(existsSync(resolveEchartsBundle(bundle))).toBe(true);
    }
    // The prune script asks the build for this list instead of naming files of its own.
    const prune = readFileSync(new URL('../../../../scripts/container/prune-node-modules.sh', import.meta.url), 'utf8');
    expect(prune).toContain('./dist/cli/report/echarts-bundles.js');
    expect(prune).not.toMatch(/-name echarts(\.min)?\.js/);
  });
});
