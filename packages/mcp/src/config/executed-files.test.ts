import { describe, expect, it } from 'vitest';
import { shellWords, startPaths } from './executed-files.js';

describe('the paths a stdio server start may load', () => {
  it('splits option strings as a shell does', () => {
    expect(shellWords(`--require ./a.cjs  --import="./b c.mjs" 'd e' f\\ g`)).toEqual([
      '--require',
      './a.cjs',
      '--import=./b c.mjs',
      'd e',
      'f g',
    ]);
    expect(shellWords('')).toEqual([]);
    expect(shellWords('""')).toEqual(['']);
  });

  it('takes args and env values, resolved against the cwd; URLs and flags are not paths', () => {
    const paths = startPaths({
      args: ['--require=./pre.cjs', '--import', './pre3.mjs', 'server.mjs', 'https://x.example/a'],
      env: {
        NODE_OPTIONS: '--require ./pre2.cjs --import=/abs/hook.mjs --max-old-space-size=100',
        PYTHONSTARTUP: 'startup.py',
        JAVA_TOOL_OPTIONS: '-javaagent:agent.jar',
        LD_PRELOAD: '/lib/a.so:/lib/b.so',
        URL: 'http://127.0.0.1/x',
      },
      cwd: '/srv',
    });
    for (const path of [
      '/srv/pre.cjs',
      '/srv/pre3.mjs',
      '/srv/server.mjs',
      '/srv/pre2.cjs',
      '/abs/hook.mjs',
      '/srv/startup.py',
      '/srv/agent.jar',
      '/lib/a.so',
      '/lib/b.so',
    ])
      expect(paths).toContain(path);
    expect(paths.some((p) => p.includes('://') || p.includes('/-'))).toBe(false);
  });
});
