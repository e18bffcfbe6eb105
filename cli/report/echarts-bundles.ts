import { createRequire } from 'node:module';

/**
 * The ECharts files wa-lake reads at run time, as package specifiers: the report renders SVG on the server with
 * the CommonJS bundle, and the dashboard serves the minified browser bundle to its pages. The image keeps exactly
 * these: scripts/container/prune-node-modules.sh reads this list from the build it prunes (ADR 0018).
 */
export const ECHARTS_BUNDLES = {
  server: 'echarts/dist/echarts.js',
  browser: 'echarts/dist/echarts.min.js',
} as const;

/** The absolute path of one of {@link ECHARTS_BUNDLES}. @throws when node_modules lacks it. */
export function resolveEchartsBundle(bundle: keyof typeof ECHARTS_BUNDLES): string {
  return createRequire(import.meta.url).resolve(ECHARTS_BUNDLES[bundle]);
}
