import type { LoadedDocument } from './document.js';

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

/**
 * Readable text of an HTML page, as markdown (`node-html-markdown`, loaded on first use), so the
 * markdown-aware chunker keeps its headings; navigation, scripts and styles are dropped.
 */
export async function loadHtml(html: string): Promise<LoadedDocument> {
  const { NodeHtmlMarkdown } = await import('node-html-markdown');
  const markdown = NodeHtmlMarkdown.translate(html, { ignore: IGNORED, keepDataImages: false });
  const rawTitle = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const title = rawTitle === undefined ? undefined : decodeEntities(rawTitle).replace(/\s+/g, ' ').trim();
  return {
    format: 'html',
    ...(title && { title }),
    parts: [{ text: markdown, markdown: true, headings: [] }],
  };
}
