import { getErrorMessage, type ITool, type JSONValue, toolFailure, toolSuccess } from '@raf/core';
import type { GuardedHttpClient, GuardedResponse } from '@raf/web/http';
import type { ApiOperation, SecurityScheme } from '../spec/read-operations.js';
import { authenticate, type Credentials } from './auth.js';
import { encodePathValue, requestUrl } from './request-url.js';
import { operationArguments } from './tool-schema.js';

export interface OperationToolOptions {
  name: string;
  /** Checked by `parseBaseUrl`: every call stays at its origin and under its path. */
  baseUrl: URL;
  http: GuardedHttpClient;
  schemes: Readonly<Record<string, SecurityScheme>>;
  credentials: Credentials;
  /** Sent with every call (`connection.headers`). */
  headers?: Readonly<Record<string, string>>;
  /** Names of the spec's schemas, to say what a recursive property holds. */
  schemaNames?: WeakMap<object, string>;
  /** Ask a human before every call (`approvalMode: always`). */
  requiresApproval?: boolean;
}

const DESCRIPTION_MAX = 1000;
/** How much of a failed answer's body the model sees. */
const EXCERPT = 500;

/** `getPetById` stays; `pets/{id}.get` becomes `pets_id_get`: names the model APIs accept. */
export function sanitizeToolName(name: string): string {
  const clean = name
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  return (clean || 'operation').slice(0, 64);
}

function describe(operation: ApiOperation): string {
  const text = [operation.summary, operation.description].filter(Boolean).join('\n\n');
  const line = `${operation.method} ${operation.path}`;
  const full = text ? `${text}\n\n(${line})` : line;
  return full.length > DESCRIPTION_MAX ? `${full.slice(0, DESCRIPTION_MAX - 1)}…` : full;
}

/** Keys sent in a query string would otherwise show up in the URLs of error messages. */
function redact(message: string, credentials: Credentials): string {
  let out = message;
  for (const secret of [credentials.apiKey, credentials.password]) {
    if (secret) out = out.replaceAll(secret, '***').replaceAll(encodeURIComponent(secret), '***');
  }
  return out;
}

function scalar(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function encodeBody(mediaType: string, value: unknown): string {
  if (mediaType === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams();
    for (const [key, item] of Object.entries((value ?? {}) as Record<string, unknown>)) {
      for (const one of Array.isArray(item) ? item : [item])
        if (one !== undefined) form.append(key, scalar(one));
    }
    return form.toString();
  }
  if (mediaType.includes('json')) return JSON.stringify(value);
  return scalar(value);
}

/** A JSON answer as data, text as a string, anything else described by its size. */
function readAnswer(response: GuardedResponse): JSONValue {
  const type = response.mediaType ?? '';
  if (response.body.length === 0) return null;
  const body = response.body.toString('utf8');
  if (type.includes('json')) {
    try {
      return JSON.parse(body) as JSONValue;
    } catch {
      return body;
    }
  }
  if (type === '' || type.startsWith('text/') || type.includes('xml')) return body;
  return `(${response.body.length} bytes of ${type})`;
}

/** One operation as a tool: its parameters as the tool's schema, the call made through the guard. */
export function createOperationTool(operation: ApiOperation, options: OperationToolOptions): ITool {
  const { schema, map } = operationArguments(operation, options.schemaNames);
  const line = `${operation.method} ${operation.path}`;
  const tool: ITool<Record<string, unknown>> = {
    name: options.name,
    description: describe(operation),
    parameters: schema,
    kind: 'openapi',
    async execute(rawArgs, context) {
      const args = (rawArgs ?? {}) as Record<string, unknown>;
      let path = operation.path;
      const query = new URLSearchParams();
      const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5', ...options.headers };
      const cookies: string[] = [];
      for (const { argument, parameter } of map.parameters) {
        const value = args[argument];
        if (value === undefined || value === null) {
          if (parameter.in === 'path')
            return toolFailure(`${options.name}: missing the path parameter "${argument}"`);
          continue;
        }
        if (parameter.in === 'path') {
          const text = Array.isArray(value) ? value.map(scalar).join(',') : scalar(value);
          const segment = encodePathValue(text);
          if (typeof segment !== 'string')
            return toolFailure(`${options.name}: the path parameter "${argument}" ${segment.refused}`);
          path = path.replaceAll(`{${parameter.name}}`, segment);
        } else if (parameter.in === 'query') {
          if (Array.isArray(value) && parameter.explode)
            for (const item of value) query.append(parameter.name, scalar(item));
          else
            query.append(parameter.name, Array.isArray(value) ? value.map(scalar).join(',') : scalar(value));
        } else if (parameter.in === 'header') headers[parameter.name.toLowerCase()] = scalar(value);
        else cookies.push(`${parameter.name}=${encodeURIComponent(scalar(value))}`);
      }
      const url = requestUrl(options.baseUrl, path, query);
      if (!(url instanceof URL)) return toolFailure(`${options.name}: ${line} refused: ${url.refused}`);
      // Nothing is sent unless the URL is at the API's origin: credentials are added to it only then.
      const auth = authenticate(operation, options.schemes, options.credentials);
      for (const [name, value] of Object.entries(auth.query)) url.searchParams.set(name, value);
      Object.assign(headers, auth.headers);
      if (cookies.length > 0) headers.cookie = [headers.cookie, ...cookies].filter(Boolean).join('; ');
      let body: string | undefined;
      const bodyValue = map.body ? args[map.body] : undefined;
      if (operation.body && bodyValue !== undefined) {
        if (operation.body.mediaType.startsWith('multipart/')) {
          return toolFailure(
            `${options.name}: ${operation.body.mediaType} bodies (file uploads) are not supported`,
          );
        }
        body = encodeBody(operation.body.mediaType, bodyValue);
        headers['content-type'] = operation.body.mediaType;
      }
      let response: GuardedResponse;
      try {
        response = await options.http.request(url, {
          method: operation.method,
          headers,
          ...(body !== undefined && { body }),
          signal: context.signal,
        });
      } catch (error) {
        if (context.signal.aborted) throw error;
        return toolFailure(
          redact(`${options.name}: ${line} failed: ${getErrorMessage(error)}`, options.credentials),
        );
      }
      if (response.status < 200 || response.status >= 300) {
        const excerpt = response.body.toString('utf8', 0, EXCERPT).trim();
        return toolFailure(
          `${options.name}: HTTP ${response.status} from ${line}${excerpt ? `: ${excerpt}` : ''}`,
          {
            status: response.status,
            ...(excerpt && { body: excerpt }),
          },
        );
      }
      return toolSuccess({ status: response.status, body: readAnswer(response) });
    },
  };
  if (options.requiresApproval) tool.requiresApproval = () => true;
  return tool as ITool;
}
