import type { DomDocument, DomElement, DomNode } from './dom.js';
import { htmlLibraries } from './html-libraries.js';

export const FETCH_MODES = ['raw', 'cleaned', 'readability', 'markdown', 'plaintext'] as const;
/**
 * `raw`: the text as served; `cleaned`: the page's HTML without scripts, styles, hidden parts and
 * attributes other than links; `readability`: the main article's HTML (Firefox Reader View's
 * algorithm); `markdown`: that article as Markdown; `plaintext`: its text, one block per line.
 */
export type FetchMode = (typeof FETCH_MODES)[number];

export interface Extracted {
  content: string;
  title?: string;
  byline?: string;
  excerpt?: string;
  siteName?: string;
  publishedTime?: string;
  lang?: string;
  /** `article`: Readability found the main content; `page`: the whole (cleaned) page was used. */
  source?: 'article' | 'page';
}

const NOISE_OPENER = /<(script|style|svg|template)\b[^>]*>|<!--/gi;

/**
 * Drops scripts (except JSON-LD, which Readability reads for metadata), styles, inline SVG,
 * templates and comments from the source before it is parsed: on heavy pages they are most of
 * the bytes and none of the text. One left-to-right pass; an unclosed element ends the page, as
 * the HTML parser would treat it.
 */
export function stripNoise(html: string): string {
  const lower = html.toLowerCase();
  const kept: string[] = [];
  let from = 0;
  NOISE_OPENER.lastIndex = 0;
  for (let match = NOISE_OPENER.exec(html); match; match = NOISE_OPENER.exec(html)) {
    const tag = match[1]?.toLowerCase();
    if (tag === 'script' && match[0].toLowerCase().includes('ld+json')) continue;
    const closer = tag ? `</${tag}` : '-->';
    const close = lower.indexOf(closer, match.index + match[0].length);
    kept.push(html.slice(from, match.index));
    if (close === -1) return kept.join('');
    const end = tag ? lower.indexOf('>', close) : close + 2;
    if (end === -1) return kept.join('');
    from = end + 1;
    NOISE_OPENER.lastIndex = from;
  }
  kept.push(html.slice(from));
  return kept.join('');
}

const REMOVED =
  'script,style,noscript,template,iframe,object,embed,svg,canvas,link,meta,form,button,input,select,textarea,[hidden],[aria-hidden="true"],[role="dialog"],[role="alertdialog"]';
const KEPT_ATTRIBUTES = new Set(['href', 'src', 'alt', 'title', 'colspan', 'rowspan', 'lang']);

async function parsePage(html: string, url: string, stripped: boolean): Promise<DomDocument> {
  const { parseHTML } = await htmlLibraries();
  const { document } = parseHTML(stripped ? html : stripNoise(html));
  // Readability resolves links against the document's base: give it the page's URL.
  if (!document.querySelector('base[href]') && document.head) {
    const base = document.createElement('base');
    base.setAttribute('href', url);
    document.head.prepend(base);
  }
  return document;
}

function absolute(value: string, base: string): string {
  try {
    return new URL(value, base).href;
  } catch {
    return value;
  }
}

/** The page body without noise, with only link-like attributes, links made absolute. */
function cleanBody(document: DomDocument, url: string): DomElement {
  for (const element of document.querySelectorAll(REMOVED)) element.remove();
  const body = document.body ?? document.documentElement;
  for (const element of body.querySelectorAll('*')) {
    for (const name of element.getAttributeNames()) {
      if (!KEPT_ATTRIBUTES.has(name)) element.removeAttribute(name);
      else if (name === 'href' || name === 'src') {
        element.setAttribute(name, absolute(element.getAttribute(name) ?? '', url));
      }
    }
  }
  return body;
}

const BLOCK = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'HEADER',
  'FOOTER',
  'MAIN',
  'ASIDE',
  'NAV',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'LI',
  'UL',
  'OL',
  'DL',
  'DT',
  'DD',
  'TR',
  'TABLE',
  'BLOCKQUOTE',
  'PRE',
  'FIGURE',
  'FIGCAPTION',
  'BR',
  'HR',
  'ADDRESS',
  'DETAILS',
  'SUMMARY',
]);

const CELL = new Set(['TD', 'TH']);

