import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { glob } from 'tinyglobby';

/** The monorepo's root (this file is packages/rag/src/test-support/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * node-llama-cpp (`@raf/llama`) brings about 80 packages of build and download tooling that the
 * corpus was never measured with; their READMEs would shift the rankings the tests pin.
 */
const LEFT_OUT = new Set(['node-llama-cpp']);

/**
 * The real folders of the installed packages the workspace reaches (through each importer's
 * `node_modules`, then each package's siblings in the store), not entering `LEFT_OUT`: the
 * packages the lockfile installs, without leftovers of other checkouts in `node_modules/.pnpm`.
 */
async function reachablePackages(): Promise<Set<string>> {
  const reached = new Set<string>();
  const visitedFolders = new Set<string>();
  const entries = async (folder: string) => {
    const names: string[] = [];
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      if (name.startsWith('.')) continue;
      if (!name.startsWith('@')) names.push(name);
      else
        for (const inner of await readdir(join(folder, name)).catch(() => [] as string[]))
          names.push(`${name}/${inner}`);
    }
    return names;
  };
  const visit = async (folder: string): Promise<void> => {
    if (visitedFolders.has(folder)) return;
    visitedFolders.add(folder);
    for (const name of await entries(folder)) {
      if (LEFT_OUT.has(name)) continue;
      const real = await realpath(join(folder, name)).catch(() => undefined);
      if (!real || reached.has(real)) continue;
      reached.add(real);
      // A store package's dependencies are its siblings: <store>/<id>/node_modules/<name>.
      if (real.includes('/node_modules/.pnpm/'))
        await visit(name.includes('/') ? dirname(dirname(real)) : dirname(real));
    }
  };
  const importers = ['node_modules', 'bench/node_modules'];
  for (const group of ['packages', 'examples'])
    for (const name of await readdir(join(REPO_ROOT, group)).catch(() => [] as string[]))
      importers.push(`${group}/${name}/node_modules`);
  for (const folder of importers) await visit(join(REPO_ROOT, folder));
  return reached;
}

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
  const reachable = await reachablePackages();
  for (const file of installed.sort()) {
    if (!reachable.has(await realpath(dirname(join(REPO_ROOT, file))))) continue;
    const parts = file.split('/');
    const scoped = parts[parts.length - 3]?.startsWith('@');
    const name = scoped
      ? `${parts[parts.length - 3]}__${parts[parts.length - 2]}`
      : (parts[parts.length - 2] as string);
    await add(join(REPO_ROOT, file), `${name}.md`);
  }
  return names;
}
