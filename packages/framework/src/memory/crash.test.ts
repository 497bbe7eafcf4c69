import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type RecordedRequest, startMockModelServer } from '@raf/client/testing';
import { describe, expect, it } from 'vitest';
import { validateBundle } from './validate-bundle.js';

const script = fileURLToPath(new URL('../test-support/consolidation-process.ts', import.meta.url));
const KILLS = Number(process.env.RAF_MEMORY_KILLS ?? 50);

type Message = { role: string; content: string };

/** A slow curator: streams a new page and an edit of USER.md, then its report, a chunk every 15 ms. */
function curator(request: RecordedRequest, index: number) {
  const messages = (request.body?.messages ?? []) as Message[];
  const last = messages.at(-1);
  const slow = { chunkDelayMs: 15, argumentChunks: 12 };
  if (last?.role === 'user') {
    const page = `---\ntype: knowledge\ntitle: Job ${index}\ndescription: what job ${index} learned\n---\n\n# Job ${index}\n\n${'The curator wrote this page slowly. '.repeat(20)}\n`;
    return {
      ...slow,
      toolCalls: [
        {
          name: 'write_file',
          arguments: { path: `assets/jobs/j${index % 7}/page-${index}.md`, content: page },
        },
        {
          name: 'edit_file',
          arguments: {
            path: 'references/USER.md',
            old_str: '# User',
            new_str: `# User\n\nJob ${index} was here.`,
          },
        },
      ],
    };
  }
  return { ...slow, text: `UPDATED:\n- assets/jobs/j${index % 7}/page-${index}.md: added` };
}

function runUntilKilled(dir: string, baseURL: string, name: string, killAfterMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@raf/source', '--import', 'tsx', script, dir, baseURL, name],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const ready = !out.includes('ready\n');
      out += chunk;
      if (ready && out.includes('ready\n')) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (_code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`the child ended by itself (${signal ?? _code}): ${err}`));
      // Only whole lines: a line cut by the kill was never complete.
      else
        resolve(
          out
            .split('\n')
            .slice(0, -1)
            .filter((l) => l.startsWith('saved ')),
        );
    });
  });
}

describe('a crash during consolidation', () => {
  it(`kill -9 at random points, ${KILLS} times: the bundle always validates and no entry saved before the kill is lost`, async () => {
    const server = await startMockModelServer({ turns: curator, recordRequests: false });
    const dir = join(await mkdtemp(join(tmpdir(), 'raf-crash-')), 'brain');
    const saved: { page: string; id: string }[] = [];
    try {
      for (let i = 0; i < KILLS; i++) {
        const lines = await runUntilKilled(
          dir,
          server.baseURL,
          `p${i}`,
          100 + Math.floor(Math.random() * 1400),
        );
        for (const line of lines) {
          const [, page, id] = line.split(' ') as [string, string, string];
          saved.push({ page, id });
        }
        const report = await validateBundle(dir);
        expect(report.issues, `after kill ${i + 1}`).toEqual([]);
        const pages = new Map<string, string>();
        for (const { page } of saved)
          if (!pages.has(page)) pages.set(page, await readFile(join(dir, page), 'utf8'));
        const lost = saved.filter(({ page, id }) => !pages.get(page)?.includes(`<!-- entry:${id} -->`));
        expect(lost, `after kill ${i + 1}`).toEqual([]);
        await delay(10);
      }
      expect(saved.length).toBeGreaterThan(KILLS);
      expect(server.served).toBeGreaterThan(KILLS / 2);
    } finally {
      await server.close();
      await rm(join(dir, '..'), { recursive: true, force: true });
    }
  }, 900_000);
});
