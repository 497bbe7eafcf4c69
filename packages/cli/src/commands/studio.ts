import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { redactStoreUrl } from '@raf/core';
import { DEFAULT_GOVERNANCE_FILE, FileGovernanceStore, type GovernanceStore } from '@raf/framework';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { builderFor } from '../load-agent.js';
import { openCliStore } from '../opened-session.js';
import { importOptional } from '../optional-package.js';
import { refuseWrongKind } from '../path-kind.js';
import { escapeLine } from '../render/escape.js';
import { storeChoice } from '../store-choice.js';
import { storeGovernance } from '../store-governance.js';
import { ServeClient } from '../studio/serve-client.js';
import { loadStudioAgents } from '../studio/studio-agents.js';
import { startStudioServer } from '../studio/studio-server.js';

/** Best effort: a desktop opens the page; anywhere else the printed URL is enough. */
async function openInBrowser(url: string): Promise<void> {
  const { spawn } = await import('node:child_process');
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {}
}

/**
 * `raf studio [agent.yaml…] [--port N] [--open] [--store URL]`: the local web app of SPEC §13 on 127.0.0.1,
 * until Ctrl-C. Every agent reads the one governance file the Tools page edits.
 */
export async function studioCommand(args: CliArgs, io: CliIO): Promise<number> {
  if (args.server !== undefined) return remoteStudio(args, io);
  const files = args.files.length > 0 ? args.files : ['agent.yaml'];
  if (args.files.length === 0 && !existsSync(resolve(io.cwd, 'agent.yaml')))
    throw new CliError(
      'raf studio: no agent.yaml in this folder; name the agent files: raf studio agent.yaml…',
    );
  if (args.governance)
    await refuseWrongKind('--governance', args.governance, io.cwd, { file: DEFAULT_GOVERNANCE_FILE });
  await refuseWrongKind('--sessions-dir', args.sessionsDir, io.cwd, 'folder');
  // `--governance FILE` wins; else a store chosen by URL keeps it (as for `raf run`, `raf tools`);
  // else `.raf/governance.json`. The Tools page edits the same store the agents read.
  const fromStore = args.governance ? undefined : storeGovernance(args, io);
  const governanceFile =
    typeof fromStore === 'string' ? fromStore : resolve(io.cwd, args.governance ?? DEFAULT_GOVERNANCE_FILE);
  const governance: GovernanceStore =
    typeof fromStore === 'object' ? fromStore : new FileGovernanceStore(governanceFile);
  const agents = await loadStudioAgents(
    files,
    async (file, text) => {
      const builder = (await builderFor(file, args, io)).withGovernance(governance);
      if (text === undefined) return builder;
      // A preview's text, read as if it were the file (its folder, its protection).
      const path = resolve(io.cwd, file);
      return builder.fromYaml(text, path).protectPaths([path], 'agent definition');
    },
    io.cwd,
  );
  const { studioAssetsDir } = await importOptional(
    ['@raf/studio'],
    'raf studio',
    () => import('@raf/studio'),
    io.cwd,
  );
  const choice = storeChoice(args, io);
  const sessions = choice.sessionsDirectory ?? redactStoreUrl(choice.url);
  const governed = typeof fromStore === 'object' ? redactStoreUrl(choice.url) : governanceFile;
  // Opened now, so a wrong URL or an unreachable Postgres is said before the page opens.
  const store = await openCliStore(args, io);
  let server: Awaited<ReturnType<typeof startStudioServer>>;
  try {
    server = await startStudioServer({
      agents,
      governance,
      governanceLocation: governed,
      assetsDir: studioAssetsDir(),
      openStore: async () => store,
      cwd: io.cwd,
      port: args.port ?? 0,
    });
  } catch (error) {
    await store.close();
    throw new CliError(`cannot start the studio: ${(error as Error).message}`);
  }
  io.stdout.write(`raf studio: ${escapeLine(server.url)}\n`);
  io.stderr.write(
    `serving ${agents.map((a) => escapeLine(`${a.name} (${a.file})`)).join(', ')}; sessions ${escapeLine(sessions)}; governance ${escapeLine(governed)}; Ctrl-C stops\n`,
  );
  return untilInterrupted(server, args, io);
}

async function untilInterrupted(
  server: Awaited<ReturnType<typeof startStudioServer>>,
  args: CliArgs,
  io: CliIO,
): Promise<number> {
  if (args.open) await openInBrowser(server.url);
  await new Promise<void>((done) => {
    const stop = io.onInterrupt(() => {
      stop();
      done();
    });
  });
  await server.close();
  io.stderr.write('raf studio: stopped\n');
  return EXIT.ok;
}

/**
 * `raf studio --server URL [--token T]`: the app on 127.0.0.1 as always, its conversations runs on
 * a `raf serve` (a team's shared one) through the /v1 API. The token stays in this process (the
 * page has the studio's own); the server is asked for its agents before the URL is printed, so a
 * wrong address or token is said at once.
 */
async function remoteStudio(args: CliArgs, io: CliIO): Promise<number> {
  if (args.files.length > 0)
    throw new CliError(
      `raf studio --server: the agents are the server's; drop ${escapeLine(args.files.join(' '))} (or run raf studio on them without --server)`,
    );
  const token = args.token ?? io.env.RAF_SERVER_TOKEN;
  if (!token)
    throw new CliError(
      "raf studio --server: give the server's bearer token with --token T or RAF_SERVER_TOKEN",
    );
  let client: ServeClient;
  try {
    client = new ServeClient(args.server!, token);
  } catch (error) {
    throw new CliError(`raf studio ${(error as Error).message}`);
  }
  const agents = await client.agents(AbortSignal.timeout(15_000)).catch((error: unknown) => {
    throw new CliError(`raf studio --server: ${(error as Error).message}`);
  });
  const { studioAssetsDir } = await importOptional(
    ['@raf/studio'],
    'raf studio',
    () => import('@raf/studio'),
    io.cwd,
  );
  const server = await startStudioServer({
    agents: [],
    // Never read: with `remote` every API route is the server's, the Tools page is not shown.
    governance: new FileGovernanceStore(resolve(io.cwd, DEFAULT_GOVERNANCE_FILE)),
    governanceLocation: client.origin,
    assetsDir: studioAssetsDir(),
    openStore: () => Promise.reject(new Error('raf studio --server keeps no sessions here')),
    cwd: io.cwd,
    port: args.port ?? 0,
    remote: client,
  }).catch((error: unknown) => {
    throw new CliError(`cannot start the studio: ${(error as Error).message}`);
  });
  io.stdout.write(`raf studio: ${escapeLine(server.url)}\n`);
  io.stderr.write(
    `conversations on raf serve at ${escapeLine(client.origin)} (${agents.length} agent${agents.length === 1 ? '' : 's'}: ${escapeLine(agents.map((a) => a.name).join(', '))}); Ctrl-C stops\n`,
  );
  return untilInterrupted(server, args, io);
}
