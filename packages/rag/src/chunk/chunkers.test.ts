import { describe, expect, it } from 'vitest';
import { CHARS_PER_TOKEN } from './chunk.js';
import { chunkMarkdown, markdownSections } from './markdown-chunker.js';
import { chunkRecursive } from './recursive-chunker.js';

const sentence = (i: number) => `Sentence number ${i} talks about topic ${i % 7}.`;

describe('chunkRecursive', () => {
  it('keeps every chunk within chunkSize and repeats up to chunkOverlap of the previous tail', () => {
    const text = Array.from({ length: 60 }, (_, i) => sentence(i)).join(' ');
    // 128 characters a chunk, 64 of overlap: each sentence (~40 characters) is one piece.
    const chunks = chunkRecursive(text, { chunkSize: 32, chunkOverlap: 16 });
    expect(chunks.length).toBeGreaterThan(4);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(32 * CHARS_PER_TOKEN);
    for (let i = 1; i < chunks.length; i++) {
      const first = /^Sentence number \d+/.exec(chunks[i] as string)?.[0] as string;
      expect(chunks[i - 1]).toContain(`${first} `); // the overlap: the previous chunk's tail
    }
    // Pieces larger than the overlap are not repeated: the overlap is an upper bound.
    const noOverlap = chunkRecursive(text, { chunkSize: 32, chunkOverlap: 8 });
    expect(noOverlap.join(' ').length).toBeLessThanOrEqual(text.length + noOverlap.length);
    // Nothing is lost: every sentence is in some chunk.
    for (let i = 0; i < 60; i++) expect(chunks.some((c) => c.includes(sentence(i)))).toBe(true);
  });

  it('splits on paragraphs first, and cuts an unbroken string by characters', () => {
    expect(chunkRecursive('first paragraph\n\nsecond paragraph', { chunkSize: 5, chunkOverlap: 0 })).toEqual([
      'first paragraph',
      'second paragraph',
    ]);
    const long = 'x'.repeat(100);
    const parts = chunkRecursive(long, { chunkSize: 10, chunkOverlap: 0 });
    expect(parts.join('')).toBe(long);
    expect(parts.every((p) => p.length <= 40)).toBe(true);
  });

  it('splits CJK text on the ideographic full stop', () => {
    const text = '这是第一句。这是第二句。这是第三句。'.repeat(20);
    const chunks = chunkRecursive(text, { chunkSize: 16, chunkOverlap: 0 });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.endsWith('。'))).toBe(true);
  });

  it('refuses an overlap that would never advance', () => {
    expect(() => chunkRecursive('text', { chunkSize: 10, chunkOverlap: 10 })).toThrow(
      /smaller than chunkSize/,
    );
  });
});

describe('chunkMarkdown', () => {
  const doc = [
    '# Guide',
    'Intro text.',
    '## Install',
    'Run the installer.',
    '```sh',
    '# not a heading',
    'npm install',
    '```',
    '### From source',
    'Clone and build.',
    '## Use',
    'Call it.',
  ].join('\n');

  it('keeps the heading path of every chunk and ignores # inside code fences', () => {
    const chunks = chunkMarkdown(doc);
    expect(chunks.map((c) => c.headings)).toEqual([
      ['Guide'],
      ['Guide', 'Install'],
      ['Guide', 'Install', 'From source'],
      ['Guide', 'Use'],
    ]);
    expect(chunks[1]?.text).toContain('# not a heading');
  });

  it('never lets a chunk span two sections', () => {
    const sections = markdownSections(doc);
    for (const chunk of chunkMarkdown(doc, { chunkSize: 8, chunkOverlap: 2 })) {
      expect(sections.some((s) => s.body.includes(chunk.text))).toBe(true);
    }
  });

  it('skips levels without inventing empty headings', () => {
    expect(chunkMarkdown('# A\n### C\ntext').map((c) => c.headings)).toEqual([['A', 'C']]);
  });
});
