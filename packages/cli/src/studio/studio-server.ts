import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { ConfigError, getErrorMessage, type ToolManifest } from '@raf/core';
import { DeclError, formatDiagnostic } from '@raf/decl';
import type { GovernanceStore, RafStore } from '@raf/framework';
import { bearerToken, newLocalToken, RUNTIME_LABELS, sameToken } from '@raf/framework';
import { ATTACHMENT_MAX_BYTES } from '../attachments.js';
import { installedToolManifests } from '../extensions.js';
import { readJsonObject, StudioHttpError, sendError, sendJson } from './http-json.js';
import type { ServeClient } from './serve-client.js';
import { diagnosticOf, governanceReport, patchGovernance, type StudioAgent } from './studio-agents.js';
import { RUN_BODY_MAX_BYTES } from './studio-attachments.js';
import { changedFile, parseAgentChange, previewDiagnostic } from './studio-preview.js';
import { RemoteStudio } from './studio-remote.js';
import { StudioRuns } from './studio-runs.js';

export interface StudioServerOptions {
  agents: readonly StudioAgent[];
  governance: GovernanceStore;
  /** Where the governance lives, as the Tools page shows it (a file, or the store URL redacted). */
  governanceLocation: string;
  /** The built app (`@raf/studio`'s `studioAssetsDir()`). */
  assetsDir: string;
  /** The sessions' store (`raf studio --store`, `--sessions-dir`); opened on the first conversation, closed with the server. */
  openStore: () => Promise<RafStore>;
  cwd: string;
  /** 0 (the default): any free port. */
  port?: number;
  /** Default: a new random token. */
  token?: string;
  /** `raf studio --server URL`: conversations are runs on that `raf serve` (then `agents` is empty). */
  remote?: ServeClient;
}

export interface StudioServer {
  /** The page to open, with the token. */
  url: string;
  origin: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

const COOKIE = 'raf_studio_token';

/** The studio's page never runs code or loads anything from elsewhere. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** A broken agent file or governance store is the user's to fix: a 422 that names it, not a crash. */
function asHttpError(error: unknown): StudioHttpError {
  if (DeclError.isInstance(error))
    return new StudioHttpError(
      422,
      'agent_error',
      error.diagnostics.map((d) => formatDiagnostic(d)).join('\n'),
    );
  if (ConfigError.isInstance(error)) return new StudioHttpError(422, 'config_error', error.message);
  return new StudioHttpError(500, 'internal_error', getErrorMessage(error));
}

function cookieToken(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === COOKIE) return value.join('=');
  }
  return undefined;
}

/**
 * `raf studio`'s server (SPEC §13): on 127.0.0.1 only, every request needs the token (from the
 * URL's `?token=`, then a cookie, or `Authorization: Bearer`), the built app as static files and
 * the JSON API whose values are `runtimeDiagnostic()`, `explain()` and the governance store,
 * never re-derived here or in the page.
 */
