#!/usr/bin/env node
// npm's `prepare` (runs at the end of `npm ci` and `npm install`): compiles the CLI to dist/ so the first
// `wa-lake` command starts at once (ADR 0017). The container's install step copies only package.json and
// scripts/, so a tree without the sources has nothing to build yet (its Dockerfile runs `npm run build` later).
import { existsSync } from 'node:fs';

const ensureCompiledModule = new URL('../bin/ensure-compiled.js', import.meta.url);
if (!existsSync(ensureCompiledModule) || !existsSync(new URL('../cli/main.ts', import.meta.url))) {
  process.stdout.write('wa-lake prepare: no sources here yet; nothing to build\n');
} else {
  const { ensureCompiled } = await import(ensureCompiledModule.href);
  const outcome = ensureCompiled((reason) => process.stdout.write(`wa-lake prepare: compiling to dist/ (${reason})\n`));
  process.stdout.write(`wa-lake prepare: dist/ is ${outcome === 'built' ? 'built' : 'current'}\n`);
}
