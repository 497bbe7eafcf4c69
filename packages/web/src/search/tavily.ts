import { expectOk, parseJson, resultsFrom, type SearchBackend } from './search-backend.js';

/** Tavily's search API (`Authorization: Bearer`). */
export function tavilyBackend(apiKey: string, baseUrl = 'https://api.tavily.com'): SearchBackend {
  return {
    name: 'tavily',
    async search({ query, maxResults, signal }, http) {
      const response = await http.request(new URL('/search', baseUrl), {
        method: 'POST',
        signal,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ query, max_results: maxResults, search_depth: 'basic' }),
      });
      const body = parseJson(expectOk(response)) as { results?: Record<string, unknown>[] };
      return resultsFrom(body.results, 'content', maxResults);
    },
  };
}
