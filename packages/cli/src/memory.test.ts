import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, type RecordedRequest, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO as memoryIO } from './memory-io.js';

let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-memory-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

type Message = { role: string; content: string };
const messagesOf = (r: RecordedRequest) => (r.body?.messages ?? []) as Message[];
const isCurator = (r: RecordedRequest) => messagesOf(r)[0]?.content.includes('# Memory curator') ?? false;
const jobsOf = (s: MockModelServer) =>
  s.requests.filter((r) => isCurator(r) && messagesOf(r).at(-1)?.role === 'user');

/** The agent answers; each curator job writes a page for the turns it got, then reports it. */
function model(request: RecordedRequest) {
  const messages = messagesOf(request);
  const last = messages.at(-1);
  if (!isCurator(request)) return { text: `answer to ${last?.content ?? ''}` };
  const job = jobsOf(server!).length;
  if (last?.role === 'user') {
    const said = last.content.match(/User: [^\n]*/g) ?? [];
    return {
      toolCalls: [
        {
          name: 'write_file',
          arguments: {
            path: `assets/chat/log/job-${job}.md`,
            content: `---\ntype: knowledge\ntitle: Job ${job}\ndescription: turns of job ${job}\n---\n\n${said.join('\n')}\n`,
          },
        },
      ],
    };
  }
  return { text: `UPDATED:\n- assets/chat/log/job-${job}.md: turns recorded` };
}

async function agentFile(): Promise<void> {
  await writeFile(
    join(dir, 'agent.yaml'),
    `name: remembering\nmodel: { id: m, provider: custom, connection: { endpoint: "${server!.baseURL}" } }\ncontexts:\n  - kind: memory\n    name: super-brain\n    config: { consolidationInterval: 3 }\n`,
  );
}

describe('raf with super-brain memory', () => {
  it('12 turns with interval 3: 4 consolidations, user edits survive, the bundle passes raf memory check', async () => {
    server = await startMockModelServer({ turns: model });
    await agentFile();
    const bundle = join(dir, 'logs/super-brain');
    for (let turn = 1; turn <= 12; turn++) {
      const run = memoryIO({ cwd: dir });
      expect(
        await main(['run', 'agent.yaml', '-i', `turn ${turn}`, '--session', 'conv'], run.io),
        run.err(),
      ).toBe(0);
      expect(run.out()).toBe(`answer to turn ${turn}\n`);
      expect(jobsOf(server)).toHaveLength(Math.floor(turn / 3));
      if (turn === 6) {
        const user = await readFile(join(bundle, 'references/USER.md'), 'utf8');
        await writeFile(
          join(bundle, 'references/USER.md'),
          `${user}\nThe user is Ada; she edits this file by hand.\n`,
        );
      }
    }
    expect(messagesOf(jobsOf(server)[3]!).at(-1)?.content).toMatch(/User: turn 10[\s\S]*User: turn 12/);
    expect(await readFile(join(bundle, 'references/USER.md'), 'utf8')).toContain(
      'she edits this file by hand',
    );
    expect(await readFile(join(bundle, 'assets/chat/log/INDEX.md'), 'utf8')).toContain(
      '[job-4.md](job-4.md)',
    );
    const log = await readFile(join(bundle, 'log.md'), 'utf8');
    expect(log.match(/\| conv \| updated: /g)).toHaveLength(4);

    const check = memoryIO({ cwd: dir });
    expect(await main(['memory', 'check', 'logs/super-brain'], check.io), check.err()).toBe(0);
    expect(check.out()).toBe(`${bundle}: 16 pages, valid\n`);
    const json = memoryIO({ cwd: dir });
    expect(await main(['memory', 'check', 'logs/super-brain', '--json'], json.io)).toBe(0);
    expect(json.lines()[0]).toMatchObject({ ok: true, pages: 16, issues: [] });
    // index.md is still the entry: it lists references and assets.
    expect(await readFile(join(bundle, 'index.md'), 'utf8')).toContain('[assets/INDEX.md](assets/INDEX.md)');

    // Nothing new since the last job: a forced consolidation has nothing to do.
    const idle = memoryIO({ cwd: dir });
    expect(
      await main(['memory', 'consolidate', 'agent.yaml', '--session', 'conv'], idle.io),
      idle.err(),
    ).toBe(0);
    expect(idle.out()).toBe(`${bundle}: skipped\n`);
    const thirteenth = memoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '-i', 'turn 13', '--session', 'conv'], thirteenth.io)).toBe(0);
    expect(jobsOf(server)).toHaveLength(4);
    const forced = memoryIO({ cwd: dir });
    expect(
      await main(['memory', 'consolidate', 'agent.yaml', '--session', 'conv'], forced.io),
      forced.err(),
    ).toBe(0);
    expect(forced.out()).toBe(`${bundle}: updated (assets/chat/log/job-5.md)\n`);
    expect(jobsOf(server)).toHaveLength(5);
    expect(messagesOf(jobsOf(server)[4]!).at(-1)?.content).toContain('User: turn 13');
  });

  it('raf chat consolidates in the background and finishes what is queued when the user leaves', async () => {
    server = await startMockModelServer({ turns: model });
    await agentFile();
    const chat = memoryIO({ cwd: dir, stdin: ['one\n', 'two\n', 'three\n', '/exit\n'] });
    expect(await main(['chat', 'agent.yaml', '--session', 'talk'], chat.io), chat.err()).toBe(0);
    expect(jobsOf(server)).toHaveLength(1);
    expect(chat.err()).toContain('memory: updated assets/chat/log/job-1.md');
    const log = await readFile(join(dir, 'logs/super-brain/log.md'), 'utf8');
    expect(log).toMatch(/\| talk \| updated: assets\/chat\/log\/job-1\.md \|\n$/);
    expect(await readFile(join(dir, 'logs/super-brain/assets/chat/log/job-1.md'), 'utf8')).toContain(
      'User: three',
    );
  });

  it('raf memory check reports each problem with its place and exits 2', async () => {
    server = await startMockModelServer({ turns: model });
    await agentFile();
    const run = memoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '-i', 'hi'], run.io)).toBe(0);
    await writeFile(join(dir, 'logs/super-brain/references/SOUL.md'), 'no frontmatter\n');
    await writeFile(join(dir, 'logs/super-brain/notes.md'), '---\ntype: note\n---\nstray\n');
    const check = memoryIO({ cwd: dir });
    expect(await main(['memory', 'check', 'logs/super-brain'], check.io)).toBe(2);
    expect(check.err()).toBe(
      [
        "references/SOUL.md:1: frontmatter: no YAML frontmatter (the page must start with '---')",
        'notes.md: not-indexed: not listed in index.md',
        '',
      ].join('\n'),
    );
    expect(check.out()).toBe(`${join(dir, 'logs/super-brain')}: 11 pages, 2 problems\n`);
    const usage = memoryIO({ cwd: dir });
    expect(await main(['memory', 'tidy'], usage.io)).toBe(2);
    expect(usage.err()).toContain('raf memory tidy: use "raf memory check DIR"');
    const none = memoryIO({ cwd: dir });
    await writeFile(
      join(dir, 'plain.yaml'),
      `name: p\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\n`,
    );
    expect(await main(['memory', 'consolidate', 'plain.yaml'], none.io)).toBe(2);
    expect(none.err()).toContain('plain.yaml has no memory');
  });
});
