import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { getErrorMessage, redactStoreUrl } from '@raf/core';
import type { ChatClientAgent } from '@raf/framework';
import { isLoopbackHost } from '@raf/framework';
import type { ServedAgent } from '@raf/server';
import type { CliArgs } from '../args.js';
import { openServeDurable, type ServeDurable } from '../durable/serve-durable.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { builderFor, warnOnStderr } from '../load-agent.js';
import { openCliStore } from '../opened-session.js';
import { importOptional } from '../optional-package.js';
import { escapeLine } from '../render/escape.js';
import { agentIds } from '../studio/studio-agents.js';

const AGENT_FILE = /\.(ya?ml|json|toml)$/i;

/** The agent files named: files as given, a folder's agent files (not its subfolders), sorted. */
async function agentFiles(args: CliArgs, io: CliIO): Promise<string[]> {
  if (args.files.length === 0)
    throw new CliError(
      'raf serve needs agent files or a folder: raf serve agents/ (or raf serve agent.yaml)',
    );
  const files: string[] = [];
  for (const given of args.files) {
    const info = await stat(resolve(io.cwd, given)).catch(() => undefined);
    if (!info) throw new CliError(`raf serve: ${given} does not exist`);
    if (!info.isDirectory()) {
      files.push(given);
      continue;
    }
    const names = (await readdir(resolve(io.cwd, given))).filter((n) => AGENT_FILE.test(n)).sort();
    if (names.length === 0)
      throw new CliError(`raf serve: ${given} has no agent files (*.yaml, *.yml, *.json, *.toml)`);
    files.push(...names.map((n) => join(given, n)));
  }
  return files;
}

/**
 * A tokens file other users of the machine can read or write hands them every tenant: said on
 * stderr (not refused: a container's secret mount may be 0644 and yet private to it).
 */
async function warnIfShared(path: string, given: string, io: CliIO): Promise<void> {
  const mode = (await stat(path).catch(() => undefined))?.mode;
  if (mode === undefined || (mode & 0o077) === 0) return;
  const octal = (mode & 0o777).toString(8).padStart(3, '0');
  io.stderr.write(
    `raf serve: warning: --tokens ${escapeLine(given)} is readable or writable by other users (mode ${octal}): chmod 600 it\n`,
  );
}

/**
 * `raf serve <files or folder> [--store URL] [--host H] [--port P] [--tokens FILE]`: the agents
 * behind the `/v1` API of `@raf/server` until Ctrl-C or SIGTERM. Each file is built once at
 * start-up (a broken file fails here, not on the first request) and its agent serves every run.
 */
export async function serveCommand(args: CliArgs, io: CliIO): Promise<number> {
  const server = await importOptional(['@raf/server'], 'raf serve', () => import('@raf/server'), io.cwd);
  const host = args.host ?? '127.0.0.1';
  // Refused before anything is built or opened: the tokens decide whether the network may come in.
  const tokens = args.tokens
    ? await server.TenantTokens.fromFile(resolve(io.cwd, args.tokens)).catch((error: unknown) => {
        throw new CliError(getErrorMessage(error));
      })
    : undefined;
  if (args.tokens) await warnIfShared(resolve(io.cwd, args.tokens), args.tokens, io);
  if (!tokens && !isLoopbackHost(host))
    throw new CliError(
      `raf serve --host ${host} would let other machines run the agents: give each tenant's token with --tokens FILE ({"<token>": "<tenant>"}), or keep the host at 127.0.0.1`,
    );
  const generated = tokens ? undefined : server.TenantTokens.generated();
  if (args.publicUrl !== undefined && !/^https?:\/\/[^/\s]+(\/\S*)?$/.test(args.publicUrl))
    throw new CliError(
      `raf serve --public-url ${args.publicUrl}: expected an http(s) URL (https://agents.example.com)`,
    );
  const files = await agentFiles(args, io);
  const built: {
    name: string;
    file: string;
    kind: 'agent' | 'workflow';
    agent: ServedAgent['agent'];
    chat: ChatClientAgent | undefined;
  }[] = [];
  const names: string[] = [];
  for (const file of files) {
    const builder = await builderFor(file, args, io);
    const plan = await builder.explain();
    const agent = await builder.buildAgent({ onWarnings: warnOnStderr(file, io) });
    names.push(plan.name);
    built.push({
      name: plan.name,
      file,
      kind: 'chatClient' in agent ? 'agent' : 'workflow',
      agent: async () => agent,
      chat: 'chatClient' in agent ? agent : undefined,
    });
  }
  const ids = agentIds(names);
  const store = await openCliStore(args, io);
  let app: InstanceType<typeof server.ServerApp> | undefined;
  let runs: Awaited<ReturnType<typeof server.openRunStore>> | undefined;
  let durable: ServeDurable | undefined;
  try {
    runs = await server.openRunStore(store);
    if (args.durable) {
      // The events' writer exists before the runtime: a run taken over at launch is observed too.
      const events = new server.DurableEvents(
        runs,
        () => durable?.host,
        (line) => io.stderr.write(`raf serve: ${escapeLine(line)}\n`),
      );
      durable = await openServeDurable(
        args,
        io,
        built.map((b, i) => ({ name: ids[i]!, file: b.file, agent: b.chat })),
        events,
      );
    }
    app = server.createServer({
      agents: built.map((b, i) => ({ name: ids[i]!, file: b.file, kind: b.kind, agent: b.agent })),
      store,
      runs,
      tokens: tokens ?? generated!.tokens,
      host,
      port: args.port ?? 0,
      allowNetwork: tokens !== undefined,
      log: (line) => io.stderr.write(`raf serve: ${escapeLine(line)}\n`),
      ...(durable && { durable: durable.host }),
      ...(args.publicUrl !== undefined && { protocols: { publicUrl: args.publicUrl } }),
    });
    const { url } = await app.listen();
    io.stdout.write(`raf serve: ${url}\n`);
    if (generated) io.stdout.write(`token: ${generated.token}\n`);
    io.stderr.write(
      `serving ${ids.map((id, i) => escapeLine(`${id} (${built[i]!.file})`)).join(', ')}; store ${escapeLine(redactStoreUrl(store.location.kind === 'postgres' ? store.location.url : (args.store ?? io.env.RAF_STORE ?? 'file:.raf')))}; Ctrl-C stops\n`,
    );
    await new Promise<void>((done) => {
      const stops = [io.onInterrupt(stop), io.onTerminate?.(stop)];
      function stop() {
        for (const s of stops) s?.();
        done();
      }
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot start raf serve: ${getErrorMessage(error)}`);
  } finally {
    await app?.close().catch(() => undefined);
    await durable?.close().catch(() => undefined);
    await runs?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
  }
  io.stderr.write('raf serve: stopped\n');
  return EXIT.ok;
}
