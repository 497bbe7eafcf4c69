import { readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { MemoryError } from '@raf/core';
import { createLocalToolOperations } from '../workspace/operations/local-tool-operations.js';
import type { FsOperations, ToolOperations } from '../workspace/operations/tool-operations.js';
import { isIndexFile, isReserved, pageForTopic } from './bundle-layout.js';
import { withFileLock } from './bundle-lock.js';
import { keepNewEntries } from './entries.js';
import { isFrontmatterProblem, parseFrontmatter, renderPage } from './frontmatter.js';
import { beginChange, endChange, followMove, indexPage } from './pending-changes.js';

/** Files the curator may not write: the framework keeps them. */
const READ_ONLY = new Set(['log.md', 'SKILL.md', 'AGENT.md']);

export interface BundleOperationsOptions {
  /** ISO time the job started: entries saved since then survive a rewrite that lacks them. */
  since: string;
  /** Called after each file written or moved away (for the recall index and the job's report). */
  onWritten?: (rel: string, text: string | undefined) => void | Promise<void>;
}

function typeFor(rel: string): string {
  if (rel.startsWith('references/')) {
    try {
      return pageForTopic(rel.slice('references/'.length)).type;
    } catch {}
  }
  return 'knowledge';
}

/** A page the curator wrote without frontmatter gets one; broken frontmatter is refused. */
function withFrontmatter(rel: string, text: string): string {
  if (!rel.endsWith('.md')) return text;
  const parsed = parseFrontmatter(text);
  if (!isFrontmatterProblem(parsed)) {
    if (typeof parsed.data.type === 'string' && parsed.data.type.trim()) return text;
    return renderPage({ type: typeFor(rel), ...parsed.data }, parsed.body);
  }
  if (text.trimStart().startsWith('---'))
    throw new MemoryError(
      `${rel}:${parsed.line}: ${parsed.message}; fix the frontmatter and write the page again`,
    );
  const title = rel.split('/').at(-1)?.replace(/\.md$/, '') ?? rel;
  return renderPage({ type: typeFor(rel), title }, text);
}

/**
 * The file operations of the curator's tools: every write and move of a bundle file happens under
 * that file's lock (the one `memory_save` takes), a rewrite keeps the entries saved meanwhile,
 * pages always carry frontmatter, and the framework's own files stay read-only.
 */
export function bundleOperations(root: string, options: BundleOperationsOptions): ToolOperations {
  const base = createLocalToolOperations();
  const fs = base.fs;
  const rel = (path: string) => relative(root, path).split(sep).join('/');
  const guard = (path: string) => {
    const name = rel(path);
    if (READ_ONLY.has(name)) throw new MemoryError(`${name} is kept by the framework; do not write it`);
    return name;
  };
  const locked: FsOperations = {
    lstat: (p) => fs.lstat(p),
    stat: (p) => fs.stat(p),
    realpath: (p) => fs.realpath(p),
    readlink: (p) => fs.readlink(p),
    readFile: (p, o) => fs.readFile(p, o),
    list: (p) => fs.list(p),
    mkdir: (p) => fs.mkdir(p),
    async writeFile(path, data, o) {
      const name = guard(path);
      const text = withFrontmatter(
        name,
        typeof data === 'string' ? data : Buffer.from(data).toString('utf8'),
      );
      let record: string | undefined;
      const written = await withFileLock(root, name, async () => {
        const current = await readFile(path, 'utf8').catch(() => undefined);
        if (current === undefined && name.endsWith('.md') && !isReserved(name) && !isIndexFile(name))
          record = await beginChange(root, { op: 'create', page: name });
        const merged = keepNewEntries(text, current ?? '', options.since);
        await fs.writeFile(path, merged, o);
        return merged;
      });
      // A new page is listed in its index right away (a kill in between is completed later).
      if (record) {
        await indexPage(root, name);
        await endChange(record);
      }
      await options.onWritten?.(name, written);
    },
    async move(from, to) {
      const source = guard(from);
      const target = guard(to);
      const record = await beginChange(root, { op: 'move', from: source, to: target });
      await withFileLock(root, source, () => fs.move(from, to));
      await followMove(root, source, target);
      await endChange(record);
      await options.onWritten?.(source, undefined);
      const text = await readFile(to, 'utf8').catch(() => undefined);
      if (text !== undefined) await options.onWritten?.(rel(to), text);
    },
    async remove(path) {
      const name = guard(path);
      await withFileLock(root, name, () => fs.remove(path));
      await options.onWritten?.(name, undefined);
    },
  };
  return { ...base, fs: locked };
}
