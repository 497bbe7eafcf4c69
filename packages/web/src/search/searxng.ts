import { expectOk, parseJson, resultsFrom, type SearchBackend } from './search-backend.js';

/** A SearXNG instance's JSON API (`format=json` must be enabled in its `search.formats`). */
export function searxngBackend(baseUrl: string): SearchBackend {
  return {
    name: 'searxng',
    async search({ query, maxResults, signal }, http) {
      const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const response = await http.request(url, { signal, headers: { accept: 'application/json' } });
      if (response.status === 403) {
        throw new Error(
          `${url.origin} refused JSON output (add "json" to search.formats in its settings.yml)`,
        );
      }
      const body = parseJson(expectOk(response)) as { results?: Record<string, unknown>[] };
      return resultsFrom(body.results, 'content', maxResults);
    },
  };
}
