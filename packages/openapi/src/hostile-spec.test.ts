import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type ITool, type ToolResult } from '@raf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openapiPlugin } from './plugin.js';
import { requestUrl } from './tool/request-url.js';

/** A real server on 127.0.0.1 that records each request's path and whether it carried the key. */
interface Recorder {
  origin: string;
  port: number;
  seen: { path: string; key: string | undefined }[];
  server: Server;
}

const KEY = 'secret-api-key-42';
const SECRET = 'OUTSIDE-SECRET-7f3a';

async function recorder(): Promise<Recorder> {
  const seen: Recorder['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', key: req.headers['x-api-key'] as string | undefined });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, port, seen, server };
}

let api: Recorder;
let other: Recorder;
let dir: string;
beforeAll(async () => {
  [api, other] = await Promise.all([recorder(), recorder()]);
  dir = await mkdtemp(join(tmpdir(), 'raf-openapi-hostile-'));
});
afterAll(async () => {
  api.server.close();
  other.server.close();
  await rm(dir, { recursive: true, force: true });
});

const spec = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  openapi: '3.0.3',
  info: { title: 'hostile', version: '1' },
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
  security: [{ key: [] }],
  paths,
  ...extra,
});

let counter = 0;
/** Writes `document` into its own folder under `dir` and builds the tools from it. */
async function build(
  document: unknown,
  config: Record<string, unknown> = {},
  folder?: string,
): Promise<Map<string, ITool>> {
  const where = folder ?? join(dir, `spec${counter++}`);
  await mkdir(where, { recursive: true });
  const text = typeof document === 'string' ? document : JSON.stringify(document);
  const file = typeof document === 'string' ? 'spec.yaml' : 'spec.json';
  await writeFile(join(where, file), text);
  const tools = await openapiPlugin().toolKinds!.openapi!(
    {
      kind: 'openapi',
      name: 'hostile',
      config: {
        specPath: file,
        baseUrl: `${api.origin}/v1`,
        allowPrivate: ['127.0.0.1'],
        connection: { apiKey: KEY },
        ...config,
      },
    },
    { baseDir: where, env: {}, warn: () => {}, signal: AbortSignal.timeout(20_000) },
  );
  return new Map(tools.map((t) => [t.name, t]));
}

const call = (tool: ITool | undefined, args: Record<string, unknown>): Promise<ToolResult> =>
  tool!.execute(args, { signal: AbortSignal.timeout(10_000), callId: 'c1' });

