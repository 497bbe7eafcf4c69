import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stripNoise } from './extract.js';
import { linearText, nestingDepth } from './html-scan.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../test-support/fixtures/${name}`, import.meta.url), 'utf8');

describe('nestingDepth', () => {
  it('counts open elements as the parser builds them', () => {
    expect(nestingDepth('<html><body><div><span>x</span></div></body></html>', 100)).toBe(4);
    expect(nestingDepth('<div><br><img src=a><input></div>', 100)).toBe(1); // void elements
    expect(nestingDepth(`<ul>${'<li>item'.repeat(500)}</ul>`, 100)).toBe(2); // <li> closes <li>
    expect(nestingDepth(`<body>${'<p>para'.repeat(500)}`, 100)).toBe(2); // unclosed <p>
    expect(nestingDepth(`<table>${'<tr><td>a<td>b'.repeat(200)}</table>`, 100)).toBe(3);
    expect(nestingDepth('<div><b>x</div><div>y</div>', 100)).toBe(2); // </div> closes the <b> too
  });

  it('stops past the limit, and is not fooled by stray end tags or quoted ">"', () => {
    expect(nestingDepth('<div>'.repeat(100_000), 128)).toBe(129);
    expect(nestingDepth('<div></span>'.repeat(1_000), 128)).toBe(129);
    expect(nestingDepth('<div title="a > b" data-x=\'<\'>'.repeat(1_000), 128)).toBe(129);
    expect(nestingDepth('<p><span>'.repeat(1_000), 128)).toBe(129);
  });

  it('finds the test pages well inside the limit', () => {
    for (const name of ['docs-page.html', 'news-article.html', 'legacy-windows-1251.html']) {
      expect(nestingDepth(stripNoise(fixture(name)), 128)).toBeLessThan(30);
    }
  });

  it('is linear: a megabyte of stray "<" and quotes in milliseconds', () => {
    const started = performance.now();
    nestingDepth(`<a x="${'<'.repeat(1_000_000)}`, 128);
    nestingDepth("<a b='c".repeat(200_000), 128);
    linearText('<'.repeat(1_000_000));
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('linearText', () => {
  it('one line per block, tabs between cells, entities decoded, the title apart', () => {
    const page =
      '<html><head><title>Fish &amp; chips</title></head><body><h1>Menu</h1><p>Cod &lt;fried&gt;&nbsp;&#169;</p>' +
      '<table><tr><td>Cod</td><td>9</td></tr></table><div><span>a</span> <b>b</b></div></body></html>';
    expect(linearText(page)).toEqual({
      title: 'Fish & chips',
      text: 'Menu\n\nCod <fried> ©\n\nCod\t9\n\na b',
    });
  });
});
