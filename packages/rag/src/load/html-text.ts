/**
 * HTML to markdown-ish text in one linear pass, for pages too large for `node-html-markdown`
 * (its output grows by `+=` and re-reads its tail on each append, which flattens the string every
 * time: quadratic, 100,000 `<p>` took minutes). Headings become `#` lines (the markdown chunker
 * keeps them), block elements line breaks, list items `- ` lines; scripts, styles and the other
 * `ignored` elements are dropped with their content; every other tag is removed. Each search is an
 * `indexOf` from the current position, so malformed input (an unclosed tag or comment) ends the
 * scan instead of rescanning.
 */
export function htmlToTextLinear(
  html: string,
  ignored: readonly string[],
  decode: (text: string) => string,
): string {
  const lower = html.toLowerCase();
  const skip = new Set(ignored);
  const out: string[] = [];
  const text = (piece: string) => {
    if (piece) out.push(decode(piece.replace(/\s+/g, ' ')));
  };
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      text(html.slice(i));
      break;
    }
    text(html.slice(i, lt));
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    const gt = html.indexOf('>', lt + 1);
    if (gt < 0) break; // an unterminated tag: nothing readable follows
    const tag = /^(\/?)\s*([a-z][a-z0-9:-]*)/.exec(lower.slice(lt + 1, Math.min(gt, lt + 40)));
    i = gt + 1;
    if (!tag) continue;
    const closing = tag[1] === '/';
    const name = tag[2] as string;
    if (!closing && skip.has(name) && html[gt - 1] !== '/') {
      const end = lower.indexOf(`</${name}`, i);
      const after = end < 0 ? -1 : html.indexOf('>', end);
      i = after < 0 ? html.length : after + 1;
      continue;
    }
    const heading = /^h([1-6])$/.exec(name);
    if (heading) out.push(closing ? '\n\n' : `\n\n${'#'.repeat(Number(heading[1]))} `);
    else if (name === 'li' && !closing) out.push('\n- ');
    else if (BLOCKS.has(name)) out.push('\n\n');
    else if (name === 'br') out.push('\n');
    else if (name === 'td' || name === 'th') out.push(' ');
  }
  return out
    .join('')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'aside',
  'header',
  'ul',
  'ol',
  'table',
  'tr',
  'blockquote',
  'pre',
  'hr',
  'dl',
  'dt',
  'dd',
  'figure',
  'figcaption',
  'title',
]);