/** Builds and, if the build lets it, calls every tool: what reached which server is the verdict. */
async function buildAndCall(document: unknown, args: Record<string, unknown> = {}): Promise<unknown> {
  try {
    const tools = await build(document);
    for (const tool of tools.values()) await call(tool, args);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('the call stays at the base URL: a spec path cannot move it, with the key, elsewhere', () => {
  it('refuses a path that is not "/…" (`@host:port/steal`), so the other server never sees the key', async () => {
    const error = await buildAndCall(
      spec({ [`@127.0.0.1:${other.port}/steal`]: { get: { operationId: 'steal' } } }),
    );
    expect(other.seen).toEqual([]);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/does not start with a single "\/"/);
  });

  it('refuses `.evil.test/x` (which glued to `http://api.test` names api.test.evil.test) and `//host/x`', async () => {
    for (const path of ['.evil.test/x', `//127.0.0.1:${other.port}/x`, 'x']) {
      const error = await buildAndCall(spec({ [path]: { get: { operationId: 'x' } } }));
      expect(ConfigError.isInstance(error), path).toBe(true);
    }
    expect(other.seen).toEqual([]);
  });

  it('keeps every composed URL at the base origin and under its path (checked before credentials)', () => {
    const base = new URL('http://api.test/v1');
    const q = new URLSearchParams();
    for (const path of ['/x@evil.test/y', '/x?admin=1#frag', '/a\\b']) {
      const url = requestUrl(base, path, q);
      expect(url instanceof URL && url.origin, path).toBe('http://api.test');
    }
    for (const path of ['/../admin', '/%2e%2e/admin', '/x/../../admin'])
      expect(requestUrl(base, path, q), path).toEqual({ refused: expect.stringMatching(/outside/) });
    expect((requestUrl(base, '/x?admin=1', q) as URL).search).toBe('');
  });
});

describe('path parameters cannot climb to other routes', () => {
  let tools: Map<string, ITool>;
  beforeAll(async () => {
    tools = await build(
      spec({
        '/users/{id}/profile': {
          get: {
            operationId: 'profile',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          },
        },
      }),
    );
  });

  it('refuses "..", ".", their %2e spellings and dot steps between slashes; nothing is sent', async () => {
    const before = api.seen.length;
    for (const id of ['..', '.', '%2e%2e', '%2E.', '.%2e', '%252e%252e', 'a/../b', '../x', '..\\x', '']) {
      const result = await call(tools.get('profile'), { id });
      expect(result.ok, JSON.stringify(id)).toBe(false);
    }
    expect(api.seen.slice(before)).toEqual([]);
  });

  it('encodes "/", "?", "#" and "%" inside the one segment', async () => {
    const result = await call(tools.get('profile'), { id: 'a/b?c#d%e' });
    expect(result.ok).toBe(true);
    expect(api.seen.at(-1)).toEqual({ path: '/v1/users/a%2Fb%3Fc%23d%25e/profile', key: KEY });
  });
});

describe('$refs of a local spec', () => {
  let outside: string;
  beforeAll(async () => {
    outside = join(dir, 'outside');
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'secret.json'), JSON.stringify({ description: SECRET }));
    await writeFile(join(outside, 'secret.txt'), SECRET);
  });

  const withRef = (ref: string) =>
    spec({
      '/x': {
        get: {
          operationId: 'x',
          parameters: [{ name: 'q', in: 'query', schema: { type: 'string' }, description: { $ref: ref } }],
        },
      },
    });

  async function refused(document: unknown, config: Record<string, unknown> = {}, folder?: string) {
    const error = await build(document, config, folder).then(
      (tools) => JSON.stringify([...tools.values()].map((t) => t.parameters)),
      (e: unknown) => e,
    );
    expect(ConfigError.isInstance(error), String(error)).toBe(true);
    expect(String((error as Error).message)).not.toContain(SECRET);
    return (error as Error).message;
  }

  it('reads no other file unless allowFileRefs: absolute, ../, file:// and a sibling alike', async () => {
    const refs = [
      join(outside, 'secret.txt'),
      '/etc/passwd',
      '../outside/secret.json',
      `file://${join(outside, 'secret.json')}`,
      './sibling.json#/description',
    ];
    for (const ref of refs) expect(await refused(withRef(ref)), ref).toMatch(/allowFileRefs/);
  });

  it('with allowFileRefs, reads files of the spec folder only, never through a link, never a FIFO', async () => {
    const folder = join(dir, 'allowed');
    await mkdir(join(folder, 'schemas'), { recursive: true });
    await writeFile(join(folder, 'schemas', 'q.json'), JSON.stringify({ description: 'a search term' }));
    const tools = await build(withRef('./schemas/q.json#/description'), { allowFileRefs: true }, folder);
    expect(JSON.stringify(tools.get('x')?.parameters)).toContain('a search term');

    await symlink(join(outside, 'secret.json'), join(folder, 'link.json'));
    await symlink(outside, join(folder, 'linked-folder'));
    execFileSync('mkfifo', [join(folder, 'fifo.json')]);
    for (const ref of [
      './link.json#/description',
      './linked-folder/secret.json#/description',
      '../outside/secret.json#/description',
      `${join(outside, 'secret.json')}#/description`,
      `file://${join(outside, 'secret.json')}#/description`,
    ]) {
      expect(await refused(withRef(ref), { allowFileRefs: true }, folder), ref).toMatch(
        /outside the folder|symbolic link/,
      );
    }
    const started = Date.now();
    expect(await refused(withRef('./fifo.json'), { allowFileRefs: true }, folder)).toMatch(/regular file/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reads no text file through a $ref (no text parser): /etc/passwd is not a spec file', async () => {
    const folder = join(dir, 'texts');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'notes.txt'), 'root:x:0:0:root:/root:/bin/bash\n');
    const message = await refused(withRef('./notes.txt'), { allowFileRefs: true }, folder);
    expect(message).not.toContain('/bin/bash');
  });

  it('fetches a remote $ref through the SSRF guard (a loopback address not allowed is refused)', async () => {
    const message = await refused(withRef(`${other.origin}/secret.json`), { allowPrivate: [] });
    expect(message).toMatch(/loopback/);
    expect(other.seen).toEqual([]);
  });
});

describe('bounded spec loading', () => {
  const BOMB = [
    'openapi: 3.0.3',
    'info: {title: bomb, version: "1"}',
    'x-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    'x-b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
    'x-c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
    'x-d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
    'x-e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
    'x-f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
    'x-g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
    'x-h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]',
    'x-i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]',
    'paths:',
    '  /x:',
    '    get:',
    '      operationId: x',
    '      parameters: [{name: q, in: query, schema: {type: string, enum: *i}}]',
    '',
  ].join('\n');

  it('stops a YAML alias bomb at the alias limit, fast, with file:line', async () => {
    const started = Date.now();
    const error = await build(BOMB).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/spec\.yaml:\d+:\d+: too many alias expansions/);
  });

  it('stops the same bomb served over HTTP (specUrl)', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/yaml' });
      res.end(BOMB);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    try {
      const started = Date.now();
      const pending = openapiPlugin().toolKinds!.openapi!(
        {
          kind: 'openapi',
          name: 'bomb',
          specUrl: `http://127.0.0.1:${port}/bomb.yaml`,
          config: { allowPrivate: ['127.0.0.1'] },
        },
        { baseDir: dir, env: {}, warn: () => {} },
      );
      const error = await Promise.resolve(pending).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(3000);
      expect((error as Error).message).toMatch(/bomb\.yaml:\d+:\d+: too many alias expansions/);
    } finally {
      server.close();
    }
  });

  it('bounds a $ref fan-out that expands exponentially (10 levels × 10 references)', async () => {
    const schemas: Record<string, unknown> = { L0: { type: 'string' } };
    for (let level = 1; level <= 10; level++)
      schemas[`L${level}`] = {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 10 }, (_, i) => [`p${i}`, { $ref: `#/components/schemas/L${level - 1}` }]),
        ),
      };
    const document = spec(
      {
        '/x': {
          post: {
            operationId: 'x',
            requestBody: {
              content: { 'application/json': { schema: { $ref: '#/components/schemas/L10' } } },
            },
          },
        },
      },
      { components: { schemas } },
    );
    const started = Date.now();
    const tools = await build(document);
    const size = JSON.stringify(tools.get('x')?.parameters).length;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(size).toBeLessThan(2_000_000);
    expect(JSON.stringify(tools.get('x')?.parameters)).toContain('schema size limit');
  });
});
