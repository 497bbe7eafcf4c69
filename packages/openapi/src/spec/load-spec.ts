import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileInfo, ParserOptions, Plugin, ResolverOptions } from '@apidevtools/json-schema-ref-parser';
import { ConfigError, getErrorMessage } from '@raf/core';
import { parseYaml, readFileInFolder } from '@raf/framework';
import type { GuardedHttpClient } from '@raf/web/http';

/** A parsed, dereferenced OpenAPI 3.x or Swagger 2.0 document, read loosely. */
export type ApiDocument = Record<string, unknown>;

/**
 * What loading one spec may cost, all its files together: a spec is data from outside, so its
 * size, its number of `$ref`'d files and the time spent resolving them are bounded.
 */
export const SPEC_LIMITS = Object.freeze({
  /** Bytes read, the spec and every file it refers to together. */
  maxBytes: 20 * 1024 * 1024,
  /** Files read, the spec included. */
  maxFiles: 100,
  /** Time to replace every `$ref` once the files are read (the crawl is synchronous work). */
  dereferenceMs: 10_000,
});

export interface SpecSource {
  /** An http(s) URL, fetched through the guard. */
  url?: string;
  /** An absolute file path. */
  path?: string;
}

export interface SpecLoadOptions {
  /** Let a local spec `$ref` other files of its own folder (default false: none at all). */
  allowFileRefs?: boolean;
  signal?: AbortSignal;
}

/** JSON when it is JSON (fast, no aliases), else YAML within the shared alias and size limits. */
function parseSpecText(text: string, where: string): unknown {
  const start = text.trimStart()[0];
  if (start === '{' || start === '[') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Not JSON after all: YAML flow syntax starts the same way.
    }
  }
  return parseYaml(text, where, { maxBytes: SPEC_LIMITS.maxBytes, uniqueKeys: false });
}

function filePathOf(url: string): string {
  if (/^file:/i.test(url)) return fileURLToPath(url);
  // The parser keeps plain paths as `encodeURI`d text (`#` and `?` escaped on top).
  return decodeURI(url).replace(/%23/g, '#').replace(/%3F/gi, '?');
}

/**
 * Loads a spec and dereferences every `$ref` (`@apidevtools/json-schema-ref-parser`), within
 * `SPEC_LIMITS`. Every file is parsed here (JSON, or YAML with an alias limit: a 600-byte alias
 * bomb cannot block the event loop); remote files (the spec and any it refers to) are fetched
 * through the guarded client; a local file is read only when it is the spec itself or, with
 * `allowFileRefs`, a file of the spec's folder, through the framework's race-proof read (no link
 * followed, regular files only, non-blocking). A spec from a URL reads no local file. Circular
 * references become circular objects (the tool schemas cut them).
 */
export async function loadSpec(
  source: SpecSource,
  http: GuardedHttpClient,
  options: SpecLoadOptions = {},
): Promise<ApiDocument> {
  const where = source.url ?? source.path ?? '(no spec)';
  const signal = options.signal ?? new AbortController().signal;
  const folder = source.path ? dirname(source.path) : undefined;
  let files = 0;
  let bytes = 0;
  // The parser reports a failed read as "Error reading file": keep the reason to say it.
  let readFailure: unknown;
  const account = (size: number, url: string) => {
    files += 1;
    bytes += size;
    if (files > SPEC_LIMITS.maxFiles)
      throw new Error(`${url}: the spec refers to more than ${SPEC_LIMITS.maxFiles} files`);
    if (bytes > SPEC_LIMITS.maxBytes)
      throw new Error(`${url}: the spec and its files are over ${SPEC_LIMITS.maxBytes} bytes together`);
  };
  const failing =
    <T>(read: (file: FileInfo) => Promise<T>) =>
    async (file: FileInfo): Promise<T> => {
      try {
        return await read(file);
      } catch (error) {
        readFailure ??= error;
        throw error;
      }
    };
  const httpResolver: ResolverOptions = {
    order: 1,
    canRead: (file) => /^https?:\/\//i.test(file.url),
    read: failing(async (file) => {
      const response = await http.request(file.url, {
        signal,
        maxBytes: Math.max(1, SPEC_LIMITS.maxBytes - bytes),
        headers: { accept: 'application/json, application/yaml;q=0.9, text/yaml;q=0.9, */*;q=0.5' },
      });
      if (response.status < 200 || response.status >= 300) {
        throw new Error(`HTTP ${response.status} from ${response.url}`);
      }
      account(response.body.length, file.url);
      return response.body;
    }),
  };
  const fileResolver: ResolverOptions = {
    order: 2,
    canRead: (file) => !/^https?:\/\//i.test(file.url),
    read: failing(async (file) => {
      if (!folder) throw new Error(`${file.url}: a spec loaded from a URL cannot refer to local files`);
      if (!options.allowFileRefs)
        throw new Error(
          `${file.url}: the spec refers to another file; set config.allowFileRefs: true to allow files of its own folder`,
        );
      const path = filePathOf(file.url);
      const body = await readFileInFolder(folder, path, {
        maxBytes: Math.max(1, SPEC_LIMITS.maxBytes - bytes),
        signal,
      });
      account(body.length, path);
      return body;
    }),
  };
  // One parser for every file: no text or binary parser, so a `$ref` cannot pull a non-spec file
  // (a key, /etc/passwd) into the schema as a string.
  const specParser: Plugin = {
    order: 1,
    allowEmpty: false,
    canParse: true,
    parse: (file: FileInfo) => {
      const data = file.data as unknown;
      const text = Buffer.isBuffer(data)
        ? data.toString('utf8')
        : typeof data === 'string'
          ? data
          : undefined;
      if (text === undefined) return data;
      const value = parseSpecText(text, file.url);
      // Any text is a YAML scalar: a file that is not a mapping or a list is not a spec file.
      if (!value || typeof value !== 'object')
        throw new ConfigError(`${file.url}: not a JSON or YAML document (a mapping or a list)`);
      return value;
    },
  };
  const parserOptions: ParserOptions = {
    parse: { json: false, yaml: specParser, text: false, binary: false },
    resolve: { external: true, file: false, http: false, guarded: httpResolver, local: fileResolver },
    dereference: {
      circular: true,
      // OpenAPI 3.1 keeps a `summary`/`description` beside a `$ref`.
      preservedProperties: ['summary', 'description'],
    },
    timeoutMs: SPEC_LIMITS.dereferenceMs,
  };
  let document: unknown;
  try {
    const { default: $RefParser } = await import('@apidevtools/json-schema-ref-parser');
    const parser = new $RefParser();
    if (source.path && folder) {
      // The spec itself: the file the config names, read like its `$ref`s but always allowed.
      const body = await readFileInFolder(folder, basename(source.path), {
        maxBytes: SPEC_LIMITS.maxBytes,
        signal,
      }).catch((error: unknown) => {
        readFailure = error;
        throw error;
      });
      account(body.length, source.path);
      const root = parseSpecText(body.toString('utf8'), source.path);
      if (!root || typeof root !== 'object') throw new ConfigError('the spec is not a JSON or YAML mapping');
      document = await parser.dereference(source.path, root as never, parserOptions);
    } else {
      document = await parser.dereference(where, parserOptions);
    }
  } catch (error) {
    if (signal.aborted) throw error;
    const reason = ConfigError.isInstance(error) ? error : (readFailure ?? error);
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
