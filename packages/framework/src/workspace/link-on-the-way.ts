import { lstat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * The first symbolic link on the way to a folder or file a configuration names (a knowledge
 * source, a wiki vault), or undefined. Inside the agent's folder every component from it down to
 * `path` is checked, so `docs/handbook` planted as a link to a private folder is caught even when
 * `docs/handbook/page.md` is what the config names; outside it only `path` itself (the folders
 * above, such as a system's `/tmp` link, are the machine's business, as is the agent's folder
 * itself). A missing component ends the search (what does not exist is reported elsewhere).
 */
export async function symbolicLinkOnTheWay(baseDir: string, path: string): Promise<string | undefined> {
  const base = resolve(baseDir);
  const target = resolve(base, path);
  const rel = relative(base, target);
  const within = rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  const components = within
    ? rel.split(sep).map((_part, i, parts) => join(base, ...parts.slice(0, i + 1)))
    : rel === ''
      ? []
      : [target];
  for (const component of components) {
    const info = await lstat(component).catch(() => undefined);
    if (!info) return undefined;
    if (info.isSymbolicLink()) return component;
  }
  return undefined;
}
