import { getErrorMessage } from '@raf/core';
import type { GuardedHttpClient, GuardedResponse } from '../http/guarded-http.js';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchRequest {
  query: string;
  maxResults: number;
  signal: AbortSignal;
}

/** One search service. `search` throws on any failure; the tool names the backend in its error. */
export interface SearchBackend {
  readonly name: string;
  search(request: SearchRequest, http: GuardedHttpClient): Promise<SearchResult[]>;
}

/** Fails on a non-2xx answer with its status and the start of its body. */
export function expectOk(response: GuardedResponse): GuardedResponse {
  if (response.status >= 200 && response.status < 300) return response;
  const excerpt = response.body.toString('utf8', 0, 300).replace(/\s+/g, ' ').trim();
  throw new Error(`HTTP ${response.status} from ${response.url}${excerpt ? `: ${excerpt}` : ''}`);
}

export function parseJson(response: GuardedResponse): unknown {
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch (error) {
    throw new Error(`${response.url} did not answer JSON: ${getErrorMessage(error)}`);
  }
}

/** Snippets carry highlighting tags and entities; the model reads plain text. */
export function plainSnippet(text: unknown, max = 400): string {
  if (typeof text !== 'string') return '';
  const plain = text
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|#x27|nbsp);/g, (_, e: string) =>
      e === 'amp' ? '&' : e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'quot' ? '"' : e === 'nbsp' ? ' ' : "'",
    )
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
}

/** Keeps results with a title and an http(s) URL, at most `max`. */
export function tidyResults(results: SearchResult[], max: number): SearchResult[] {
  return results.filter((r) => r.title && /^https?:\/\//i.test(r.url)).slice(0, max);
}

/** Reads a JSON API's result list (`{title, url, <snippetKey>}` items). */
export function resultsFrom(items: unknown, snippetKey: string, max: number): SearchResult[] {
  if (!Array.isArray(items)) throw new Error('the answer has no result list');
  const results = (items as Record<string, unknown>[]).map((r) => ({
    title: plainSnippet(r.title, 200),
    url: typeof r.url === 'string' ? r.url : '',
    snippet: plainSnippet(r[snippetKey]),
  }));
  return tidyResults(results, max);
}
