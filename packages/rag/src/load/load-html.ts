import type { LoadedDocument } from './document.js';
import { htmlToTextLinear } from './html-text.js';

/** Page furniture that is not the document's text. */
const IGNORED = [
  'script',
  'style',
  'noscript',
  'template',
  'nav',
  'footer',
  'iframe',
  'svg',
  'form',
  'button',
];

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&');
}

/** Above this many characters the linear converter is used (see `htmlToTextLinear`). */
export const LINEAR_HTML_CHARS = 64 * 1024;

/**
 * Readable text of an HTML page, as markdown (`node-html-markdown`, loaded on first use), so the
 * markdown-aware chunker keeps its headings; navigation, scripts and styles are dropped. Pages
 * over `LINEAR_HTML_CHARS` take the linear path (headings, paragraphs and lists kept; links and
 * emphasis as plain text), so indexing time grows with the page, not its square.
 */
export async function loadHtml(html: string): Promise<LoadedDocument> {
  let markdown: string;
  if (html.length > LINEAR_HTML_CHARS) markdown = htmlToTextLinear(html, IGNORED, decodeEntities);
  else {
    const { NodeHtmlMarkdown } = await import('node-html-markdown');
    markdown = NodeHtmlMarkdown.translate(html, { ignore: IGNORED, keepDataImages: false });
  }
  const lower = html.length > LINEAR_HTML_CHARS ? html.toLowerCase() : undefined;
  const rawTitle = lower ? titleLinear(html, lower) : /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const title = rawTitle === undefined ? undefined : decodeEntities(rawTitle).replace(/\s+/g, ' ').trim();
  return {
    format: 'html',
    ...(title && { title }),
    parts: [{ text: markdown, markdown: true, headings: [] }],
  };
}

/** The first `<title>`'s text by `indexOf` (a regex would rescan on each unclosed `<title`). */
function titleLinear(html: string, lower: string): string | undefined {
  const open = lower.indexOf('<title');
  if (open < 0) return undefined;
  const start = html.indexOf('>', open);
  const end = start < 0 ? -1 : lower.indexOf('</title', start);
  return end < 0 ? undefined : html.slice(start + 1, end);
}
