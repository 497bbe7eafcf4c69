import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * SPEC §9: every HTTP request any package makes goes through the one SSRF guard of
 * `@raf/web/http`. This scans the shipped sources of every package for the ways Node opens an
 * outbound connection and fails on any use outside the allowlist below, where each entry says why
 * it is not (or need not be) behind the guard. Servers (`createServer`) and type-only imports are
 * not connections; tests and test helpers are not shipped and may open what they like.
 */
const root = fileURLToPath(new URL('..', import.meta.url));

interface Use {
  file: string;
  line: number;
  what: string;
}

/** Names of `node:http(s)`/`net`/`tls`/`http2`/`dgram` that open a connection. */
const CLIENT_NAMES = new Set([
  'request',
  'get',
  'connect',
  'createConnection',
  'Agent',
  'Socket',
  'ClientRequest',
]);
const NODE_NET = /^(?:node:)?(?:http|https|http2|net|tls|dgram)$/;

/** The line with its string literals emptied: prose such as `'search and fetch (…)'` is no call. */
const withoutStrings = (line: string) => line.replace(/(['"`])(?:\\.|(?!\1).)*\1/g, '""');

const PATTERNS: { what: string; test: (line: string) => boolean }[] = [
  {
    what: 'undici (request/fetch/Agent/Pool/Client/dispatch)',
    test: (line) =>
      /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"]undici(?:\/[^'"]*)?['"]/.test(line) &&
      !/^\s*(?:import|export)\s+type\b/.test(line),
  },
  { what: 'global fetch(', test: (line) => /(?<![.\w$])fetch\s*\(/.test(withoutStrings(line)) },
  {
    // `http.request(` is too common a name for the guarded client: node:http(s) count by import.
    what: 'node:net/tls/http2/dgram client call',
    test: (line) => /\b(?:net|tls|http2|dgram)\.(?:connect|createConnection|createSocket)\s*\(/.test(line),
  },
  {
    what: 'WebSocket/EventSource/XMLHttpRequest',
    test: (line) => /\bnew\s+(?:WebSocket|EventSource|XMLHttpRequest)\b/.test(line),
  },
  {
    what: 'MCP SDK client transport (HTTP)',
    test: (line) => /@modelcontextprotocol\/sdk\/client\/(?:streamableHttp|sse|websocket)/.test(line),
  },
];

/** `import { a, b as c } from 'node:net'` and `const { a } = await import('node:http')`: the names. */
function nodeNetImports(source: string): { line: number; names: string[] | undefined }[] {
  const found: { line: number; names: string[] | undefined }[] = [];
  const lineOf = (index: number) => source.slice(0, index).split('\n').length;
  const staticImport = /^\s*import\s+(type\s+)?([^'";]*?)\s+from\s+['"]([^'"]+)['"]/gm;
  for (const match of source.matchAll(staticImport)) {
    if (match[1] || !NODE_NET.test(match[3] ?? '')) continue;
    const clause = match[2] ?? '';
    const named = /\{([^}]*)\}/.exec(clause)?.[1];
    const hasDefault = /^\s*[\w$]+\s*(?:,|$)/.test(clause) || /\*\s+as\s+/.test(clause);
    const names = named
      ?.split(',')
      .map(
        (part) =>
          part
            .replace(/^\s*type\s+/, '')
            .trim()
            .split(/\s+as\s+/)[0] ?? '',
      )
      .filter(Boolean);
    found.push({ line: lineOf(match.index ?? 0), names: hasDefault ? undefined : names });
  }
  const dynamicImport = /(?:const|let)\s+(\{[^}]*\}|[\w$]+)\s*=\s*await\s+import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of source.matchAll(dynamicImport)) {
    if (!NODE_NET.test(match[2] ?? '')) continue;
    const binding = match[1] ?? '';
    const names = binding.startsWith('{')
      ? binding
          .slice(1, -1)
          .split(',')
          .map((part) => part.trim().split(/\s*:\s*/)[0] ?? '')
          .filter(Boolean)
      : undefined;
    found.push({ line: lineOf(match.index ?? 0), names });
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (['node_modules', 'dist', 'test-support', 'testing', 'fixtures'].includes(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (
      /\.(?:m|c)?[jt]sx?$/.test(entry) &&
      !/\.(?:test|spec|bench)\.[^.]+$/.test(entry) &&
      !entry.endsWith('.d.ts')
    )
      files.push(path);
  }
  return files;
}

function scan(): Use[] {
  const uses: Use[] = [];
  for (const name of readdirSync(join(root, 'packages'))) {
    for (const folder of ['src', 'app']) {
      const dir = join(root, 'packages', name, folder);
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
      for (const path of sourceFiles(dir)) {
        const file = relative(root, path);
        const source = readFileSync(path, 'utf8');
        source.split('\n').forEach((text, index) => {
          // Comments and prose mention these names without using them.
          if (/^\s*(?:\/\/|\*|\/\*)/.test(text)) return;
          for (const pattern of PATTERNS)
            if (pattern.test(text)) uses.push({ file, line: index + 1, what: pattern.what });
        });
        for (const { line, names } of nodeNetImports(source)) {
          const opening =
            names === undefined ? ['(the whole module)'] : names.filter((n) => CLIENT_NAMES.has(n));
          if (opening.length > 0)
            uses.push({ file, line, what: `node networking client import: ${opening.join(', ')}` });
        }
      }
    }
  }
  return uses;
}

/**
 * Every file allowed to open connections some other way, with the reason. Keep it short: a new
 * entry needs a reason a reviewer accepts.
 */
const ALLOWED: Readonly<Record<string, string>> = {
  'packages/web/src/http/guarded-http.ts':
    'the guard itself: undici with the guarded connector (every connection and redirect hop checked)',
  'packages/client/src/http/undici-agent.ts':
    "the chat clients' undici Agent (http-chat-client.ts dispatches through it), to the model endpoint the agent author configured (often a local server, 127.0.0.1 for Ollama or llama.cpp): no model, server, spec or page chooses that URL, and the clients follow no redirect; the guard would refuse every local model without an allowPrivate entry",
  'packages/mcp/src/connection/sdk.ts':
    'the official MCP SDK transports (streamable HTTP, SSE) to the server URL the agent file names: the author chose that server; what a hostile server may send back is capped and checked by @raf/mcp',
  'packages/cli/src/studio/serve-client.ts':
    '`raf studio --server URL`: the raf serve the user names on the command line (often 127.0.0.1 or a private host, which the guard refuses by design); no file, page or model chooses it, redirects are refused, and its answers are parsed with zod',
  'packages/studio/app/api.ts':
    "the studio's browser app calling its own server (relative paths, same origin, with the studio token): runs in the browser, not in raf",
};

describe('every outbound HTTP connection goes through the SSRF guard (SPEC §9)', () => {
  const uses = scan();

  it('finds no connection outside the allowlist', () => {
    const outside = uses.filter((use) => !(use.file in ALLOWED)).map((u) => `${u.file}:${u.line}: ${u.what}`);
    expect(outside).toEqual([]);
  });

  it('has no stale allowlist entry (each still opens connections)', () => {
    const used = new Set(uses.map((use) => use.file));
    expect(Object.keys(ALLOWED).filter((file) => !used.has(file))).toEqual([]);
  });

  it('would catch the ways a package could go around the guard', () => {
    const caught = (line: string) => PATTERNS.some((p) => p.test(line));
    expect(caught("  const { request } = await import('undici');")).toBe(true);
    expect(caught("import { Agent, interceptors } from 'undici';")).toBe(true);
    expect(caught("import type { Dispatcher } from 'undici';")).toBe(false);
    expect(caught('  const answer = await fetch(url);')).toBe(true);
    expect(caught('  this.fetch(url)')).toBe(false);
    expect(caught("  await question('Web search and fetch (needs @raf/web)?')")).toBe(false);
    expect(caught('  const socket = net.connect(80, host);')).toBe(true);
    expect(caught('  const socket = tls.connect({ host });')).toBe(true);
    const imports = (source: string) => nodeNetImports(source).map((i) => i.names);
    expect(imports("import { request } from 'node:http';")).toEqual([['request']]);
    expect(imports("import { createServer } from 'node:http';")).toEqual([['createServer']]);
    expect(imports("import http from 'node:https';")).toEqual([undefined]);
    expect(imports("const { connect } = await import('node:net');")).toEqual([['connect']]);
  });
});
