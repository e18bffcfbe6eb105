import { createRequire } from 'node:module';
import { ECHARTS_BUNDLES } from './echarts-bundles.js';

/** Height of a chart unless its rows need more, in CSS pixels. */
export const HEIGHT = 360;
/** A value axis of counts (messages, members): ticks at whole numbers only, never 0.5 members. */
export const COUNT_AXIS = { type: 'value', minInterval: 1 } as const;

/** The part of the ECharts API used here: server-side rendering to an SVG string. */
interface SsrChart {
  setOption(option: ChartOption): void;
  renderToSVGString(): string;
  dispose(): void;
}
/** An ECharts option object (https://echarts.apache.org/en/option.html). */
export type ChartOption = Record<string, unknown>;
interface EChartsSsr {
  init(dom: null, theme: null, options: { renderer: 'svg'; ssr: true; width: number; height: number }): SsrChart;
}
// echarts' typings declare a CommonJS namespace (`export =`) that TypeScript's NodeNext resolution will not
// import from ESM; its CommonJS build is the same library, so it is loaded with require.
const echarts = createRequire(import.meta.url)(ECHARTS_BUNDLES.server) as EChartsSsr;

/** A chart's ECharts option and height: drawn as SVG on the server (the report file) or in the browser (the dashboard). */
export interface ChartBody {
  option: ChartOption;
  height: number;
}

/** One chart: its id (the HTML id of its figure), title and body. */
export interface ChartSpec extends ChartBody {
  id: string;
  title: string;
}

/** A chart body without animation (a report is read, not watched), `height` pixels high. */
export function chartBody(option: ChartOption, height = HEIGHT): ChartBody {
  return { option: { animation: false, ...option }, height };
}

/** Width of every chart, in CSS pixels. */
export const CHART_WIDTH = 960;

/**
 * Control characters other than the tab and line breaks of ECharts' own markup: XML forbids the C0 ones (a raw
 * ESC or BEL from a group subject or push name would break the SVG or reach a terminal that shows the file).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SVG_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/gu;

/**
 * Renders one ECharts option to an SVG string (server-side rendering: no DOM, no script in the page). A control
 * character in a label (a subject, a push name) is shown as its `\uXXXX` escape.
 */
export function renderSvg(option: ChartOption, height = HEIGHT): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: CHART_WIDTH, height });
  try {
    chart.setOption(option);
    return chart
      .renderToSVGString()
      .replace(SVG_CONTROL, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
  } finally {
    chart.dispose();
  }
}
