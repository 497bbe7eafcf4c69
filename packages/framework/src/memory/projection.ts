import { readBundleText } from './bundle-files.js';
import { isReserved, listMarkdown } from './bundle-layout.js';
import { isFrontmatterProblem, parseFrontmatter } from './frontmatter.js';

const MAX_PAGES = 300;
const REFERENCE_CHARS = 3000;

/**
 * What the curator sees of the bundle before it reads anything: every page with its type and
 * title (the first 300), and the reference pages in full (each clipped), since most
 * conversations touch them.
 */
export async function bundleProjection(root: string, signal?: AbortSignal): Promise<string> {
  const files = (await listMarkdown(root, signal)).filter((f) => !isReserved(f));
  const lines: string[] = [];
  const references: string[] = [];
  for (const rel of files.slice(0, MAX_PAGES)) {
    const text = (await readBundleText(root, rel, signal).catch(() => undefined)) ?? '';
    const parsed = parseFrontmatter(text);
    const data = isFrontmatterProblem(parsed) ? {} : parsed.data;
    const title = typeof data.title === 'string' ? ` — ${data.title}` : '';
    lines.push(`- ${rel} (${typeof data.type === 'string' ? data.type : 'no type'})${title}`);
    if (rel.startsWith('references/') && !isFrontmatterProblem(parsed)) {
      const body = parsed.body.trim();
      references.push(
        `### ${rel}\n\n${body.length > REFERENCE_CHARS ? `${body.slice(0, REFERENCE_CHARS)} …` : body}`,
      );
    }
  }
  if (files.length > MAX_PAGES) lines.push(`- … and ${files.length - MAX_PAGES} more pages (use find_files)`);
  return [`Pages (${files.length}):`, ...lines, ...references].join('\n');
}
