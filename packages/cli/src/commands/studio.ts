import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_GOVERNANCE_FILE, FileGovernanceStore } from '@raf/framework';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { builderFor } from '../load-agent.js';
import { importOptional } from '../optional-package.js';
import { refuseWrongKind } from '../path-kind.js';
import { escapeLine } from '../render/escape.js';
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
 * `raf studio [agent.yaml…] [--port N] [--open]`: the local web app of SPEC §13 on 127.0.0.1,
 * until Ctrl-C. Every agent reads the one governance file the Tools page edits.
 */
export async function studioCommand(args: CliArgs, io: CliIO): Promise<number> {
  const files = args.files.length > 0 ? args.files : ['agent.yaml'];
  if (args.files.length === 0 && !existsSync(resolve(io.cwd, 'agent.yaml')))
    throw new CliError(
      'raf studio: no agent.yaml in this folder; name the agent files: raf studio agent.yaml…',
    );
  if (args.governance)
    await refuseWrongKind('--governance', args.governance, io.cwd, { file: DEFAULT_GOVERNANCE_FILE });
  await refuseWrongKind('--sessions-dir', args.sessionsDir, io.cwd, 'folder');
  const governanceFile = resolve(io.cwd, args.governance ?? DEFAULT_GOVERNANCE_FILE);
  const agents = await loadStudioAgents(
    files,
    async (file, text) => {
      const builder = (await builderFor(file, args, io)).withGovernance(governanceFile);
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
  let server: Awaited<ReturnType<typeof startStudioServer>>;
  try {
    server = await startStudioServer({
      agents,
      governance: new FileGovernanceStore(governanceFile),
      assetsDir: studioAssetsDir(),
      sessionsDir: args.sessionsDir,
      cwd: io.cwd,
      port: args.port ?? 0,
    });
  } catch (error) {
    throw new CliError(`cannot start the studio: ${(error as Error).message}`);
  }
  io.stdout.write(`raf studio: ${escapeLine(server.url)}\n`);
  io.stderr.write(
    `serving ${agents.map((a) => escapeLine(`${a.name} (${a.file})`)).join(', ')}; governance ${escapeLine(governanceFile)}; Ctrl-C stops\n`,
  );
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
