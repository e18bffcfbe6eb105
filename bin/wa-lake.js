#!/usr/bin/env node
// Entry of the `wa-lake` CLI. Runs the TypeScript sources through tsx so a fresh clone needs no build
// step; a compiled tree (dist/, used by the container image) is preferred when present.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
}
