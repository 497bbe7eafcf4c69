import {
  createToolManifest,
  defineTool,
  getErrorMessage,
  type ITool,
  type JSONValue,
  toolFailure,
  toolSuccess,
} from '@raf/core';
import { z } from 'zod';
import { decodeText } from '../fetch/decode.js';
import type { GuardedHttpClient } from '../http/guarded-http.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The arguments of `http_request` (and of a workflow's `HttpRequestAction`). */
export const httpRequestArguments = z.object({
  url: z.string().trim().min(1).describe('absolute http(s) URL'),
  method: z
    .string()
    .regex(/^[A-Za-z]+$/, 'an HTTP method such as GET or POST')
    .transform((m) => m.toUpperCase())
    .default('GET'),
  headers: z.record(z.string(), z.string()).default({}),
  query: z.record(z.string(), z.string()).default({}).describe('query parameters added to the URL'),
  body: z
    .object({ kind: z.enum(['json', 'raw']), value: z.unknown() })
    .optional()
    .describe('json: sent as JSON; raw: sent as text'),
});

function withQuery(url: string, query: Record<string, string>): string {
  const entries = Object.entries(query);
  if (entries.length === 0) return url;
  const parsed = new URL(url);
  for (const [key, value] of entries) parsed.searchParams.append(key, value);
  return parsed.toString();
}

function encodeBody(body: { kind: 'json' | 'raw'; value?: unknown } | undefined) {
  if (!body) return {};
  if (body.kind === 'json') return { body: JSON.stringify(body.value ?? null), type: 'application/json' };
  return {
    body: typeof body.value === 'string' ? body.value : JSON.stringify(body.value),
    type: 'text/plain',
  };
}

/**
 * Response headers that go to the model: never a cookie the server sets (a session secret that
 * would then sit in the transcript), at most 40 headers of 1,000 characters each (a server chooses
 * how many and how long, the model's context pays).
 */
const HIDDEN_HEADERS = new Set(['set-cookie', 'set-cookie2']);
const MAX_HEADERS = 40;
const MAX_HEADER_CHARS = 1_000;

function modelVisibleHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const visible: Record<string, string> = {};
  let count = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (HIDDEN_HEADERS.has(name.toLowerCase())) continue;
    if (++count > MAX_HEADERS) break;
    visible[name] = value.length > MAX_HEADER_CHARS ? `${value.slice(0, MAX_HEADER_CHARS)}…` : value;
  }
  return visible;
}

/**
 * `http_request {url, method?, headers?, query?, body?}` → `{status, headers, body}` (JSON bodies
 * parsed, others as text), every hop behind the SSRF guard. Methods that change things (POST, PUT,
 * PATCH, DELETE, …) ask for approval when a model calls it; a workflow's `HttpRequestAction`,
 * written by the author, runs it directly.
 */
export function createHttpRequestTool(http: GuardedHttpClient, options: { maxChars?: number } = {}): ITool {
  const maxChars = options.maxChars ?? 40_000;
  return defineTool({
    name: 'http_request',
    kind: 'web',
    manifest: createToolManifest({ kind: 'builtin', supportedInWorker: true, workerRoutingHint: 'local' }),
    description:
      'Send an HTTP request (GET, POST, PUT, PATCH, DELETE, …) and return {status, headers, body}; ' +
      'a JSON answer comes back parsed. Requests to private or local addresses are refused.',
    parameters: httpRequestArguments,
    requiresApproval: (args) => !args || !SAFE_METHODS.has(args.method),
    async execute({ url, method, headers, query, body }, context) {
      // The caller, not the model, asks for the answer as the server sent it (a workflow's
      // HttpRequestAction: its author reads the cookies and the whole JSON).
      const raw = (context.context as { rawHttpResponse?: unknown } | undefined)?.rawHttpResponse === true;
      try {
        const encoded = encodeBody(body as { kind: 'json' | 'raw'; value?: unknown } | undefined);
        const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
        const response = await http.request(withQuery(url, query), {
          method,
          signal: context.signal,
          headers: { ...(encoded.type && !hasType && { 'content-type': encoded.type }), ...headers },
          ...(encoded.body !== undefined && { body: encoded.body }),
        });
        const { text } = decodeText(response.body, response.mediaType, response.charset);
        const tooLong = !raw && text.length > maxChars;
        let parsed: JSONValue = tooLong ? text.slice(0, maxChars) : text;
        // A JSON answer longer than maxChars stays text, cut: parsed, it would reach the model whole.
        const json = response.mediaType === 'application/json' || response.mediaType?.endsWith('+json');
        if (json && !tooLong) {
          try {
            parsed = JSON.parse(text) as JSONValue;
          } catch {
            // not JSON after all: the text stays
          }
        }
        return toolSuccess({
          status: response.status,
          url: response.url,
          headers: raw ? { ...response.headers } : modelVisibleHeaders(response.headers),
          body: parsed,
          ...(tooLong && { truncated: true, totalChars: text.length }),
        });
      } catch (error) {
        if (context.signal.aborted) throw error;
        return toolFailure(`http_request: ${getErrorMessage(error)}`);
      }
    },
  });
}
