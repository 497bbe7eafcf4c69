import { ConfigError, getErrorMessage } from '@raf/core';
import type { GuardedHttpClient } from '@raf/web/http';

/** A parsed, dereferenced OpenAPI 3.x or Swagger 2.0 document, read loosely. */
export type ApiDocument = Record<string, unknown>;

/** Specs are bigger than API answers: the cap for the spec and each file it refers to. */
const SPEC_MAX_BYTES = 20 * 1024 * 1024;

export interface SpecSource {
  /** An http(s) URL, fetched through the guard. */
  url?: string;
  /** An absolute file path. */
  path?: string;
}

/**
 * Loads a spec with `@readme/openapi-parser` and dereferences every `$ref`. Remote files (the spec
 * and any file it refers to) are fetched through the guarded client, so a spec cannot make the
 * agent read an internal address; a spec from a URL cannot read local files either. Circular
 * references become circular objects (the tool schemas cut them).
 */
export async function loadSpec(
  source: SpecSource,
  http: GuardedHttpClient,
  signal?: AbortSignal,
): Promise<ApiDocument> {
  const where = source.url ?? source.path ?? '(no spec)';
  // The parser reports a failed read as "Error reading file": keep the reason to say it.
  let readFailure: unknown;
  const { dereference } = await import('@readme/openapi-parser');
  const guardedResolver = {
    order: 1,
    canRead: (file: { url: string }) => /^https?:\/\//i.test(file.url),
    read: async (file: { url: string }) => {
      try {
        const response = await http.request(file.url, {
          ...(signal && { signal }),
          maxBytes: SPEC_MAX_BYTES,
          headers: { accept: 'application/json, application/yaml;q=0.9, text/yaml;q=0.9, */*;q=0.5' },
        });
        if (response.status < 200 || response.status >= 300) {
          throw new Error(`HTTP ${response.status} from ${response.url}`);
        }
        return response.body;
      } catch (error) {
        readFailure = error;
        throw error;
      }
    },
  };
  let document: unknown;
  try {
    document = await dereference(where, {
      dereference: { circular: true },
      // The parser's types name only the HTTP settings; its resolver takes canRead/read as well.
      resolve: { http: guardedResolver as never, ...(source.url && { file: false }) },
    });
  } catch (error) {
    const reason = readFailure ?? error;
    throw new ConfigError(`kind: openapi: cannot load the spec ${where}: ${getErrorMessage(reason)}`, {
      cause: reason,
    });
  }
  const api = document as ApiDocument;
  const version = String(api.openapi ?? api.swagger ?? '');
  if (!/^(2\.0|3\.[01]\.\d+)/.test(version)) {
    throw new ConfigError(
      `kind: openapi: ${where} is not an OpenAPI 3.0/3.1 or Swagger 2.0 document (its version is ${JSON.stringify(version || null)})`,
    );
  }
  return api;
}
