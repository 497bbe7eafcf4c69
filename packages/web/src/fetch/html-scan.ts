/**
 * Linear passes over a page's source, used before (or instead of) building a DOM: linkedom,
 * Readability and Turndown are superlinear in element nesting (and recursive: 10,000 levels
 * overflow the stack), so a page's depth is measured first, in one pass that never recurses.
 */

/** Elements the parser (htmlparser2, under linkedom) never opens: they cannot nest. */
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** Elements whose opening closes an open one on top of the stack (htmlparser2's implied ends). */
const CLOSES_P = new Set(['p']);
const IMPLIED_CLOSE: Record<string, Set<string>> = {
  p: CLOSES_P,
  li: new Set(['li']),
  dt: new Set(['dt', 'dd']),
  dd: new Set(['dt', 'dd']),
  td: new Set(['td', 'th']),
  th: new Set(['td', 'th']),
  tr: new Set(['tr', 'td', 'th']),
  option: new Set(['option']),
  optgroup: new Set(['optgroup', 'option']),
};
for (const tag of 'address article aside blockquote details div dl fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr main nav ol pre section table ul'.split(
  ' ',
)) {
  IMPLIED_CLOSE[tag] ??= CLOSES_P;
}

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

/**
 * The deepest element nesting of `html`, counted as the parser builds it, stopping as soon as it
 * passes `limit` (so the open-element stack, searched on each end tag, stays at most `limit`
 * long: the pass is linear). Where this count and the parser could disagree (an unexpected
 * structure), it errs on counting deeper; and conversion runs under a deadline anyway.
 */
export function nestingDepth(html: string, limit: number): number {
  const stack: string[] = [];
  let deepest = 0;
  let at = html.indexOf('<');
  while (at !== -1 && at < html.length) {
    const closing = html.charCodeAt(at + 1) === 47; // '/'
    const nameStart = at + (closing ? 2 : 1);
    if (!isLetter(html.charCodeAt(nameStart))) {
      // `<!doctype>`, `<?xml?>`, `</ >`, a lone `<`: no element.
      at = html.indexOf('<', at + 1);
      continue;
    }
    let nameEnd = nameStart;
    while (nameEnd < html.length) {
      const code = html.charCodeAt(nameEnd);
      if (isSpace(code) || code === 47 || code === 62) break;
      nameEnd++;
    }
    const name = html.slice(nameStart, nameEnd).toLowerCase();
    const end = tagEnd(html, nameEnd);
    if (closing) {
      const open = stack.lastIndexOf(name);
      if (open !== -1) stack.length = open;
    } else if (!VOID.has(name)) {
      const implied = IMPLIED_CLOSE[name];
      while (implied && stack.length > 0 && implied.has(stack[stack.length - 1] as string)) stack.pop();
      stack.push(name);
      if (stack.length > deepest) {
        deepest = stack.length;
        if (deepest > limit) return deepest;
      }
    }
    if (end === -1) break;
    at = html.indexOf('<', end + 1);
  }
  return deepest;
}

/**
 * Where the tag whose name ends at `from` ends (its `>`), reading attributes as the tokenizer
 * does: a quote starts a quoted value only right after `=`, and a `>` inside it does not end the
 * tag. -1 when the page ends inside the tag.
 */
function tagEnd(html: string, from: number): number {
  let at = from;
  while (at < html.length) {
    const code = html.charCodeAt(at);
    if (code === 62) return at; // '>'
    if (code === 61) {
      // '=': skip spaces, then a quoted value as a whole
      at++;
      while (at < html.length && isSpace(html.charCodeAt(at))) at++;
      const quote = html.charCodeAt(at);
      if (quote === 34 || quote === 39) {
        const close = html.indexOf(quote === 34 ? '"' : "'", at + 1);
        if (close === -1) return -1;
        at = close + 1;
        continue;
      }
      continue;
    }
    at++;
  }
  return -1;
}

const BLOCK_TAG =
  /<\/?(?:p|div|section|article|header|footer|main|aside|nav|h[1-6]|li|ul|ol|dl|dt|dd|tr|table|blockquote|pre|figure|figcaption|br|hr|address|details|summary|title)\b[^<>]*>/gi;
const CELL_TAG = /<\/t[dh]\s*>/gi;
// `[^<>]*`: a scan from one `<` stops at the next `<` or `>`, so the whole pass stays linear
// (`[^>]*` would rescan to the end of the page from every unclosed `<`).
const ANY_TAG = /<\/?[a-zA-Z][^<>]*>|<![^<>]*>|<\?[^<>]*>/g;
const ENTITY = /&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos|nbsp);/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntity(_: string, body: string): string {
  const key = body.toLowerCase();
  if (key.startsWith('#')) {
    const code = key.startsWith('#x') ? Number.parseInt(key.slice(2), 16) : Number.parseInt(key.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\uFFFD';
  }
  return NAMED[key] ?? '';
}

/**
 * The text of a page without building a DOM, one line per block: what `web_fetch` returns when
 * the page is too deep or too large to convert, or its conversion ran out of time. Regular
 * expressions that never backtrack across the page, so linear in its size. `html` has already
 * lost its scripts, styles and comments (`stripNoise`).
 */
export function linearText(html: string): { text: string; title?: string } {
  const titleMatch = /<title\b[^<>]*>([^<]*)<\/title/i.exec(html);
  const title = titleMatch?.[1]?.replace(ENTITY, decodeEntity).replace(/\s+/g, ' ').trim() || undefined;
  const body = html.search(/<body\b/i);
  const text = (body === -1 ? html : html.slice(body))
    .replace(BLOCK_TAG, '\n')
    .replace(CELL_TAG, '\t')
    .replace(ANY_TAG, '')
    .replace(ENTITY, decodeEntity)
    .split('\n')
    .map((line) => line.replace(/[ \f\r\u00a0]+/g, ' ').trim())
    .filter((line, i, lines) => line !== '' || (i > 0 && lines[i - 1] !== ''))
    .join('\n')
    .trim();
  return title ? { text, title } : { text };
}