export async function startStudioServer(options: StudioServerOptions): Promise<StudioServer> {
  const token = options.token ?? newLocalToken();
  const runs = new StudioRuns(options.openStore);
  const remote = options.remote && new RemoteStudio(options.remote);
  const byId = new Map(options.agents.map((a) => [a.id, a]));
  let port = 0;
  let governanceWrites = Promise.resolve();
  // Read once, on the first governance request: the installed extensions do not change while serving.
  let extensionManifests: Promise<Record<string, ToolManifest>> | undefined;

  const agentOf = (id: string) => {
    const agent = byId.get(decodeURIComponent(id));
    if (!agent) throw new StudioHttpError(404, 'no_such_agent', `no agent "${decodeURIComponent(id)}"`);
    return agent;
  };

  const governanceNow = async (signal: AbortSignal) => {
    const diagnostics = [];
    for (const agent of options.agents)
      if (agent.kind === 'agent') diagnostics.push(await diagnosticOf(agent, signal));
    extensionManifests ??= installedToolManifests(options.cwd);
    return governanceReport(
      { store: options.governance, location: options.governanceLocation },
      diagnostics,
      signal,
      await extensionManifests,
    );
  };

  async function api(req: IncomingMessage, res: ServerResponse, path: string, signal: AbortSignal) {
    const method = req.method ?? 'GET';
    const parts = path.split('/').filter(Boolean).slice(1);
    const route = `${method} /${parts.map((p, i) => ((i === 1 && parts[0] === 'agents') || (i === 3 && parts[2] === 'runs') ? ':' : p)).join('/')}`;
    if (remote) return remote.route(route, parts, req, res, signal);
    switch (route) {
      case 'GET /agents':
        return sendJson(res, 200, {
          agents: options.agents.map(({ id, name, file, kind }) => ({ id, name, file, kind })),
        });
      case 'GET /labels':
        return sendJson(res, 200, RUNTIME_LABELS);
      case 'GET /config':
        return sendJson(res, 200, {
          server: null,
          attachments: true,
          attachmentMaxBytes: ATTACHMENT_MAX_BYTES,
        });
      case 'GET /agents/:/diagnostic':
        return sendJson(res, 200, await diagnosticOf(agentOf(parts[1]!), signal));
      case 'POST /agents/:/diagnostic/preview': {
        const agent = agentOf(parts[1]!);
        const change = parseAgentChange(await readJsonObject(req));
        return sendJson(res, 200, await previewDiagnostic(agent, change, signal));
      }
      case 'POST /agents/:/yaml/preview': {
        const agent = agentOf(parts[1]!);
        const change = parseAgentChange(await readJsonObject(req));
        return sendJson(res, 200, await changedFile(agent, change, signal));
      }
      case 'GET /agents/:/plan':
        return sendJson(res, 200, await agentOf(parts[1]!).builder.explain());
      case 'GET /governance':
        return sendJson(res, 200, await governanceNow(signal));
      case 'PATCH /governance': {
        const body = await readJsonObject(req);
        const write = governanceWrites.then(() => patchGovernance(options.governance, body, signal));
        governanceWrites = write.then(
          () => undefined,
          () => undefined,
        );
        await write;
        return sendJson(res, 200, await governanceNow(signal));
      }
      case 'POST /agents/:/runs': {
        const agent = agentOf(parts[1]!);
        return runs.start(agent, await readJsonObject(req, RUN_BODY_MAX_BYTES), res);
      }
      case 'POST /agents/:/runs/:/approvals': {
        const agent = agentOf(parts[1]!);
        return runs.approve(agent, decodeURIComponent(parts[3]!), await readJsonObject(req), res);
      }
      case 'POST /agents/:/runs/:/inputs': {
        const agent = agentOf(parts[1]!);
        runs.answer(agent, decodeURIComponent(parts[3]!), await readJsonObject(req));
        return sendJson(res, 200, { answered: true });
      }
      default: {
        const known = /^\S+ \/(agents|labels|governance|config)/.test(route);
        throw new StudioHttpError(
          known ? 405 : 404,
          known ? 'method_not_allowed' : 'not_found',
          `${method} ${path} is not part of the studio API`,
        );
      }
    }
  }

  async function asset(res: ServerResponse, path: string) {
    const relative = path === '/' ? 'index.html' : decodeURIComponent(path.slice(1));
    const file = normalize(join(options.assetsDir, relative));
    if (!file.startsWith(normalize(options.assetsDir + sep)) || relative.includes('\0'))
      throw new StudioHttpError(404, 'not_found', `no file ${path}`);
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      if (path === '/')
        throw new StudioHttpError(
          500,
          'app_not_built',
          `the studio app is not built (${options.assetsDir}): run pnpm --filter @raf/studio build`,
        );
      throw new StudioHttpError(404, 'not_found', `no file ${path}`);
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-store',
      ...SECURITY_HEADERS,
    });
    res.end(body);
  }

  const server = createServer((req, res) => {
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      // Another site's page cannot reach the studio through a name that points at 127.0.0.1.
      const host = req.headers.host ?? '';
      if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
        throw new StudioHttpError(403, 'wrong_host', `the studio answers on 127.0.0.1:${port} only`);
      const fromQuery = url.searchParams.get('token') ?? undefined;
      if (
        ![fromQuery, cookieToken(req), bearerToken(req.headers.authorization)].some((t) =>
          sameToken(t, token),
        )
      )
        throw new StudioHttpError(
          401,
          'unauthorized',
          'a valid studio token is required (the URL raf studio printed)',
        );
      if (sameToken(fromQuery, token))
        res.setHeader('set-cookie', `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`);
      if (url.pathname === '/api' || url.pathname.startsWith('/api/'))
        await api(req, res, url.pathname, controller.signal);
      else if (req.method === 'GET' || req.method === 'HEAD') await asset(res, url.pathname);
      else throw new StudioHttpError(405, 'method_not_allowed', `${req.method} ${url.pathname}`);
    })().catch((error: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (error instanceof StudioHttpError) return sendError(res, error);
      sendError(res, asHttpError(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    port,
    async close() {
      runs.abortAll();
      remote?.abortAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runs.close();
    },
  };
}
