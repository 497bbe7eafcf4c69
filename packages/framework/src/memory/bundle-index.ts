import { posix } from 'node:path';
import { readBundleText, writeBundleText } from './bundle-files.js';
import { INDEX_FILE, indexOf } from './bundle-layout.js';
import { withFileLock } from './bundle-lock.js';
import { renderPage } from './frontmatter.js';

/** A relative link of an index, with the line it is on (1-based). */
export interface IndexLink {
  target: string;
  line: number;
}

const LINK = /\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'][^"']*["'])?\s*\)/g;

/** Relative links of a markdown text (web links, mail links and anchors left out). */
export function relativeLinks(text: string): IndexLink[] {
  const links: IndexLink[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    for (const match of line.matchAll(LINK)) {
      const raw = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('#') || raw.startsWith('/')) continue;
      let target = raw.split('#')[0] ?? '';
      try {
        target = decodeURI(target);
      } catch {}
      if (target) links.push({ target, line: i + 1 });
    }
  }
  return links;
}

/** Where a link of `index` points, relative to the bundle (`undefined` when it leaves the bundle). */
export function resolveLink(index: string, target: string): string | undefined {
  const joined = posix.normalize(posix.join(posix.dirname(index), target)).replace(/\/$/, '');
  return joined.startsWith('..') || joined === '.' ? undefined : joined;
}

/** Text made safe for one cell of a markdown table. */
export function tableCell(text: string): string {
  return text.replace(/\s+/g, ' ').replaceAll('|', '\\|').trim();
}

/** Adds a `| name | description | [path](path) |` row after the index's last table row (or a new table). */
export function addIndexRow(text: string, row: { name: string; description: string; link: string }): string {
  const line = `| ${tableCell(row.name)} | ${tableCell(row.description)} | [${row.link}](${encodeURI(row.link)}) |`;
  const lines = text.replace(/\s+$/, '').split('\n');
  let last = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i]?.trimStart().startsWith('|')) {
      last = i;
      break;
    }
  }
  if (last < 0)
    return `${lines.join('\n')}\n\n| name | description | path |\n| ---- | ----------- | ---- |\n${line}\n`;
  lines.splice(last + 1, 0, line);
  return `${lines.join('\n')}\n`;
}

function newIndex(rel: string): string {
  const folder = posix.basename(posix.dirname(rel));
  return renderPage(
    { type: 'index', title: folder, description: `What ${folder} holds.` },
    `# ${folder}\n\n| name | description | path |\n| ---- | ----------- | ---- |\n`,
  );
}

/**
 * Makes sure `rel` is listed in the index that must hold it (`indexOf`), and that index in its
 * own, up to `index.md`: a missing `INDEX.md` is created. Each index is changed under its lock.
 * Returns the indexes it changed.
 */
export async function ensureIndexed(
  root: string,
  rel: string,
  about: { name: string; description: string },
  signal?: AbortSignal,
): Promise<string[]> {
  const changed: string[] = [];
  let page = rel;
  let info = about;
  for (;;) {
    const index = indexOf(page);
    if (!index) return changed;
    let created = false;
    const added = await withFileLock(
      root,
      index,
      async () => {
        let text = await readBundleText(root, index, signal);
        if (text === undefined) {
          text = newIndex(index);
          created = true;
        }
        const listed = relativeLinks(text).some((l) => resolveLink(index, l.target) === page);
        if (listed && !created) return false;
        const next = listed
          ? text
          : addIndexRow(text, { ...info, link: posix.relative(posix.dirname(index), page) });
        await writeBundleText(root, index, next, signal);
        return true;
      },
      signal,
    );
    if (added) changed.push(index);
    if (index === 'index.md') return changed;
    // Each INDEX.md up the chain must itself be listed one level up (checked even when it existed:
    // a writer killed midway may have left a level unlisted).
    page = index;
    const folder = posix.basename(posix.dirname(index));
    info = { name: folder, description: `${folder}: see its ${INDEX_FILE}` };
  }
}
