import {
  ConfigError,
  type Declaration,
  definePlugin,
  type ITool,
  type PluginBuildContext,
  type RafPlugin,
} from '@raf/core';
import { parseWebConfig, type WebConfig, webConfigSchema } from './config/web-config.js';
import { createWebFetchTool } from './fetch/web-fetch-tool.js';
import type { HostResolver } from './http/guarded-connector.js';
import { GuardedHttpClient } from './http/guarded-http.js';
import { createHttpRequestTool } from './request/http-request-tool.js';
import { createWebSearchTool, searchBackendFor } from './search/web-search-tool.js';
import { WEB_TOOL_MANIFESTS } from './web-manifests.js';

/** The tools `kind: web` expands to when the entry has no `name` (rule 6). */
export const WEB_TOOL_NAMES = ['web_search', 'web_fetch'] as const;

/** Named only: `http_request` (any method; the ones that change things ask for approval). */
const ALL_WEB_TOOLS: readonly string[] = [...WEB_TOOL_NAMES, 'http_request'];

export interface WebPluginOptions {
  /** How host names are resolved before the SSRF guard checks them (default: the system's). */
  resolver?: HostResolver;
}

/** A guarded client configured from a tool entry's `config`. */
export function httpClientFor(config: WebConfig, resolver?: HostResolver): GuardedHttpClient {
  try {
    return new GuardedHttpClient({
      ...(config.allowPrivate && { allowPrivate: config.allowPrivate }),
      ...(config.maxBytes !== undefined && { maxBytes: config.maxBytes }),
      ...(config.timeoutMs !== undefined && { timeoutMs: config.timeoutMs }),
      ...(config.maxRedirects !== undefined && { maxRedirects: config.maxRedirects }),
      ...(config.userAgent !== undefined && { userAgent: config.userAgent }),
      ...(resolver && { resolver }),
    });
  } catch (error) {
    throw new ConfigError(`kind: web config.allowPrivate: ${(error as Error).message}`, { cause: error });
  }
}

function webTools(decl: Declaration, context: PluginBuildContext, options: WebPluginOptions): ITool[] {
  const name = decl.name ?? '';
  if (!ALL_WEB_TOOLS.includes(name)) {
    throw new ConfigError(`kind: web has the tools ${ALL_WEB_TOOLS.join(', ')} (got "${name}")`);
  }
  const config = parseWebConfig(decl.config);
  const http = httpClientFor(config, options.resolver);
  if (name === 'web_search') {
    return [createWebSearchTool(searchBackendFor(config, context.env), http, config.maxResults)];
  }
  if (name === 'http_request') return [createHttpRequestTool(http, { maxChars: config.maxChars })];
  return [createWebFetchTool(http, { defaultMode: config.defaultMode, maxChars: config.maxChars })];
}

/**
 * `kind: web` for `DeclAgentBuilder.use()`: `web_search` and `web_fetch`, every request behind the
 * SSRF guard. Registers nothing on import.
 */
export function webPlugin(options: WebPluginOptions = {}): RafPlugin {
  return definePlugin({
    specificationVersion: 'v1',
    packageName: '@raf/web',
    // A resolver is code: a sub-agent's worker cannot get it (its sub-agents then run inline).
    ...(options.resolver && { options: false as const }),
    toolKinds: { web: (decl, context) => webTools(decl, context, options) },
    toolExpansions: { web: WEB_TOOL_NAMES },
    toolManifests: WEB_TOOL_MANIFESTS,
    configSchemas: { tools: { web: webConfigSchema } },
  });
}
