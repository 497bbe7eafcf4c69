import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type RecordedRequest, startMockModelServer } from '@raf/client/testing';
import { validateBundle } from '@raf/framework';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const built = join(repo, 'packages/cli/dist/bin.js');
// The built binary starts faster; the source runs through tsx as the other CLI tests do, named by
// its path: the runs start in a temporary folder, where the bare name `tsx` resolves to nothing.
const tsx = pathToFileURL(join(repo, 'node_modules/tsx/dist/loader.mjs')).href;
const raf = existsSync(built)
  ? [built]
  : ['--conditions=@raf/source', '--import', tsx, join(repo, 'packages/cli/src/bin.ts')];
const ROUNDS = Number(process.env.RAF_MEMORY_ROUNDS ?? 50);
const SAVES = 5;

type Message = { role: string; content: string };

/** Each run saves SAVES facts, alternating two pages both processes write, then answers. */
function model(request: RecordedRequest) {
  const messages = (request.body?.messages ?? []) as Message[];
  const last = messages.at(-1);
  if (last?.role !== 'user') return { text: 'saved' };
  return {
    toolCalls: Array.from({ length: SAVES }, (_, k) => ({
      name: 'memory_save',
      arguments: { topic: k % 2 ? 'user' : 'shared/notes', content: `${last.content} fact ${k}` },
    })),
  };
}

describe('two raf run processes on one bundle', () => {
  it(`${ROUNDS} times concurrently: no entry is lost and the bundle validates`, async () => {
    const server = await startMockModelServer({ turns: model, recordRequests: false });
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-two-')));
    try {
      await writeFile(
        join(dir, 'agent.yaml'),
        `name: two\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\ncontexts:\n  - kind: memory\n    config: { consolidationInterval: 0 }\nmaxToolRounds: 3\n`,
      );
      const run = (input: string) =>
        promisify(execFile)(process.execPath, [...raf, 'run', 'agent.yaml', '-i', input], {
          cwd: dir,
          timeout: 60_000,
        });
      for (let i = 0; i < ROUNDS; i++) {
        const [a, b] = await Promise.all([run(`r${i}a`), run(`r${i}b`)]);
        expect(a.stdout).toBe('saved\n');
        expect(b.stdout).toBe('saved\n');
      }
      const bundle = join(dir, 'logs/super-brain');
      const text =
        (await readFile(join(bundle, 'references/USER.md'), 'utf8')) +
        (await readFile(join(bundle, 'assets/shared/notes/notes.md'), 'utf8'));
      const missing: string[] = [];
      for (let i = 0; i < ROUNDS; i++)
        for (const p of ['a', 'b'])
          for (let k = 0; k < SAVES; k++)
            if (!text.includes(`\nr${i}${p} fact ${k}\n`)) missing.push(`r${i}${p} fact ${k}`);
      expect(missing).toEqual([]);
      expect(text.match(/<!-- entry:/g)).toHaveLength(ROUNDS * 2 * SAVES);
      expect(await validateBundle(bundle)).toMatchObject({ ok: true, issues: [] });
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 900_000);
});
