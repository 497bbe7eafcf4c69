import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-options-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every command, by the words that name it. */
const COMMANDS = [
  'run',
  'chat',
  'validate',
  'inspect',
  'tools',
  'index',
  'schema',
  'studio',
  'memory check',
  'memory consolidate',
  'mcp serve',
  'worker',
  'approve',
  'runs list',
  'runs show',
  'runs cancel',
];

/** One valid value for each option that takes one; every option the CLI has, from `raf --help`. */
const VALUE: Record<string, string | undefined> = {
  '--approve': 'all',
  '--lang': 'en',
  '--http': '0',
  '--port': '0',
  '--var': 'k=v',
  '--concurrency': '2',
};
const BOOLEAN = new Set([
  '--json',
  '--strict',
  '--lenient',
  '--mermaid',
  '--open',
  '--durable',
  '--all',
  '--none',
]);
const SHORT: Record<string, string> = { '-i': '--input', '-h': '--help', '-V': '--version' };

/** The options a help text or README cell names, long form (`-i` is `--input`). */
function optionsIn(text: string): string[] {
  const found = [...text.matchAll(/(?<![\w-])(--?[a-z][a-z-]*)/g)].map((m) => m[1] ?? '');
  return [...new Set(found.map((o) => SHORT[o] ?? o))].filter((o) => o !== '--help' && o !== '--version');
}

async function cli(argv: string[]) {
  const run = createMemoryIO({ cwd: dir });
  const code = await main(argv, run.io);
  return { code, out: run.out(), err: run.err() };
}

async function helpOf(command: string): Promise<string> {
  const help = await cli([...command.split(' '), '--help']);
  expect(help.code, command).toBe(0);
  return help.out.slice(help.out.indexOf('Usage:'));
}

