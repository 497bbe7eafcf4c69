import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { studioAssetsDir } from '../index.js';

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** The newest change among the app's sources (`app/`), in ms. */
function newestSource(packageDir: string): number {
  const app = join(packageDir, 'app');
  let newest = 0;
  for (const name of readdirSync(app, { recursive: true }) as string[])
    newest = Math.max(newest, statSync(join(app, name)).mtimeMs);
  return newest;
}

/**
 * Tests run from source: builds the app (`vite build`) when `dist/app` is missing or older than
 * a source of the app (an edit, a merge), and returns
 * its folder. Test files start in parallel: one builds (it holds `dist/.building`), the others
 * wait for it. CI builds before testing, so there this only checks.
 */
export function buildStudioIfMissing(timeoutMs = 120_000): string {
  const dir = studioAssetsDir();
  const packageDir = dirname(fileURLToPath(new URL('../../package.json', import.meta.url)));
  const sources = newestSource(packageDir);
  const index = join(dir, 'index.html');
  const ready = () => existsSync(index) && statSync(index).mtimeMs >= sources;
  if (ready()) return dir;
  const lock = join(packageDir, 'dist', '.building');
  mkdirSync(dirname(lock), { recursive: true });
  try {
    mkdirSync(lock);
  } catch {
    for (const end = Date.now() + timeoutMs; !ready() && Date.now() < end; ) sleep(200);
    if (!ready()) throw new Error(`the studio app was not built within ${timeoutMs} ms (${lock})`);
    return dir;
  }
  try {
    const vite = join(
      dirname(createRequire(join(packageDir, 'package.json')).resolve('vite/package.json')),
      'bin/vite.js',
    );
    execFileSync(process.execPath, [vite, 'build'], { cwd: packageDir, stdio: 'ignore' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return dir;
}
