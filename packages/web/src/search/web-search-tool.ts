import { ConfigError, defineTool, getErrorMessage, type ITool, toolFailure, toolSuccess } from '@raf/core';
import { z } from 'zod';
import type { WebConfig } from '../config/web-config.js';
import type { GuardedHttpClient } from '../http/guarded-http.js';
import { WEB_TOOL_MANIFESTS } from '../web-manifests.js';
import { braveBackend } from './brave.js';
import { duckDuckGoBackend } from './duckduckgo.js';
import type { SearchBackend } from './search-backend.js';
import { searxngBackend } from './searxng.js';
import { tavilyBackend } from './tavily.js';

const KEY_VARIABLES = { brave: 'BRAVE_API_KEY', tavily: 'TAVILY_API_KEY' } as const;

function apiKeyOf(
  config: WebConfig,
  backend: 'brave' | 'tavily',
  env: Readonly<Record<string, string | undefined>>,
): string {
  const variable = config.connection?.keyEnvVar ?? KEY_VARIABLES[backend];
  const key = config.apiKey ?? config.connection?.apiKey ?? env[variable];
  if (!key) {
    throw new ConfigError(
      `web_search backend "${backend}" needs an API key: config.apiKey (e.g. $${variable}) or ${variable} in the environment`,
    );
  }
  return key;
}

/** The backend a config names; a missing key or URL is a `ConfigError` at build time. */
export function searchBackendFor(
  config: WebConfig,
  env: Readonly<Record<string, string | undefined>>,
): SearchBackend {
  const baseUrl = config.baseUrl ?? config.connection?.endpoint;
  switch (config.backend) {
    case 'duckduckgo':
      return duckDuckGoBackend(baseUrl, config.region);
    case 'searxng':
      if (!baseUrl) {
        throw new ConfigError(
          'web_search backend "searxng" needs config.baseUrl (your instance, e.g. http://127.0.0.1:8888)',
        );
      }
      return searxngBackend(baseUrl);
    case 'brave':
      return braveBackend(apiKeyOf(config, 'brave', env), baseUrl);
    case 'tavily':
      return tavilyBackend(apiKeyOf(config, 'tavily', env), baseUrl);
  }
}

/** `web_search {query, max_results?}` → `{results: [{title, url, snippet}]}`. */
export function createWebSearchTool(
  backend: SearchBackend,
  http: GuardedHttpClient,
  defaultResults = 5,
): ITool {
  return defineTool({
    manifest: WEB_TOOL_MANIFESTS.web_search,
    name: 'web_search',
    kind: 'web',
    description:
      'Search the web. Returns up to max_results results, each {title, url, snippet}; read a page with web_fetch.',
    parameters: z.object({
      query: z.string().trim().min(1).describe('what to search for'),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(20)
        .optional()
        .describe(`results wanted (default ${defaultResults})`),
    }),
    async execute({ query, max_results }, context) {
      try {
        const results = await backend.search(
          { query, maxResults: max_results ?? defaultResults, signal: context.signal },
          http,
        );
        return toolSuccess({ query, backend: backend.name, results: results.map((r) => ({ ...r })) });
      } catch (error) {
        if (context.signal.aborted) throw error;
        return toolFailure(`web_search: the ${backend.name} backend failed: ${getErrorMessage(error)}`);
      }
    },
  });
}
