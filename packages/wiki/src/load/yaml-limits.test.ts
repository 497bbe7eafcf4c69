import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wiki } from '../wiki/wiki.js';

/** A "billion laughs" YAML: nine levels of nine aliases, a few hundred bytes that expand to 9^9. */
function bomb(): string {
  const names = 'abcdefghi';
  const lines = ['x-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < names.length; i++)
    lines.push(
      `x-${names[i]}: &${names[i]} [${Array(9)
        .fill(`*${names[i - 1]}`)
        .join(',')}]`,
    );
  return `${lines.join('\n')}\n`;
}

let root: string;
beforeAll(async () => {
  // The framework (which holds the YAML helper) loads once, outside the timed open.
  await import('@raf/framework');
  root = await mkdtemp(join(tmpdir(), 'raf-wiki-yaml-'));
  await mkdir(join(root, 'eng', 'bomb'), { recursive: true });
  await writeFile(join(root, 'eng', '_space.yaml'), `name: eng\ntitle: Engineering\n${bomb()}`);
  await writeFile(join(root, 'eng', 'bomb', '_page.yaml'), `name: bomb\ntitle: Boom\n${bomb()}`);
  await writeFile(join(root, 'eng', 'bomb', 'content.md'), 'The page body survives.\n');
  await writeFile(join(root, 'note.md'), `---\ntitle: Bomb note\n${bomb()}---\nA plain note.\n`);
}, 60_000);
afterAll(() => rm(root, { recursive: true, force: true }));

describe('wiki YAML (_space.yaml, _page.yaml, frontmatter) is parsed within the shared limits', () => {
  it('opens a vault with alias bombs fast; their YAML reads as empty', async () => {
    const started = Date.now();
    const wiki = await Wiki.open(root);
    expect(Date.now() - started).toBeLessThan(5000);
    const titles = wiki.pageList.map((page) => page.title).sort();
    expect(titles).not.toContain('Boom');
    expect(titles).not.toContain('Bomb note');
    expect(wiki.pageList).toHaveLength(2);
    await wiki.close();
  });
});
