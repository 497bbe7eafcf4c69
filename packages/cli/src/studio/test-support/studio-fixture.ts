import { cp, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../main.js';
import { createMemoryIO } from '../../memory-io.js';

const root = fileURLToPath(new URL('../../../../../', import.meta.url));

/** A project folder with the sub-agents example and, with a model URL, an agent that asks before writing. */
export async function studioProject(modelURL?: string): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-studio-')));
  await cp(join(root, 'examples/sub-agents'), join(dir, 'project'), {
    recursive: true,
    filter: (src) => !src.includes('node_modules'),
  });
  if (modelURL) {
    await mkdir(join(dir, 'project/scratch'), { recursive: true });
    await writeFile(join(dir, 'project/scratch/todo.md'), 'old line\n');
    await writeFile(
      join(dir, 'project/writer-agent.yaml'),
      [
        'kind: prompt',
        'name: scribe',
        `model: { id: m, provider: custom, connection: { endpoint: "${modelURL}" } }`,
        'instructions: Keep the to-do list.',
        'contexts:',
        '  - kind: workspace',
        '    name: notes',
        '    config: { root: ./workspace, policy: approve }',
        'tools:',
        '  - { kind: file, name: write_file }',
        '  - { kind: file, name: read_file }',
        '',
      ].join('\n'),
    );
  }
  return join(dir, 'project');
}

export async function removeProject(project: string): Promise<void> {
  await rm(dirname(project), { recursive: true, force: true });
}

export interface RunningStudio {
  url: string;
  origin: string;
  token: string;
  /** Ctrl-C: resolves to the exit code of `raf studio`. */
  stop(): Promise<number>;
  err(): string;
}

/** `raf studio <files> [options]` in-process, as a user starts it; `stop()` is Ctrl-C. */
export async function startStudio(
  project: string,
  files: string[],
  options: readonly string[] = [],
): Promise<RunningStudio> {
  const run = createMemoryIO({ cwd: project });
  const exit = main(['studio', ...files, ...options, '--port', '0'], run.io);
  let url = '';
  for (let i = 0; i < 600 && !url; i++) {
    const line = run.out().match(/^raf studio: (\S+)$/m);
    if (line) url = line[1]!;
    else {
      const code = await Promise.race([exit, new Promise((r) => setTimeout(r, 50, undefined))]);
      if (code !== undefined) throw new Error(`raf studio exited with ${code}: ${run.err()}`);
    }
  }
  if (!url) throw new Error(`raf studio printed no URL: ${run.err()}`);
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token') ?? '',
    async stop() {
      run.interrupt();
      return exit;
    },
    err: run.err,
  };
}

/** The events of a server-sent events body: `{ event, data }` in order. */
export function parseEvents(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        if (line.startsWith('data: ')) data += line.slice(6);
      }
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}
