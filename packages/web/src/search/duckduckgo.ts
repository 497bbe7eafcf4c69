import { decodeText } from '../fetch/decode.js';
import { htmlLibraries } from '../fetch/html-libraries.js';
import {
  expectOk,
  plainSnippet,
  type SearchBackend,
  type SearchResult,
  tidyResults,
} from './search-backend.js';

/** DuckDuckGo wraps result links as `//duckduckgo.com/l/?uddg=<target>&rut=…`. */
function targetOf(href: string): string {
  try {
    const url = new URL(href, 'https://duckduckgo.com');
    return url.pathname === '/l/' ? (url.searchParams.get('uddg') ?? '') : url.href;
  } catch {
    return '';
  }
}

/** Reads the results of DuckDuckGo's HTML page; ads (`result--ad`) are left out. */
export async function parseDuckDuckGoHtml(html: string, max: number): Promise<SearchResult[]> {
  const { parseHTML } = await htmlLibraries();
  const { document } = parseHTML(html);
  if (document.querySelector('.anomaly-modal, #challenge-form, form[action*="anomaly"]')) {
    throw new Error('DuckDuckGo asked for a bot check (too many queries from this address); retry later');
  }
  const results: SearchResult[] = [];
  for (const item of document.querySelectorAll('.result')) {
    if (item.classList.contains('result--ad')) continue;
    const link = item.querySelector('a.result__a');
    if (!link) continue;
    results.push({
      title: plainSnippet(link.textContent, 200),
      url: targetOf(link.getAttribute('href') ?? ''),
      snippet: plainSnippet(item.querySelector('.result__snippet')?.textContent ?? ''),
    });
  }
  return tidyResults(results, max);
}

/** DuckDuckGo's HTML endpoint: no key, no JavaScript. */
export function duckDuckGoBackend(
  baseUrl = 'https://html.duckduckgo.com/html/',
  region?: string,
): SearchBackend {
  return {
    name: 'duckduckgo',
    async search({ query, maxResults, signal }, http) {
      const url = new URL(baseUrl);
      url.searchParams.set('q', query);
      if (region) url.searchParams.set('kl', region);
      const response = expectOk(await http.request(url, { signal, headers: { accept: 'text/html' } }));
      const { text } = decodeText(response.body, response.mediaType, response.charset);
      return parseDuckDuckGoHtml(text, maxResults);
    },
  };
}
