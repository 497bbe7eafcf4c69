import { defineTool, getErrorMessage, type ITool, type JSONValue, toolFailure, toolSuccess } from '@raf/core';
import { z } from 'zod';
import type { GuardedHttpClient } from '../http/guarded-http.js';
import { WEB_TOOL_MANIFESTS } from '../web-manifests.js';
import { CONVERT_LIMITS, convertContent } from './convert.js';
import { decodeText, isHtml, isTextual, looksBinary } from './decode.js';
import { FETCH_MODES, type FetchMode } from './extract.js';

export interface WebFetchOptions {
  /** Mode when the model does not name one (default `markdown`). */
  defaultMode?: FetchMode;
  /** Longest content handed to the model, in characters (default 40,000); the rest is cut. */
  maxChars?: number;
  /**
   * Longest a page's conversion (every mode but `raw`) may run, in its worker thread, before the
   * page's plain text is returned instead, with a `warning` (default 10,000 ms).
   */
  convertTimeoutMs?: number;
}

function refuseBinary(mediaType: string | undefined, url: string): string | undefined {
  if (mediaType === undefined || isTextual(mediaType)) return undefined;
  return `${url} is ${mediaType}, not a text page: web_fetch reads HTML, text, JSON and XML only`;
}

/** `web_fetch {url, mode?}` → the page in the asked form, with its final URL, status and title. */
export function createWebFetchTool(http: GuardedHttpClient, options: WebFetchOptions = {}): ITool {
  const defaultMode = options.defaultMode ?? 'markdown';
  const maxChars = options.maxChars ?? 40_000;
  const convertTimeoutMs = options.convertTimeoutMs ?? CONVERT_LIMITS.timeoutMs;
  return defineTool({
    manifest: WEB_TOOL_MANIFESTS.web_fetch,
    name: 'web_fetch',
    kind: 'web',
    description:
      'Fetch a web page (http or https) and return its content. mode: markdown (the main article as Markdown, ' +
      'the default), plaintext, readability (article HTML), cleaned (page HTML without scripts and styles), raw.',
    parameters: z.object({
      url: z.string().trim().min(1).describe('absolute http(s) URL'),
      mode: z.enum(FETCH_MODES).optional().describe(`what to return (default ${defaultMode})`),
    }),
    async execute({ url, mode = defaultMode }, context) {
      try {
        const response = await http.request(url, {
          signal: context.signal,
          headers: {
            accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5',
          },
          refuseContentType: refuseBinary,
        });
        if (response.mediaType === undefined && looksBinary(response.body)) {
          return toolFailure(
            `web_fetch: ${response.url} looks binary (no content type, NUL bytes): not a text page`,
          );
        }
        const { text, encoding } = decodeText(response.body, response.mediaType, response.charset);
        if (response.status < 200 || response.status >= 300) {
          const excerpt = text.slice(0, 300).replace(/\s+/g, ' ').trim();
          return toolFailure(
            `web_fetch: HTTP ${response.status} from ${response.url}${excerpt ? `: ${excerpt}` : ''}`,
            {
              status: response.status,
              url: response.url,
            },
          );
        }
        const extracted = await convertContent(text, {
          mode,
          signal: context.signal,
          timeoutMs: convertTimeoutMs,
          html: isHtml(response.mediaType) || (response.mediaType === undefined && /^\s*</.test(text)),
          url: response.url,
        });
        const truncated = extracted.content.length > maxChars;
        const data: Record<string, JSONValue> = {
          url: response.url,
          status: response.status,
          contentType: response.mediaType ?? null,
          encoding,
          mode,
          ...(response.redirects.length > 0 && { redirectedFrom: response.redirects[0] as string }),
          ...extracted,
          content: truncated ? extracted.content.slice(0, maxChars) : extracted.content,
          ...(truncated && { truncated: true, totalChars: extracted.content.length }),
        };
        return toolSuccess(data);
      } catch (error) {
        if (context.signal.aborted) throw error;
        return toolFailure(`web_fetch: ${getErrorMessage(error)}`);
      }
    },
  });
}
