import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// SPEC §9: a security-relevant setting that is misspelt or misplaced is an error in every
// command, never a warning that falls back. Each command of the built binary gets each bad file
// and must exit 2 with the located problem, before it runs, serves or asks a model anything.
const built = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

const model = 'model: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }';
const BAD: Record<string, { yaml: string; expect: string }> = {
  // `policy` beside `config` does nothing: the workspace would run under the default policy.
  misplaced: {
    yaml: `name: a\n${model}\ncontexts:\n  - kind: workspace\n    name: w\n    policy: deny\n    config: { root: . }\ntools:\n  - kind: file\n`,
    expect: "agent.yaml:6:5 contexts[0].policy: unknown field 'policy' (it goes under config: config.policy)",
  },
  // A misspelt value used to fall back to deny with a warning; now it stops every command.
  misspelt: {
    yaml: `name: a\n${model}\ncontexts:\n  - kind: workspace\n    name: w\n    config: { root: ., policy: alow }\ntools:\n  - kind: file\n`,
    expect: 'agent.yaml:6:32 contexts[0].config.policy: unknown workspace policy "alow"',
  },
  // Any key validate calls an error (here a misspelt top-level key) is one everywhere.
  unknown: {
    yaml: `name: a\n${model}\ncontxts: []\n`,
    expect: "agent.yaml:3:1 contxts: unknown field 'contxts' (did you mean 'contexts'?)",
  },
};

const COMMANDS: Record<string, string[]> = {
  validate: ['validate', 'agent.yaml'],
  run: ['run', 'agent.yaml', '-i', 'x'],
  chat: ['chat', 'agent.yaml'],
  inspect: ['inspect', 'agent.yaml'],
  studio: ['studio', 'agent.yaml', '--port', '0'],
  'mcp serve': ['mcp', 'serve', 'agent.yaml'],
};

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'raf-fail-closed-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function raf(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [built, ...args],
      { cwd, timeout: 20_000, env: { PATH: process.env.PATH ?? '', HOME: cwd } },
      (error, stdout, stderr) =>
        done({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

describe.runIf(existsSync(built))('security settings never fail open (the built CLI)', () => {
  for (const [name, bad] of Object.entries(BAD)) {
    it(`every command exits 2 on a ${name} key, naming its line`, async () => {
      const dir = join(root, name);
      await import('node:fs/promises').then((fs) => fs.mkdir(dir));
      await writeFile(join(dir, 'agent.yaml'), bad.yaml);
      const results = await Promise.all(
        Object.entries(COMMANDS).map(async ([command, args]) => ({ command, ...(await raf(args, dir)) })),
      );
      for (const result of results) {
        expect({ command: result.command, code: result.code }).toEqual({ command: result.command, code: 2 });
        expect(result.stderr).toContain(`error: ${bad.expect}`);
        // Nothing served, nothing answered: the studio printed no URL, mcp serve no protocol.
        expect(result.stdout).toBe('');
      }
    }, 60_000);
  }
});
