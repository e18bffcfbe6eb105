import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The wa-lake checkout (or installed package) this code runs from: the nearest folder above this module that
 * holds a `package.json`, the same from the sources and from `dist/` (ADR 0017: the CLI runs compiled).
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return dir;
    dir = parent;
  }
  return dir;
}
