import { rm, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import { nodeCrypto } from '../lazy-builtins.js';
import { bundleFolder, readBundleText, writeBundleText } from './bundle-files.js';
import { ensureIndexed, relativeLinks, resolveLink } from './bundle-index.js';
import { indexOf } from './bundle-layout.js';
import { withFileLock } from './bundle-lock.js';
import { isFrontmatterProblem, parseFrontmatter } from './frontmatter.js';

/**
 * A change that spans files (a new page and its index rows, a moved page and its row), written
 * down before it starts and removed when it is done: a writer killed in between leaves the record,
 * validation knows the change is in flight, and the next writer to seed the bundle completes it.
 */
export type PendingChange = { op: 'create'; page: string } | { op: 'move'; from: string; to: string };

const FOLDER = '.raf/pending';

// A record is read back from disk: parsed, never cast (built on first use, not at import).
const recordSchema = onFirstUse(() =>
  z.union([
    z.object({ op: z.literal('create'), page: z.string(), pid: z.number().optional() }),
    z.object({ op: z.literal('move'), from: z.string(), to: z.string(), pid: z.number().optional() }),
  ]),
);

export async function beginChange(root: string, change: PendingChange): Promise<string> {
  const rel = `${FOLDER}/${nodeCrypto().randomUUID()}.json`;
  await writeBundleText(root, rel, JSON.stringify({ ...change, pid: process.pid }));
  return join(root, rel);
}

/** Records older than this are completed even when their process id is alive (it may be reused). */
const ABANDONED_MS = 10 * 60_000;

/** A record is abandoned when the process that wrote it is gone (never one of this process). */
async function abandoned(record: string, pid: unknown): Promise<boolean> {
  if (pid === process.pid) return false;
  // 0 and negative numbers name process groups for kill(2): such a record is nobody's.
  if (typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0) {
    try {
      process.kill(pid, 0);
      const info = await stat(record).catch(() => undefined);
      return info !== undefined && Date.now() - info.mtimeMs > ABANDONED_MS;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }
  return true;
}

export async function endChange(record: string): Promise<void> {
  await rm(record, { force: true });
}

export async function pendingChanges(
  root: string,
): Promise<{ record: string; change: PendingChange & { pid?: number | undefined } }[]> {
  const entries = await bundleFolder(root)
    .list(FOLDER)
    .catch(() => []);
  const found: { record: string; change: PendingChange & { pid?: number | undefined } }[] = [];
  for (const entry of entries.filter((e) => e.kind === 'file' && e.name.endsWith('.json'))) {
    const rel = `${FOLDER}/${entry.name}`;
    try {
      const change = recordSchema().parse(JSON.parse((await readBundleText(root, rel)) ?? ''));
      found.push({ record: join(root, rel), change });
    } catch {
      // not ours (records are written atomically): left alone
    }
  }
  return found;
}

/** Whether `rel` is a regular file of the bundle (a planted link is not). */
const exists = async (root: string, rel: string) => (await bundleFolder(root).entry(rel))?.kind === 'file';

/** Lists a page in its index with the title and description of its frontmatter. */
export async function indexPage(root: string, page: string, signal?: AbortSignal): Promise<string[]> {
  const text = (await readBundleText(root, page, signal).catch(() => undefined)) ?? '';
  const parsed = parseFrontmatter(text);
  const data = isFrontmatterProblem(parsed) ? {} : parsed.data;
  const name = typeof data.title === 'string' && data.title ? data.title : posix.basename(page, '.md');
  const description = typeof data.description === 'string' ? data.description : '';
  return ensureIndexed(root, page, { name, description }, signal);
}

/** After `from` moved to `to`: its index row follows it, or goes when it was archived or moved away. */
export async function followMove(
  root: string,
  from: string,
  to: string,
  signal?: AbortSignal,
): Promise<void> {
  const index = indexOf(from);
  if (index) {
    await withFileLock(
      root,
      index,
      async () => {
        const text = await readBundleText(root, index, signal).catch(() => undefined);
        if (text === undefined) return;
        const keep = !to.endsWith('.archived.md') && indexOf(to) === index;
        const lines = text.split('\n');
        const next = lines.flatMap((line) => {
          const link = relativeLinks(line).find((l) => resolveLink(index, l.target) === from);
          if (!link) return [line];
          if (!keep) return [];
          const target = posix.relative(posix.dirname(index), to);
          return [
            line
              .replace(`[${link.target}]`, `[${target}]`)
              .replace(`(${encodeURI(link.target)})`, `(${encodeURI(target)})`)
              .replace(`(${link.target})`, `(${encodeURI(target)})`),
          ];
        });
        if (next.join('\n') !== text) await writeBundleText(root, index, next.join('\n'), signal);
      },
      signal,
    );
  }
  if (!to.endsWith('.archived.md') && (await exists(root, to))) await indexPage(root, to, signal);
}

/** Completes the changes that writers killed midway left (run when a bundle is opened); live writers' are theirs. */
export async function completeChanges(root: string, signal?: AbortSignal): Promise<void> {
  for (const { record, change } of await pendingChanges(root)) {
    if (!(await abandoned(record, change.pid))) continue;
    if (change.op === 'create') {
      if (await exists(root, change.page)) await indexPage(root, change.page, signal);
    } else if (!(await exists(root, change.from))) {
      await followMove(root, change.from, change.to, signal);
    }
    await endChange(record);
  }
}