describe('each command takes exactly the options its --help lists', () => {
  it('refuses every other option with one line naming it and the command (exit 2)', async () => {
    const all = optionsIn((await cli(['--help'])).out);
    expect(all.length).toBeGreaterThanOrEqual(19);
    for (const command of COMMANDS) {
      const listed = optionsIn(await helpOf(command));
      // No command takes them all: each help is its own, not the whole list.
      expect(listed.length, command).toBeLessThan(all.length);
      for (const option of all) {
        const value = BOOLEAN.has(option) ? [] : [VALUE[option] ?? 'x'];
        const { code, err } = await cli([...command.split(' '), option, ...value]);
        const refused = `raf: raf ${command} does not take ${option} (raf ${command} --help lists its options)\n`;
        if (listed.includes(option)) expect(err, `${command} ${option}`).not.toContain('does not take');
        else {
          expect(err, `${command} ${option}`).toBe(refused);
          expect(code).toBe(2);
        }
      }
    }
  }, 60_000);

  it('names the option as typed, also in its short form or with an inline value', async () => {
    expect((await cli(['inspect', 'x.yaml', '-i', 'hi'])).err).toBe(
      'raf: raf inspect does not take -i (raf inspect --help lists its options)\n',
    );
    expect((await cli(['validate', 'x.yaml', '--approve=all'])).err).toBe(
      'raf: raf validate does not take --approve (raf validate --help lists its options)\n',
    );
    const schema = await cli(['schema', '--base-url', 'http://127.0.0.1:9/v1']);
    expect(schema).toEqual({
      code: 2,
      out: '',
      err: 'raf: raf schema does not take --base-url (raf schema --help lists its options)\n',
    });
  });

  it('lets --help and --version win over the rest of the line', async () => {
    const help = await cli(['validate', 'x.yaml', '--approve', 'all', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^raf validate <agent\.yaml>… — /);
    expect((await cli(['schema', '--json', '-V'])).out).toMatch(/^raf \d/);
  });

  it('shows one command in raf COMMAND --help, and each of a group in raf mcp --help / raf memory --help', async () => {
    const validate = await cli(['validate', '--help']);
    expect(validate.out).toContain(
      '  raf validate <agent.yaml>… [--json] [--lenient | --strict] [--mcp-config FILE]\n',
    );
    expect(validate.out).not.toContain('raf run');
    const memory = (await cli(['memory', '--help'])).out;
    expect(memory).toContain('raf memory check <dir> [--json]');
    expect(memory).toContain('raf memory consolidate <agent.yaml>');
    expect((await cli(['mcp', '--help'])).out).toMatch(/^raf mcp serve <agent\.yaml> — /);
    // An unknown command's help is the whole list.
    expect((await cli(['frobnicate', '--help'])).out).toContain('\nCommands:\n');
  });

  it('the README table lists the same options per command as --help', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const rows = new Map(
      [...readme.matchAll(/^\| `([a-z][a-z ]*?)(?: [<[][^`]*)?` +\|((?:[^|\\]|\\.)*)\|/gm)].map((m) => [
        m[1] ?? '',
        m[2] ?? '',
      ]),
    );
    for (const command of COMMANDS) {
      expect(rows.has(command), command).toBe(true);
      expect(optionsIn(rows.get(command) ?? '').sort(), command).toEqual(
        optionsIn(await helpOf(command)).sort(),
      );
    }
  });
});

describe('what a command would ignore is refused (exit 2, one line)', () => {
  it('options that exclude each other, or that do something only beside another', async () => {
    for (const [argv, message] of [
      [
        ['validate', 'a.yaml', '--lenient', '--strict'],
        'raf validate: --lenient and --strict exclude each other; give one',
      ],
      [
        ['inspect', 'a.yaml', '--json', '--mermaid'],
        'raf inspect: --json and --mermaid exclude each other; give one',
      ],
      [
        ['inspect', 'a.yaml', '--lang', 'zh-CN', '--json'],
        'raf inspect: --json and --lang exclude each other; give one',
      ],
      [['mcp', 'serve', 'a.yaml', '--host', '0.0.0.0'], 'raf mcp serve: --host applies only with --http'],
      [['run', 'a.yaml', '-i', 'one', '--input', 'two'], '--input is given twice; give it once'],
      [['run', 'a.yaml', '-i', 'x', '--model='], '--model needs a value (got an empty one)'],
      [['run', 'a.yaml', '-i', 'x', '--trace', ''], '--trace needs a value (got an empty one)'],
      [['run', 'a.yaml', '-i', 'x', '--session', ''], '--session needs a value (got an empty one)'],
      [['studio', '--governance='], '--governance needs a value (got an empty one)'],
    ] as const) {
      const { code, out, err } = await cli([...argv]);
      expect(err, argv.join(' ')).toBe(`raf: ${message}\n`);
      expect(code).toBe(2);
      expect(out).toBe('');
    }
  });

  it('an argument a command does not take', async () => {
    for (const [argv, message] of [
      [['mcp', 'serve', 'a.yaml', 'b.yaml'], 'raf mcp serve: unexpected argument "b.yaml"'],
      [['memory', 'check', 'logs', 'more'], 'raf memory check: unexpected argument "more"'],
      [['memory', 'consolidate', 'a.yaml', 'b.yaml'], 'raf memory consolidate: unexpected argument "b.yaml"'],
      [['index', 'a.yaml', 'b.yaml'], 'raf index: unexpected argument "b.yaml"'],
      [['chat', 'a.yaml', 'hello'], 'raf chat: unexpected argument "hello"'],
    ] as const) {
      const { code, err } = await cli([...argv]);
      expect(err, argv.join(' ')).toBe(`raf: ${message}\n`);
      expect(code).toBe(2);
    }
    for (const argv of [
      ['tools', 'list', 'extra'],
      ['tools', 'core', 'read_file', 'on', 'extra'],
      ['tools', 'route', 'read_file', 'auto', 'extra'],
    ]) {
      const { code, err } = await cli(argv);
      expect(err, argv.join(' ')).toMatch(
        new RegExp(`^raf: raf tools ${argv[1]}: unexpected argument "extra"\\n`),
      );
      expect(code).toBe(2);
    }
    // Nothing was written: the governance file does not exist.
    await expect(readFile(join(dir, '.raf/governance.json'))).rejects.toThrow(/ENOENT/);
  });
});
