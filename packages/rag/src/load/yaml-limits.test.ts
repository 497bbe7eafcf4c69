import { describe, expect, it } from 'vitest';
import { loadMarkdown } from './load-markdown.js';

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

describe('knowledge markdown frontmatter is parsed within the shared YAML limits', () => {
  it('an alias bomb in the frontmatter is not expanded: the text stays as text, fast', async () => {
    await import('@raf/framework'); // loaded once, outside the timed part
    const started = Date.now();
    const document = await loadMarkdown(`---\ntitle: Boom\n${bomb()}---\n# Real title\n\nBody.\n`);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(document.title).toBe('Real title');
    expect(document.parts[0]?.text).toContain('x-i: &i');
  }, 60_000);
});
