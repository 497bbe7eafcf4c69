import { describe, expect, it } from 'vitest';
import { makePdf } from '../test-support/make-pdf.js';
import { formatOf } from './document.js';
import { loadDocument } from './load-document.js';

const encode = (text: string) => new TextEncoder().encode(text);

describe('formatOf', () => {
  it('knows files by extension and downloads by content type', () => {
    expect(formatOf('a/b.MD')).toBe('markdown');
    expect(formatOf('notes.txt')).toBe('text');
    expect(formatOf('page.htm')).toBe('html');
    expect(formatOf('paper.pdf')).toBe('pdf');
    expect(formatOf('image.png')).toBeUndefined();
    expect(formatOf('https://x.test/docs?page=1', 'text/html; charset=utf-8')).toBe('html');
    expect(formatOf('https://x.test/raw', 'text/plain')).toBe('text');
  });
});

describe('loadDocument', () => {
  it('markdown: frontmatter title, body without the frontmatter', async () => {
    const doc = await loadDocument(
      encode('---\ntitle: Setup guide\ntags: [a]\n---\n# Heading\nBody'),
      'markdown',
    );
    expect(doc.title).toBe('Setup guide');
    expect(doc.parts[0]?.text).toBe('# Heading\nBody');
  });

  it('markdown without frontmatter takes its first heading as title', async () => {
    expect((await loadDocument(encode('intro\n# Real title\ntext'), 'markdown')).title).toBe('Real title');
  });

  it('html: readable text as markdown with headings; scripts, styles and navigation dropped', async () => {
    const html = `<!doctype html><html><head><title>Tea &amp; Biscuits</title><style>body{color:red}</style>
      <script>window.secret = "do not index"</script></head><body><nav><a href="/">Home</a> | <a href="/x">Menu</a></nav>
      <h1>Brewing</h1><p>Steep green tea for <b>two minutes</b>.</p><h2>Water</h2><p>Use water at 80 degrees.</p>
      <footer>Copyright</footer></body></html>`;
    const doc = await loadDocument(encode(html), 'html');
    expect(doc.title).toBe('Tea & Biscuits');
    const text = doc.parts[0]?.text ?? '';
    expect(text).toContain('# Brewing');
    expect(text).toContain('## Water');
    expect(text).toContain('Steep green tea for **two minutes**.');
    expect(text).not.toMatch(/secret|color:red|Menu|Copyright/);
  });

  it('pdf: one part per page, headed "page N", with the document title', async () => {
    const pdf = await makePdf('Field notes', [
      ['Zebras migrate in the dry season.'],
      ['Lions rest in the shade.'],
    ]);
    const doc = await loadDocument(pdf, 'pdf');
    expect(doc.title).toBe('Field notes');
    expect(doc.parts.map((p) => [p.headings, p.text.trim()])).toEqual([
      [['page 1'], 'Zebras migrate in the dry season.'],
      [['page 2'], 'Lions rest in the shade.'],
    ]);
  });

  it('a broken pdf is an error, not a crash', async () => {
    await expect(loadDocument(encode('%PDF-1.7 not really'), 'pdf')).rejects.toThrow();
  });
});
