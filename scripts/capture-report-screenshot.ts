/**
 * Screenshot of an engagement report for the docs:
 *   npx tsx scripts/capture-report-screenshot.ts REPORT.html docs/images/engagement-report.png [--chromium PATH] [--height PX]
 * Uses headless Chromium (Debian's /usr/bin/chromium by default) through playwright-core.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

export const REPORT_CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--no-first-run',
];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    height: { type: 'string', default: '3300' },
  },
});
const [input, output] = positionals;
if (!input || !output) throw new Error('usage: capture-report-screenshot.ts REPORT.html OUTPUT.png');
const browser = await chromium.launch({ executablePath: values.chromium, args: REPORT_CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1040, height: Number(values.height) } });
  await page.goto(pathToFileURL(resolve(input)).href);
  await page.screenshot({ path: output });
  process.stdout.write(`screenshot written to ${output}\n`);
} finally {
  await browser.close();
}
