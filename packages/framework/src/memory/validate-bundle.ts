import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { bundleFolder, readBundleText } from './bundle-files.js';
import { ensureIndexed, relativeLinks, resolveLink } from './bundle-index.js';
import { indexOf, isIndexFile, listMarkdown } from './bundle-layout.js';
import { isFrontmatterProblem, parseFrontmatter } from './frontmatter.js';
import { pendingChanges } from './pending-changes.js';

export type BundleIssueCode = 'missing-file' | 'frontmatter' | 'broken-index-entry' | 'not-indexed';

export interface BundleIssue {
  code: BundleIssueCode;
  /** Relative to the bundle. */
  path: string;
  line?: number;
  message: string;
}

export interface BundleReport {
  ok: boolean;
  /** Absolute path of the bundle. */
  directory: string;
  /** Markdown pages checked (archived ones are skipped). */
  pages: number;
  issues: BundleIssue[];
}

/** Whether something other than a link is at `rel` (a planted link points nowhere for the bundle). */
async function exists(root: string, rel: string): Promise<boolean> {
  const kind = (await bundleFolder(root).entry(rel))?.kind;
  return kind !== undefined && kind !== 'symlink';
}

/**
 * Checks a memory bundle (Open Knowledge Format): `index.md` and `log.md` exist; every page has
 * YAML frontmatter with a `type` (`SKILL.md`: `name` and `description`); every index entry points
 * at something; every page is listed in its index (`index.md` for the top and `references/`, the
 * folder's `INDEX.md` under `assets/`). `*.archived.md` and hidden files are skipped.
 */
export async function validateBundle(
  directory: string,
  options: { signal?: AbortSignal } = {},
): Promise<BundleReport> {
  const root = resolve(directory);
  const issues: BundleIssue[] = [];
  const report = (): BundleReport => ({
    ok: issues.length === 0,
    directory: root,
    pages: files.length,
    issues,
  });
  let files: string[] = [];
  if (
    !(await stat(root).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    issues.push({ code: 'missing-file', path: '.', message: `${root} is not a folder` });
    return report();
  }
  files = await listMarkdown(root, options.signal);
  // Changes a killed writer left in flight are not problems: the next writer completes them.
  const inFlight = new Set<string>();
  for (const { change } of await pendingChanges(root)) {
    // A new page's index chain (up to index.md) is being written too.
    for (
      let rel: string | undefined = change.op === 'create' ? change.page : change.from;
      rel;
      rel = indexOf(rel)
    )
      inFlight.add(rel);
  }
  const present = new Set(files);
  for (const reserved of ['index.md', 'log.md']) {
    if (!present.has(reserved))
      issues.push({
        code: 'missing-file',
        path: reserved,
        message: `${reserved} is missing (the bundle's ${reserved === 'index.md' ? 'entry' : 'changelog'})`,
      });
  }
  const listed = new Map<string, Set<string>>();
  for (const rel of files) {
    options.signal?.throwIfAborted();
    const text = (await readBundleText(root, rel, options.signal)) ?? '';
    const parsed = parseFrontmatter(text);
    if (isFrontmatterProblem(parsed)) {
      issues.push({ code: 'frontmatter', path: rel, line: parsed.line, message: parsed.message });
    } else if (rel === 'SKILL.md') {
      for (const field of ['name', 'description'])
        if (typeof parsed.data[field] !== 'string' || !(parsed.data[field] as string).trim())
          issues.push({
            code: 'frontmatter',
            path: rel,
            line: 2,
            message: `frontmatter '${field}' is required`,
          });
    } else if (typeof parsed.data.type !== 'string' || !parsed.data.type.trim()) {
      issues.push({
        code: 'frontmatter',
        path: rel,
        line: 2,
        message: "frontmatter 'type' is required (a non-empty string)",
      });
    }
    if (!isIndexFile(rel)) continue;
    const targets = new Set<string>();
    listed.set(rel, targets);
    for (const link of relativeLinks(text)) {
      const target = resolveLink(rel, link.target);
      if (target !== undefined) targets.add(target);
      if (target !== undefined && inFlight.has(target)) continue;
      if (target === undefined || !(present.has(target) || (await exists(root, target)))) {
        issues.push({
          code: 'broken-index-entry',
          path: rel,
          line: link.line,
          message: `index entry '${link.target}' points nowhere${target === undefined ? ' (outside the bundle)' : ''}`,
        });
      }
    }
  }
  for (const rel of files) {
    const index = indexOf(rel);
    if (index === undefined || listed.get(index)?.has(rel) || inFlight.has(rel)) continue;
    issues.push({
      code: 'not-indexed',
      path: rel,
      message: present.has(index) ? `not listed in ${index}` : `not listed in an index: ${index} is missing`,
    });
  }
  return report();
}

/**
 * Lists every page that is missing from its index (creating missing `INDEX.md` files); run after
 * each consolidation. Returns the indexes it changed.
 */
export async function repairIndexes(
  directory: string,
  options: { signal?: AbortSignal } = {},
): Promise<string[]> {
  const root = resolve(directory);
  const { issues } = await validateBundle(root, options);
  const changed = new Set<string>();
  for (const issue of issues) {
    if (issue.code !== 'not-indexed') continue;
    const text = (await readBundleText(root, issue.path, options.signal).catch(() => undefined)) ?? '';
    const parsed = parseFrontmatter(text);
    const data = isFrontmatterProblem(parsed) ? {} : parsed.data;
    const name =
      typeof data.title === 'string' && data.title
        ? data.title
        : (issue.path.split('/').at(-1)?.replace(/\.md$/, '') ?? issue.path);
    const description = typeof data.description === 'string' ? data.description : '';
    for (const index of await ensureIndexed(root, issue.path, { name, description }, options.signal))
      changed.add(index);
  }
  return [...changed];
}
