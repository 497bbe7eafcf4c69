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
  await writeFile(join(root, 'broken.md'), '---\ntitle: [unclosed\n---\nThe body survives.\n');
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
    // A malformed frontmatter reads as empty too: the page stays, with its body.
    expect(wiki.page('broken')?.content).toBe('The body survives.\n');
    expect(wiki.pageList).toHaveLength(3);
    // Each file whose YAML read as empty is a problem naming its line (raf index shows them).
    expect([...wiki.problems].sort()).toEqual([
      'broken.md:2: invalid YAML (Flow sequence in block collection must be sufficiently indented and end with a ]); read as empty',
      expect.stringMatching(/^eng\/_space\.yaml:\d+: invalid YAML \(too many alias expansions/),
      expect.stringMatching(/^eng\/bomb\/_page\.yaml:\d+: invalid YAML \(too many alias expansions/),
      expect.stringMatching(/^note\.md:\d+: invalid YAML \(too many alias expansions .*\); read as empty$/),
    ]);
    await wiki.close();
  });
});
