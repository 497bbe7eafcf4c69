import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { glob } from 'tinyglobby';

/** The monorepo's root (this file is packages/rag/src/test-support/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * A realistic markdown docs tree: this repository's own READMEs (as `raf-<package>.md`) and
 * every installed package's README (as `<package>.md`, `@scope__name.md`), one copy per distinct
 * content. Returns the file names written into `dir`.
 */
export async function makeReadmeCorpus(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const seen = new Set<string>();
  const names: string[] = [];
  const add = async (from: string, name: string) => {
    const hash = createHash('sha1')
      .update(await readFile(from))
      .digest('hex');
    if (seen.has(hash) || names.includes(name)) return;
    seen.add(hash);
    names.push(name);
    await copyFile(from, join(dir, name));
  };
  for (const file of (await glob('packages/*/README.md', { cwd: REPO_ROOT })).sort())
    await add(join(REPO_ROOT, file), `raf-${file.split('/')[1]}.md`);
  await add(join(REPO_ROOT, 'README.md'), 'raf.md');
  await add(join(REPO_ROOT, 'ARCHITECTURE.md'), 'raf-architecture.md');
  const installed = await glob(
    ['node_modules/.pnpm/*/node_modules/*/README.md', 'node_modules/.pnpm/*/node_modules/@*/*/README.md'],
    {
      cwd: REPO_ROOT,
      caseSensitiveMatch: false,
    },
  );
  for (const file of installed.sort()) {
    const parts = file.split('/');
    const scoped = parts[parts.length - 3]?.startsWith('@');
    const name = scoped
      ? `${parts[parts.length - 3]}__${parts[parts.length - 2]}`
      : (parts[parts.length - 2] as string);
    await add(join(REPO_ROOT, file), `${name}.md`);
  }
  return names;
}
