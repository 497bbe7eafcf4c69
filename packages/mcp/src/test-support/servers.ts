// Real MCP servers for the tests: the SDK-built test server and @modelcontextprotocol/server-everything,
// over stdio (started by the agent) or HTTP (started here, in a child process, on 127.0.0.1).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const TEST_SERVER = fileURLToPath(new URL('./test-server.ts', import.meta.url));
export const MODERN_STDIO_SERVER = fileURLToPath(new URL('./modern-stdio-server.ts', import.meta.url));
export const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

/** A fresh file the test server appends its events to. */
export function eventLog(): string {
  return join(mkdtempSync(join(tmpdir(), 'raf-mcp-')), 'events.jsonl');
}

export function readEvents(file: string): Record<string, unknown>[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** `config` of a `kind: mcp` entry that starts the test server over stdio. */
export function stdioTestServer(env: Record<string, string> = {}) {
  return { command: process.execPath, args: ['--import', 'tsx', TEST_SERVER], cwd: REPO_ROOT, env };
}

/** `config` of a `kind: mcp` entry that starts a 2026-07-28-only server (SDK v2) over stdio. */
export function stdioModernServer(env: Record<string, string> = {}) {
  return { command: process.execPath, args: ['--import', 'tsx', MODERN_STDIO_SERVER], cwd: REPO_ROOT, env };
}

export function stdioEverything() {
  return { command: process.execPath, args: [EVERYTHING, 'stdio'] };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface HttpServerProcess {
  port: number;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function spawnAndWait(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  port: number,
  path: string,
): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (ready.test(stderr)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
  child.stderr?.resume();
  return {
    port,
    url: `http://127.0.0.1:${port}${path}`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** The test server over streamable HTTP (`/mcp`) or the old HTTP+SSE transport (`/sse`). */
export async function startHttpTestServer(
  options: { transport?: 'http' | 'sse'; port?: number; env?: Record<string, string> } = {},
): Promise<HttpServerProcess> {
  const port = options.port ?? (await freePort());
  const transport = options.transport ?? 'http';
  return spawnAndWait(
    ['--import', 'tsx', TEST_SERVER],
    { ...options.env, TEST_SERVER_TRANSPORT: transport, TEST_SERVER_PORT: String(port) },
    /listening \d+/,
    port,
    transport === 'sse' ? '/sse' : '/mcp',
  );
}

/** server-everything's streamable HTTP transport (`/mcp`). */
export async function startEverythingHttp(): Promise<HttpServerProcess> {
  const port = await freePort();
  return spawnAndWait(
    [EVERYTHING, 'streamableHttp'],
    { PORT: String(port) },
    /listening on port/i,
    port,
    '/mcp',
  );
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function eventually(check: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
