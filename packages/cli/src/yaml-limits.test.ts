import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** A "billion laughs" YAML: nine levels of nine aliases, a few hundred bytes that expand to 9^9. */
function bomb(): string {
  const names = 'abcdefghi';
  const lines = ['x-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < names.length; i++)
    lines.push(
      `x-${names[i]}: &${names[i]} [${Array(9)
        .fill(`*${names[i - 1]}`)
        .join(',')}]`,
    );
  return `${lines.join('\n')}\n`;
}

const built = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-yaml-bomb-')));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Runs the built `raf`; a hang is cut at 30 s (and fails the test: the exit code is then null). */
function raf(args: string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((done) => {
    execFile(process.execPath, [built, ...args], { cwd: dir, timeout: 30_000 }, (error, _stdout, stderr) => {
      const code = error ? ((error as { code?: number }).code ?? null) : 0;
      done({ code: typeof code === 'number' ? code : null, stderr, ms: Date.now() - started });
    });
  });
}

const MODEL = 'model: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }';

describe('a billion-laughs YAML fails fast with a located error (built CLI)', () => {
  it.runIf(existsSync(built))(
    'in the agent file: raf validate exits 2 naming agent.yaml:line:col',
    async () => {
      await writeFile(join(dir, 'agent.yaml'), `name: b\n${MODEL}\n${bomb()}`);
      const result = await raf(['validate', 'agent.yaml']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/agent\.yaml:5:\d+ .*too many alias expansions/);
      expect(result.ms).toBeLessThan(15_000);
    },
  );

  it.runIf(existsSync(built))(
    'in an OpenAPI spec: raf validate and raf run exit 2 naming the spec file and line',
    async () => {
      const spec = `openapi: 3.0.3\ninfo: {title: b, version: "1"}\n${bomb()}paths: {}\n`;
      await writeFile(join(dir, 'bomb.yaml'), spec);
      await writeFile(
        join(dir, 'agent.yaml'),
        `name: b\n${MODEL}\ntools:\n  - kind: openapi\n    name: api\n    config: { specPath: bomb.yaml, baseUrl: "https://api.test" }\n`,
      );
      for (const args of [
        ['validate', 'agent.yaml'],
        ['run', 'agent.yaml', '-i', 'hi'],
      ]) {
        const result = await raf(args);
        expect(result.code, args[0]).toBe(2);
        expect(result.stderr, args[0]).toMatch(/bomb\.yaml:5:\d+: too many alias expansions/);
        expect(result.ms, args[0]).toBeLessThan(15_000);
      }
    },
  );
});
