import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

async function put(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/** An upstream-layout wiki: two spaces, pages as `_page.yaml` + `content.md`, links across spaces. */
export async function makeUpstreamWiki(root: string): Promise<void> {
  await put(root, {
    'eng/_space.yaml': 'name: eng\ntitle: Engineering\ndescription: How we build things\n',
    'eng/setup/_page.yaml':
      'name: setup\ntitle: Development setup\npage_type: guide\ntags: [onboarding, tooling]\ncreated: 2026-01-02\nupdated: 2026-03-04\nschema_version: 1\n',
    'eng/setup/content.md':
      '# Development setup\n\nInstall Node 20, then read [[Release process]] and [[ops/oncall|the on-call guide]].\n',
    'eng/release/_page.yaml': 'name: release\ntitle: Release process\npage_type: process\ntags: [tooling]\n',
    'eng/release/content.md': 'Releases are cut on Tuesdays with changesets. See [[setup]] first.\n',
    'ops/_space.yaml': 'name: ops\ntitle: Operations\n',
    'ops/oncall/_page.yaml': 'name: oncall\ntitle: On-call guide\ntags: [onboarding]\n',
    'ops/oncall/content.md':
      'Pager rotations are weekly. Escalate to [[Release process]] owners for bad deploys. [[Runbook]] is missing.\n',
    'ops/limits/_page.yaml': 'name: limits\ntitle: Rate limits\npage_type: data\n',
    'ops/limits/content.yaml': 'api: 100/minute\n',
  });
}

/** A plain markdown vault (Obsidian style): frontmatter, `[[links]]` by title and path, a link in code. */
export async function makeMarkdownVault(root: string): Promise<void> {
  await put(root, {
    'index.md': '---\ntitle: Home\ntags: [start]\n---\nStart at [[Coffee brewing]] or [[notes/grinders]].\n',
    'notes/coffee.md':
      '# Coffee brewing\n\nUse a ratio of 1:16. Grind size matters, see [[Grinders|burr grinders]]. Also [[Tea]].\n\n```\n[[not a link]]\n```\nAnd `[[not either]]`.\n',
    'notes/grinders.md':
      '---\ntitle: Grinders\ntags: [gear]\n---\nBurr grinders beat blade grinders. Back to [[Home]].\n',
    'notes/kettles.md': '---\ntags: [gear]\n---\nGooseneck kettles pour slowly.\n',
    '.obsidian/workspace.md': 'not a page',
  });
}
