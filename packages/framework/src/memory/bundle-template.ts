import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryError } from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { writeFileAtomic } from '../io/atomic-write.js';
import { nodeCrypto } from '../lazy-builtins.js';
import { readBundleText, writeBundleText } from './bundle-files.js';
import { withFileLock } from './bundle-lock.js';
import { completeChanges } from './pending-changes.js';

const TEMPLATE = join('templates', 'super-brain');
/** Hashes of the files as last seeded: a file still equal to its seeded version may be upgraded. */
const SEEDED = '.raf/seeded.json';
/** Temporary files of atomic writes that a killed process left behind are removed after this. */
const STALE_TEMP_MS = 60_000;

// `.raf/seeded.json` is read back from disk: parsed, never cast (built on first use).
const seededSchema = onFirstUse(() => z.record(z.string(), z.string()));

let found: string | undefined;

/**
 * The template bundle shipped with `@raf/framework` (`templates/super-brain`): found next to this
 * module in `src/` and `dist/`, and through the package when a bundler (the `raf` binary) moved
 * the code elsewhere.
 */
export function templateDirectory(): string {
  if (found) return found;
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, '..', '..', TEMPLATE), join(here, '..', TEMPLATE)];
  try {
    const manifest = createRequire(import.meta.url).resolve('@raf/framework/package.json');
    candidates.push(join(dirname(manifest), TEMPLATE));
  } catch {}
  found = candidates.find((c) => existsSync(join(c, 'SKILL.md')));
  if (!found)
    throw new MemoryError(`the super-brain template is missing (looked in ${candidates.join(', ')})`);
  return found;
}

async function templateFiles(dir: string, rel = ''): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...(await templateFiles(dir, path)));
    else if (entry.isFile()) files.push(path);
  }
  return files.sort();
}

const sha = (text: string) => nodeCrypto().createHash('sha256').update(text).digest('hex');

/**
 * What seeding would write: each template file that is missing or still the version seeded
 * before (never a user's edit, never through a planted link), and the new `.raf/seeded.json`.
 */
async function seedPlan(root: string, template: string, signal: AbortSignal | undefined) {
  const before = (await readBundleText(root, SEEDED, signal)) ?? '{}';
  const seeded = seededSchema().parse(JSON.parse(before));
  const writes: [string, string][] = [];
  for (const rel of await templateFiles(template)) {
    signal?.throwIfAborted();
    const text = await readFile(join(template, rel), 'utf8');
    // A seeded file replaced by a link (planted) is refused here, never followed nor overwritten.
    const current = await readBundleText(root, rel, signal).catch((error: unknown) => {
      if (signal?.aborted) throw error;
      return null;
    });
    if (current === null) continue;
    if (current === text) {
      seeded[rel] = sha(text);
      continue;
    }
    if (current !== undefined && seeded[rel] !== sha(current)) continue; // the user's version
    writes.push([rel, text]);
    seeded[rel] = sha(text);
  }
  return { before, writes, after: `${JSON.stringify(seeded, null, 2)}\n` };
}

/**
 * Seeds `root` from the template without ever overwriting a user's edit: a file is written only
 * when it is missing, or still identical to the version seeded before (so a newer template
 * reaches untouched files). Also removes temporary files that a killed writer left behind.
 * Returns the files written.
 */
export async function seedBundle(root: string, options: { signal?: AbortSignal } = {}): Promise<string[]> {
  const template = templateDirectory();
  const created = await createWhole(root, template);
  if (created) return created;
  const written: string[] = [];
  // Read first without the lock: an up-to-date bundle takes no lock and writes nothing, so a full
  // or read-only disk still opens it without a warning.
  const quick = await seedPlan(root, template, options.signal);
  if (quick.writes.length > 0 || quick.after !== quick.before)
    await withFileLock(
      root,
      SEEDED,
      async () => {
        const plan = await seedPlan(root, template, options.signal);
        for (const [rel, text] of plan.writes) {
          await writeBundleText(root, rel, text, options.signal);
          written.push(rel);
        }
        // Unchanged, it is not written again.
        if (plan.after !== plan.before) await writeBundleText(root, SEEDED, plan.after, options.signal);
      },
      options.signal,
    );
  await completeChanges(root, options.signal);
  await removeStaleTemporaries(root);
  return written;
}

/**
 * A bundle that does not exist yet is made whole beside its place and renamed into it, so a
 * process killed while seeding never leaves half a bundle. Undefined when the folder exists
 * (or another process made it first).
 */
async function createWhole(root: string, template: string): Promise<string[] | undefined> {
  if (
    await stat(root).then(
      () => true,
      () => false,
    )
  )
    return undefined;
  await mkdir(dirname(root), { recursive: true });
  const temporary = join(dirname(root), `.${basename(root)}.${nodeCrypto().randomUUID()}.seeding`);
  const seeded: Record<string, string> = {};
  const files = await templateFiles(template);
  try {
    for (const rel of files) {
      const text = await readFile(join(template, rel), 'utf8');
      await writeFileAtomic(join(temporary, rel), text);
      seeded[rel] = sha(text);
    }
    await writeFileAtomic(join(temporary, SEEDED), `${JSON.stringify(seeded, null, 2)}\n`);
    await rename(temporary, root);
    return files;
  } catch (error) {
    await rm(temporary, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTEMPTY') return undefined;
    throw error;
  }
}

async function removeStaleTemporaries(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const now = Date.now();
  await Promise.all(
    entries.map(async (entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.raf') await removeStaleTemporaries(path);
      } else if (entry.name.startsWith('.') && /\.(raf-)?tmp$/.test(entry.name)) {
        const info = await stat(path).catch(() => undefined);
        if (info && now - info.mtimeMs > STALE_TEMP_MS) await rm(path, { force: true });
      }
    }),
  );
}
