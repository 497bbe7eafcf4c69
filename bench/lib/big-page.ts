// Deterministic 1 MB HTML pages for the web_fetch benchmark.

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

const WORDS = (
  'the of and to in a is that for it as was with be by on not he this are or his from at which but have an ' +
  'they you were her she there been one all we their has would when if so no will what more out up about said ' +
  'its into than them only some could new other time these two may then do first any my now such like our over ' +
  'council transit harbour plan vote budget workers night service route depot union residents noise fares levy'
).split(' ');

function sentences(next: () => number, count: number): string {
  const out: string[] = [];
  for (let s = 0; s < count; s++) {
    const words: string[] = [];
    const length = 8 + Math.floor(next() * 14);
    for (let w = 0; w < length; w++) words.push(WORDS[Math.floor(next() * WORDS.length)] as string);
    const text = words.join(' ');
    out.push(`${text[0]?.toUpperCase()}${text.slice(1)}.`);
  }
  return out.join(' ');
}

function paragraph(next: () => number, i: number): string {
  const linked = i % 3 === 0 ? ` See <a href="/story/${i}">the earlier report</a>.` : '';
  return `<p>${sentences(next, 3 + Math.floor(next() * 4))}${linked} <em>${sentences(next, 1)}</em></p>`;
}

/**
 * A heavy news page as they come: most bytes are inline scripts (bundles, page state), styles
 * and SVG icons, then site chrome (navigation, related stories, comments, footer); the article is
 * a long read of about 100 KB of HTML (some 12,000 words).
 */
export function newsPage(bytes: number, seed = 7): string {
  const next = random(seed);
  const parts: string[] = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Council approves night transit plan | The Courier</title>',
    '<meta property="og:site_name" content="The Courier">',
    '<script type="application/ld+json">{"@type":"NewsArticle","headline":"Council approves night transit plan","author":{"@type":"Person","name":"Jane Reporter"}}</script>',
    `<style>${Array.from({ length: 1800 }, (_, i) => `.c${i}{margin:${i % 7}px;padding:${i % 5}px}`).join('')}</style>`,
    '</head><body><header class="site-header">',
    `<svg viewBox="0 0 120 30"><path d="${'M1 1L2 2'.repeat(1200)}"/></svg><nav><ul>`,
  ];
  for (let i = 0; i < 150; i++)
    parts.push(`<li class="nav-item c${i}"><a href="/section/${i}">Section ${i}</a></li>`);
  parts.push('</ul></nav></header><main><article class="story"><h1>Council approves night transit plan</h1>');
  parts.push('<p class="byline">By Jane Reporter</p><time datetime="2026-11-30">30 November 2026</time>');
  let article = 0;
  for (let i = 0; article < 100_000; i++) {
    const block =
      (i % 9 === 8 ? `<h2>${sentences(next, 1)}</h2>` : '') +
      paragraph(next, i) +
      (i % 20 === 10
        ? `<figure><img src="/img/${i}.jpg" alt="Photo ${i}"><figcaption>${sentences(next, 1)}</figcaption></figure>`
        : '') +
      (i % 15 === 5 ? `<aside class="ad-slot"><div id="ad-${i}" data-slot="${i}"></div></aside>` : '');
    parts.push(block);
    article += block.length;
  }
  parts.push('</article><section class="related"><h2>Related</h2><ul>');
  for (let i = 0; i < 120; i++) {
    parts.push(
      `<li class="card c${i}"><a href="/story/r${i}"><img src="/t/${i}.jpg" alt=""><span>${sentences(next, 1)}</span></a></li>`,
    );
  }
  parts.push('</ul></section><section class="comments"><h2>Comments</h2>');
  for (let i = 0; i < 150; i++) {
    parts.push(
      `<div class="comment c${i}"><span class="author">reader${i}</span><p>${sentences(next, 2)}</p><button>Reply</button></div>`,
    );
  }
  parts.push('</section></main><footer><ul>');
  for (let i = 0; i < 100; i++) parts.push(`<li><a href="/footer/${i}">Footer link ${i}</a></li>`);
  parts.push('</ul></footer>');
  let size = parts.join('').length;
  for (let k = 0; size < bytes - 40; k++) {
    const items = Array.from({ length: 30 }, (_, j) => ({
      id: k * 100 + j,
      title: sentences(next, 1),
      url: `/story/${j}`,
    }));
    const chunk = `<script>self.__STATE_${k}__=${JSON.stringify({ items })};</script>`;
    parts.push(chunk);
    size += chunk.length;
  }
  parts.push('</body></html>');
  return parts.join('');
}

/** The worst case: a page that is nearly all article text (1 MB of paragraphs and headings). */
export function densePage(bytes: number, seed = 11): string {
  const next = random(seed);
  const parts = [
    '<!doctype html><html><head><meta charset="utf-8"><title>A very long read</title></head><body><article><h1>A very long read</h1>',
  ];
  let size = parts[0]?.length ?? 0;
  for (let i = 0; size < bytes - 40; i++) {
    const block = (i % 8 === 7 ? `<h2>${sentences(next, 1)}</h2>` : '') + paragraph(next, i);
    parts.push(block);
    size += block.length;
  }
  parts.push('</article></body></html>');
  return parts.join('');
}
