import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMemoryIO, main } from '../packages/cli/src/index.js';

// Issue 29 item 7: every example the CLI runs runs twice in a row from a clean checkout, and leaves
// no file git would call untracked. The command is the example's own `start` script (what its
// README documents), run in-process on a committed copy.

const examples = fileURLToPath(new URL('../examples/', import.meta.url));
const CLI = 'node ../../packages/cli/dist/bin.js ';
const CLI_EXAMPLES = [
  'knowledge',
  'mcp',
  'memory',
  'orchestrations',
  'quickstart',
  'skills',
  'sub-agents',
  'wiki',
  'workflow',
];

/** The words of a shell command line: double-quoted (with `\"`) or plain. */
function words(line: string): string[] {
  return [...line.matchAll(/"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g)].map(
    (m) => m[1]?.replace(/\\(.)/g, '$1') ?? m[2] ?? m[3] ?? '',
  );
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });

describe('the example READMEs', () => {
  it('never say bare `pnpm` (the top README sets a machine up without it): npx -y pnpm@12.4.2, or node', async () => {
    const { readdir } = await import('node:fs/promises');
    for (const name of await readdir(examples)) {
      const text = await readFile(join(examples, name, 'README.md'), 'utf8').catch(() => '');
      const bare = text
        .split('\n')
        .filter((line) => /(^|[\s`(])pnpm (?!@)/.test(line.replace(/npx -y pnpm@\S+/g, '')));
      expect(bare, `examples/${name}/README.md`).toEqual([]);
    }
  });
});

describe.each(CLI_EXAMPLES)('the %s example, twice in a row', (name) => {
  it('runs its start script twice, exit 0 both times, and leaves no untracked file', async () => {
    const start: string = JSON.parse(await readFile(join(examples, name, 'package.json'), 'utf8')).scripts
      .start;
    const commands = start.split(' && ').map((part) => {
      expect(part.startsWith(CLI), `${name}: ${part}`).toBe(true);
      return words(part.slice(CLI.length));
    });
    const root = await mkdtemp(join(tmpdir(), `raf-twice-${name}-`));
    const dir = join(root, name);
    try {
      await cp(join(examples, name), dir, {
        recursive: true,
        filter: (src) => !src.includes('node_modules'),
      });
      // Its installed packages (an MCP server it starts, its extensions) as in the checkout.
      await symlink(join(examples, name, 'node_modules'), join(dir, 'node_modules'));
      // A clean checkout: the copy committed, with the repository's own ignore rules.
      git(dir, 'init', '-q');
      const ignored = await readFile(fileURLToPath(new URL('../.gitignore', import.meta.url)), 'utf8');
      await writeFile(join(dir, '.git/info/exclude'), `${ignored}\nnode_modules\n`);
      git(dir, 'add', '-A');
      git(dir, 'commit', '-qm', 'clean');
      const failedCalls: string[][] = [];
      for (const round of [1, 2]) {
        for (const argv of commands) {
          const run = createMemoryIO({ cwd: dir });
          failedCalls.push([]);
          const code = await main(argv, run.io);
          failedCalls.at(-1)?.push(
            ...run
              .err()
              .split('\n')
              .filter((line) => line.includes('✗')),
          );
          expect(code, `${name} run ${round}: raf ${argv.join(' ')}\n${run.err()}`).toBe(0);
        }
      }
      // The second run's tool calls fail no more than the first's (a page that now exists, a file in the way).
      const half = failedCalls.length / 2;
      expect(failedCalls.slice(half)).toEqual(failedCalls.slice(0, half));
      expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);
});
