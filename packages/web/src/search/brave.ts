import { expectOk, parseJson, resultsFrom, type SearchBackend } from './search-backend.js';

/** Brave Search's Web Search API (`X-Subscription-Token`). */
export function braveBackend(apiKey: string, baseUrl = 'https://api.search.brave.com'): SearchBackend {
  return {
    name: 'brave',
    async search({ query, maxResults, signal }, http) {
      const url = new URL('/res/v1/web/search', baseUrl);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(maxResults, 20)));
      const response = await http.request(url, {
        signal,
        headers: { accept: 'application/json', 'x-subscription-token': apiKey },
      });
      const body = parseJson(expectOk(response)) as { web?: { results?: Record<string, unknown>[] } };
      return resultsFrom(body.web?.results ?? [], 'description', maxResults);
    },
  };
}
