#!/usr/bin/env node
// Second step of `npm run build` (after tsc): records the command index next to the compiled CLI
// (dist/cli/command-index.json, ADR 0017), so `wa-lake X` imports only X's module and `--help` none.
// Written last: bin/ensure-compiled.js reads its time as the build's.
import { writeFileSync } from 'node:fs';

const { buildCommandIndex } = await import(new URL('../dist/cli/command-index.js', import.meta.url).href);
const index = await buildCommandIndex();
writeFileSync(new URL('../dist/cli/command-index.json', import.meta.url), `${JSON.stringify(index, null, 2)}\n`);
process.exit(0);
