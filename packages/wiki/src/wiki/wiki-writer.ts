import { relative, sep } from 'node:path';
import { ConfigError } from '@raf/core';
import type { ConfinedFolder } from '@raf/framework';
import { hashOf, MAX_PAGE_BYTES, splitFrontmatter, yamlObject } from '../load/load-wiki.js';
import type { WikiPage, WikiSpace } from '../load/wiki-page.js';

export interface WikiWriteRequest {
  /** The page id (`space/page`, `notes/topic`), or a title that names an existing page. */
  page: string;
  /** The whole new text of the page (markdown). */
  content: string;
  title?: string;
  tags?: string[];
  /** The `hash` `wiki_page` returned: required to change an existing page. */
  expectedHash?: string;
}

/** Why a file may not be written (a path the agent's definition loads), or undefined. */
export type ProtectedCheck = (file: string) => string | undefined;

export type WikiWriteResult =
  | { ok: true; id: string; file: string; hash: string; created: boolean }
  | { ok: false; file: string; error: string; currentHash?: string };

/** What the writer needs of a wiki. */
interface WikiLike {
  root: string;
  folder: ConfinedFolder;
  page(ref: string): WikiPage | undefined;
  spaceList: WikiSpace[];
}

const SEGMENT = /^[\p{L}\p{N}][\p{L}\p{N} _.-]*$/u;

/** A page id that can only name a place inside the wiki; the path guard checks again on write. */
function checkId(id: string): string | undefined {
  if (id.length === 0 || id.length > 200) return 'a page id is 1 to 200 characters';
  const segments = id.split('/');
  if (segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..'))
    return `page id '${id}' must be folder/name segments of letters, digits, spaces, '_', '-' and '.'`;
  return undefined;
}

const now = () => new Date().toISOString();

/**
 * Writes a page atomically, as a compare-and-swap under the page's lock (across processes): a
 * page that exists must come with the hash it had when it was read; if the file on disk has
 * another hash now (someone edited it), nothing is written and the caller is told to read it
 * again (content equal to the page's needs no hash); two writers creating one page get one
 * success and one conflict. Every file is read and
 * written through the wiki's confined folder (no link followed, regular files only). Upstream
 * pages get `content.md` and `_page.yaml`; markdown pages keep their other frontmatter fields.
 */
export async function writePage(
  wiki: WikiLike,
  request: WikiWriteRequest,
  signal: AbortSignal,
  protectedReason: ProtectedCheck = () => undefined,
): Promise<WikiWriteResult> {
  const { stringify } = await import('yaml');
  const existing = wiki.page(request.page);
  const id = existing?.id ?? request.page.trim().replace(/\.md$/i, '');
  const invalid = existing ? undefined : checkId(id);
  if (invalid) return { ok: false, file: '', error: invalid };
  const space = id.includes('/') ? id.split('/')[0] : undefined;
  const upstream = existing
    ? existing.layout === 'upstream'
    : wiki.spaceList.some((s) => s.name === space) && id.split('/').length === 2;
  const folder = wiki.folder;
  const fileRel = existing
    ? relative(wiki.root, existing.file).split(sep).join('/')
    : upstream
      ? `${id}/content.md`
      : `${id}.md`;
  const file = folder.pathOf(fileRel);
  // A wiki folder may hold what the agent loads (a `source: .` vault holds the skills, the memory
  // bundle, the instructions template): wiki_write never changes those, as the file tools do not.
  const metaFile = upstream
    ? folder.pathOf(`${fileRel.slice(0, fileRel.lastIndexOf('/'))}/_page.yaml`)
    : undefined;
  for (const target of metaFile ? [file, metaFile] : [file]) {
    const reason = protectedReason(target);
    if (reason) return { ok: false, file: '', error: `Protected path: '${fileRel}' (${reason})` };
  }
  const read = (rel: string) => folder.readOptional(rel, { maxBytes: MAX_PAGE_BYTES, signal });

  return folder.withLock(
    `page:${fileRel}`,
    async (): Promise<WikiWriteResult> => {
      const current = await read(fileRel);
      const currentHash = current && hashOf(current);
      // Writing exactly what the page already holds loses nobody's edit: no hash needed (a second
      // run of the same write, as a recorded example does, succeeds instead of failing).
      const unchanged = current !== undefined && current.toString('utf8') === request.content;
      if (currentHash !== undefined && request.expectedHash !== currentHash && !unchanged) {
        return {
          ok: false,
          file,
          currentHash,
          error:
            request.expectedHash === undefined
              ? `page '${id}' exists: read it with wiki_page and pass its hash as expected_hash to replace it`
              : `conflict: page '${id}' changed on disk since it was read (expected hash ${request.expectedHash.slice(0, 12)}…, now ${currentHash.slice(0, 12)}…); read it again with wiki_page and merge`,
        };
      }
      if (currentHash === undefined && request.expectedHash !== undefined) {
        return { ok: false, file, error: `conflict: page '${id}' was deleted on disk since it was read` };
      }

      let text = request.content;
      if (upstream) {
        const metaRel = `${fileRel.slice(0, fileRel.lastIndexOf('/'))}/_page.yaml`;
        const before = await yamlObject((await read(metaRel))?.toString('utf8') ?? '');
        const meta = {
          schema_version: 1,
          name: id.split('/').pop(),
          page_type: 'note',
          created: now(),
          ...before,
          ...(request.title !== undefined && { title: request.title }),
          ...(before.title === undefined && request.title === undefined && { title: id.split('/').pop() }),
          ...(request.tags !== undefined && { tags: request.tags }),
          updated: now(),
        };
        await folder.writeFile(fileRel, text, { signal });
        await folder.writeFile(metaRel, stringify(meta), { signal });
      } else {
        const before = current ? (await splitFrontmatter(current.toString('utf8'))).data : {};
        const incoming = await splitFrontmatter(text);
        const data = {
          ...before,
          ...incoming.data,
          ...(request.title !== undefined && { title: request.title }),
          ...(request.tags !== undefined && { tags: request.tags }),
          ...((Object.keys(before).length > 0 ||
            request.title !== undefined ||
            request.tags !== undefined) && {
            updated: now(),
          }),
        };
        text = Object.keys(data).length > 0 ? `---\n${stringify(data)}---\n${incoming.body}` : incoming.body;
        await folder.writeFile(fileRel, text, { signal });
      }
      return { ok: true, id, file, hash: hashOf(text), created: current === undefined };
    },
    {
      signal,
      failure: (message, cause) => new ConfigError(`wiki: ${message}`, cause === undefined ? {} : { cause }),
    },
  );
}
