import { execFileSync } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

// Issue 32: `raf run -i TEXT --attach FILE…` sends images and PDFs as content parts, refuses them
// before any request for a model that cannot read them, and the session keeps the parts.

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 9]);
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
let dir: string;
let server: MockModelServer;

const agent = (capabilities: string) => `kind: prompt
name: looker
instructions: Describe what you are shown.
model:
  provider: custom
  id: vision-model
  connection: { endpoint: ${server.baseURL} }
${capabilities}`;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-attach-')));
  server = await startMockModelServer({ turns: () => ({ text: 'a chart' }) });
  await writeFile(join(dir, 'chart.png'), PNG);
  await writeFile(join(dir, 'report.pdf'), PDF);
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({ PATH: process.env.PATH ?? '', HOME: dir });

describe('raf run --attach', () => {
  it('sends the text, the image and the PDF as parts, and the session keeps them for the next turn', async () => {
    await writeFile(join(dir, 'agent.yaml'), agent('  capabilities: { images: true, files: true }\n'));
    const first = createMemoryIO({ cwd: dir, env: env() });
    const argv = [
      'run',
      'agent.yaml',
      '-i',
      'What is this?',
      '--attach',
      'chart.png',
      '--attach',
      'report.pdf',
    ];
    const code = await main([...argv, '--session', 's1'], first.io);
    expect(code, first.err()).toBe(0);
    const user = (server.requests[0]!.body as { messages: { role: string; content: unknown }[] }).messages.at(
      -1,
    );
    expect(user).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
        {
          type: 'file',
          file: {
            filename: 'report.pdf',
            file_data: `data:application/pdf;base64,${PDF.toString('base64')}`,
          },
        },
      ],
    });

    // The saved session parses back with its parts: the next turn sends the image again.
    const second = createMemoryIO({ cwd: dir, env: env() });
    expect(
      await main(['run', 'agent.yaml', '-i', 'And now?', '--session', 's1'], second.io),
      second.err(),
    ).toBe(0);
    const history = (server.requests[1]!.body as { messages: { content: unknown }[] }).messages;
    expect(history.map((m) => m.content)).toContainEqual(user!.content);
  });

  it('a model that takes no images fails before the request, exit 2, naming the setting', async () => {
    await writeFile(join(dir, 'agent.yaml'), agent(''));
    const run = createMemoryIO({ cwd: dir, env: env() });
    const code = await main(['run', 'agent.yaml', '-i', 'look', '--attach', 'chart.png'], run.io);
    expect(code).toBe(2);
    expect(run.err() + run.out()).toMatch(/vision-model.*does not take images.*capabilities\.images/);
    expect(server.requests).toHaveLength(0);
  });

  it.runIf(process.platform !== 'win32')(
    'refuses a FIFO, a folder, a missing file and an unknown type without hanging',
    async () => {
      await writeFile(join(dir, 'agent.yaml'), agent('  capabilities: { images: true }\n'));
      execFileSync('mkfifo', [join(dir, 'pipe.png')]);
      await writeFile(join(dir, 'data.bin'), 'x');
      for (const [file, said] of [
        ['pipe.png', 'not a regular file'],
        ['.', 'cannot tell what kind of file'],
        ['gone.png', 'no such file'],
        ['data.bin', 'cannot tell what kind of file'],
      ] as const) {
        const run = createMemoryIO({ cwd: dir, env: env() });
        expect(await main(['run', 'agent.yaml', '-i', 'look', '--attach', file], run.io)).toBe(2);
        expect(run.err()).toContain(said);
      }
      expect(server.requests).toHaveLength(0);
    },
  );
});

describe('read_file on an image in the workspace', () => {
  const workspaceAgent = (capabilities: string) => `name: looker
model:
  provider: custom
  id: vision-model
  connection: { endpoint: ${server.baseURL} }
${capabilities}contexts:
  - kind: workspace
    name: here
    config: { root: ., policy: approve }
tools:
  - kind: file
`;

  it.each([
    ['takes images: the image follows the tool result', '  capabilities: { images: true }\n', true],
    ['takes none: a line describes it instead', '', false],
  ])('a model that %s', async (_name, capabilities, sees) => {
    await server.close();
    server = await startMockModelServer({
      turns: [
        { toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'chart.png' } }] },
        { text: 'a chart' },
      ],
    });
    await writeFile(join(dir, 'agent.yaml'), workspaceAgent(capabilities));
    const run = createMemoryIO({ cwd: dir, env: env() });
    expect(await main(['run', 'agent.yaml', '-i', 'look at chart.png'], run.io), run.err()).toBe(0);
    const messages = (server.requests[1]!.body as { messages: { role: string; content: unknown }[] })
      .messages;
    const tool = messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(String(tool.content).split('\n')[0]!)).toMatchObject({
      ok: true,
      data: { mediaType: 'image/png', bytes: PNG.length },
    });
    const image = {
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` },
    };
    if (sees) {
      expect(messages.at(-1)).toEqual({
        role: 'user',
        content: [{ type: 'text', text: 'Attached by tool call c1:' }, image],
      });
    } else {
      expect(String(tool.content)).toContain(
        `[image image/png, ${PNG.length} bytes] (this model cannot see it)`,
      );
      expect(JSON.stringify(messages)).not.toContain(PNG.toString('base64'));
    }
  });
});