/**
 * Text with a line break at each block boundary and a tab between table cells; runs of spaces
 * and blank lines collapsed, except inside `<pre>`, which keeps its lines as they are.
 */
export function blockText(root: DomElement): string {
  const parts: string[] = [];
  const preformatted: string[] = [];
  const walk = (node: DomNode) => {
    if (node.nodeType === 3) parts.push(node.nodeValue ?? '');
    else if (node.nodeType === 1) {
      const tag = (node as DomElement).tagName;
      if (tag === 'PRE') {
        // A placeholder survives the collapsing below; the text goes back in afterwards.
        parts.push(`\n\uE000${preformatted.push((node.textContent ?? '').replace(/\n$/, '')) - 1}\uE000\n`);
        return;
      }
      const block = BLOCK.has(tag);
      if (block) parts.push('\n');
      for (let child = node.firstChild; child; child = child.nextSibling) walk(child);
      if (block) parts.push('\n');
      else if (CELL.has(tag)) parts.push('\t');
    }
  };
  walk(root);
  return parts
    .join('')
    .split('\n')
    .map((line) =>
      line
        .replace(/[ \f\r\u00a0]+/g, ' ')
        .replace(/ ?\t ?/g, '\t')
        .trim(),
    )
    .filter((line, i, lines) => line !== '' || (i > 0 && lines[i - 1] !== ''))
    .join('\n')
    .replace(/\uE000(\d+)\uE000/g, (_, i: string) => preformatted[Number(i)] ?? '')
    .trim();
}

function collapse(html: string): string {
  return html.replace(/\s{2,}/g, (space) => (space.includes('\n') ? '\n' : ' ')).trim();
}

/**
 * Turns fetched text into what the mode asks for; non-HTML text is returned as it is. In this
 * thread and unbounded (a hostile page can take minutes or overflow the stack): pages from
 * outside go through `convertContent`, which measures them first and runs this in a worker.
 */
export async function extractContent(
  text: string,
  /** `noiseStripped`: `text` has already been through `stripNoise` (`convertContent` did it). */
  options: { mode: FetchMode; html: boolean; url: string; noiseStripped?: boolean },
): Promise<Extracted> {
  const { mode, html, url } = options;
  const stripped = options.noiseStripped === true;
  if (mode === 'raw' || !html) return { content: text };
  const document = await parsePage(text, url, stripped);
  const title = document.title?.trim() || undefined;
  if (mode === 'cleaned')
    return { content: collapse(cleanBody(document, url).innerHTML), ...(title && { title }) };
  const { Readability, turndown } = await htmlLibraries();
  // Readability drops classes; code blocks keep `language-*` so Markdown fences name the language.
  const languages = new Set<string>();
  for (const code of document.querySelectorAll('pre [class*="language-"], pre[class*="language-"]')) {
    for (const name of code.classList) if (name.startsWith('language-')) languages.add(name);
  }
  const article = new Readability(document as never, {
    serializer: (element) => element,
    classesToPreserve: [...languages],
  }).parse() as {
    content: DomElement | null;
    title?: string | null;
    byline?: string | null;
    excerpt?: string | null;
    siteName?: string | null;
    publishedTime?: string | null;
    lang?: string | null;
  } | null;
  let root: DomElement;
  let found: Extracted;
  if (article?.content) {
    root = article.content;
    found = { content: '', source: 'article' };
    for (const key of ['title', 'byline', 'excerpt', 'siteName', 'publishedTime', 'lang'] as const) {
      const value = article[key]?.trim();
      if (value) found[key] = value;
    }
  } else {
    // Readability changed the document while it looked: start again from the source.
    root = cleanBody(await parsePage(text, url, stripped), url);
    found = { content: '', source: 'page', ...(title && { title }) };
  }
  // Readability makes its wrappers with createElement('DIV'); linkedom keeps that spelling.
  if (mode === 'readability') found.content = collapse(root.innerHTML.replace(/<(\/?)DIV\b/g, '<$1div'));
  // Turndown takes the node as it is (no serialising and re-parsing), except with tables: the
  // GFM table rule reads `table.rows`, which linkedom lacks, so those go through Turndown's parser.
  else if (mode === 'markdown') {
    found.content = turndown.turndown(root.querySelector('table') ? root.outerHTML : (root as never));
  } else found.content = blockText(root);
  return found;
}
