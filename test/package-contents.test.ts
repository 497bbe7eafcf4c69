import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * What `npm pack` would publish must be whole: every relative import of every shipped source,
 * declaration or bundle file resolves to a file that ships too (no test helper left behind).
 * Checks whatever is there: `src/` always, `dist/` when built.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const packages = readdirSync(join(root, 'packages'));

// import … from './x.js' · export … from './x.js' · import './x.js' · import('./x.js') · new URL('./x.js', …)
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\bnew URL\(\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

/** The files a specifier may mean: `./x.js` is `./x.ts` in sources and `./x.d.ts` in declarations. */
function candidates(path: string): string[] {
  const js = /\.(m|c)?js$/.exec(path);
  if (!js) return [path, `${path}.ts`, `${path}/index.ts`];
  const stem = path.slice(0, -js[0].length);
  const m = js[1] ?? '';
  return [path, `${stem}.${m}ts`, `${stem}.d.${m}ts`];
}

async function packedFiles(dir: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
  });
  const [report] = JSON.parse(stdout) as [{ files: { path: string }[] }];
  return report.files.map((f) => f.path);
}

function unresolvedImports(dir: string, files: string[]): string[] {
  const shipped = new Set(files);
  const missing: string[] = [];
  for (const file of files) {
    if (!/\.(m|c)?(js|ts)$/.test(file)) continue;
    const text = readFileSync(join(dir, file), 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const target = normalize(join(dirname(file), match[2] as string));
      if (!candidates(target).some((c) => shipped.has(c))) missing.push(`${file} → ${match[2]}`);
    }
  }
  return missing;
}

describe('published packages', () => {
  // Concurrent: each case waits on its own `npm pack` process (about 3 s, mostly npm's start).
  for (const name of packages) {
    it.concurrent(`@raf/${name}: every relative import of a shipped file resolves to a shipped file`, async ({
      expect,
    }) => {
      const dir = join(root, 'packages', name);
      const files = await packedFiles(dir);
      expect(files).toContain('package.json');
      expect(files.some((f) => f.startsWith('src/') && f.endsWith('.ts'))).toBe(true);
      expect(files.filter((f) => /\.test(-d)?\.ts$|\/test-support\//.test(f))).toEqual([]);
      expect(unresolvedImports(dir, files)).toEqual([]);
    }, 60_000);
  }

  it('finds a missing file when there is one (the check can fail)', () => {
    const dir = join(root, 'packages', 'framework');
    expect(unresolvedImports(dir, ['src/index.ts'])).toContain('src/index.ts → ./agent/agent-builder.js');
  });
});
