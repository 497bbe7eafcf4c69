import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, peakRssGrowth } from '../test-support/harness.js';
import { type CodeInterpreterTool, createCodeInterpreterTool } from '../tool/code-interpreter.js';

let tool: CodeInterpreterTool;
beforeAll(async () => {
  tool = await createCodeInterpreterTool({
    languages: ['javascript'],
    timeout_secs: 2,
    memory_limit: '64m',
    output_limit: '1m',
  });
});
afterAll(() => tool.dispose());

const js = (code: string, options?: Parameters<typeof call>[2]) =>
  call(tool, { language: 'javascript', code }, options);

describe('JavaScript in QuickJS', () => {
  it('returns the last expression and the console output', async () => {
    const result = await js('console.log("hi", { a: 1 }); console.error("oops"); [1, 2].map((x) => x * 2)');
    expect(result).toMatchObject({
      ok: true,
      data: { ok: true, language: 'javascript', stdout: 'hi {"a":1}\n', stderr: 'oops\n', result: [2, 4] },
    });
    expect(result.data.limits).toEqual({
      timeout_secs: 2,
      memory_limit: '64m',
      output_limit: '1m',
      stack_limit: '256k',
      confinement: 'quickjs',
    });
  });

  it('settles a returned promise, and reports an uncaught exception as the error', async () => {
    expect((await js('Promise.resolve(6 * 7)')).data.result).toBe(42);
    const thrown = await js('null.x');
    expect(thrown.ok).toBe(false);
    expect(thrown.error).toMatch(/^TypeError: cannot read property 'x' of null/);
  });

  it('sees nothing of the host: no require, process, fetch, timers or module import', async () => {
    const result = await js(
      '[typeof require, typeof process, typeof fetch, typeof setTimeout, typeof globalThis.emit, typeof std, typeof os]',
    );
    expect(result.data.result).toEqual(Array(7).fill('undefined'));
    expect((await js('import("fs")')).error).toMatch(/Error/);
  });

  it('stops while(true){} at timeout_secs without blocking the event loop', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const started = Date.now();
    const result = await js('while (true) {}');
    clearInterval(timer);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^timeout_secs exceeded: the code ran longer than 2 s/);
    expect(result.data.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(ticks).toBeGreaterThan(10); // the agent's own timers kept running
  });

  it('refuses a 1 GB allocation and an unbounded array at memory_limit; host RSS stays bounded', async () => {
    const { value, growthMiB } = await peakRssGrowth(async () => [
      await js('new ArrayBuffer(1024 * 1024 * 1024).byteLength'),
      await js('const a = []; while (true) a.push(new Array(100000).fill(1))'),
      await js('let s = "x"; while (true) s += s'),
    ]);
    const [buffer, array, string] = value;
    expect(buffer?.error).toMatch(/^memory_limit exceeded: the code needed more than 64m/);
    expect(array?.error).toMatch(/^memory_limit exceeded/);
    expect(string?.error).toMatch(/memory_limit exceeded|InternalError: string too long/);
    // 64m for scripts; the instance's memory is capped at 2 × 64m + 32m.
    expect(growthMiB).toBeLessThan(400);
  });

  it('ends 100,000-deep recursion at the stack limit, and survives unguarded native recursion', async () => {
    const deep = await js('function f(n) { return n === 0 ? 0 : 1 + f(n - 1) } f(100000)');
    expect(deep.error).toMatch(
      /^stack_limit exceeded: recursion went deeper than the interpreter's 256k stack/,
    );
    // Its own time limit: building 100,000 nested arrays takes about a second here, several on a
    // loaded machine, and the 2 s limit then ended it first (a timeout, not the stack limit).
    const patient = await createCodeInterpreterTool({
      languages: ['javascript'],
      timeout_secs: 60,
      memory_limit: '64m',
      output_limit: '1m',
    });
    try {
      const nested = await call(patient, {
        language: 'javascript',
        code: 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; JSON.stringify(a).length',
      });
      expect(nested.ok).toBe(false);
      expect(nested.error).toMatch(/^(stack_limit|memory_limit) exceeded/);
    } finally {
      await patient.dispose();
    }
    expect((await js('1 + 1')).data.result).toBe(2); // a fresh instance took over
  });

  it('stops printing 100 MB at output_limit', async () => {
    const { value: result, growthMiB } = await peakRssGrowth(() =>
      js('const line = "x".repeat(1024 * 1024); for (let i = 0; i < 100; i++) console.log(line)'),
    );
    expect(result.error).toMatch(/^output_limit exceeded: the code wrote more than 1m of console output/);
    expect(result.data.truncated).toBe(true);
    expect(String(result.data.stdout).length).toBeLessThan(25_000);
    expect(growthMiB).toBeLessThan(200);
  });

  it('an abort interrupts a running script', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const result = await js('while (true) {}', { signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(result).toMatchObject({ ok: false, error: 'cancelled' });
  });

  it('starts every call fresh unless persist is set', async () => {
    await js('var counter = 1');
    expect((await js('typeof counter')).data.result).toBe('undefined');
  });
});

describe('persist: true', () => {
  let persisted: CodeInterpreterTool;
  beforeAll(async () => {
    persisted = await createCodeInterpreterTool({ languages: ['js'], persist: true, timeoutSecs: 2 });
  });
  afterAll(() => persisted.dispose());

  it('keeps one context per session, so a model can build state step by step', async () => {
    const run = (code: string, sessionId?: string) =>
      call(persisted, { code }, sessionId === undefined ? {} : { sessionId });
    await run('var total = 0; function add(n) { total += n; return total }', 'a');
    await run('add(5)', 'a');
    expect((await run('add(10)', 'a')).data.result).toBe(15);
    expect((await run('typeof total', 'b')).data.result).toBe('undefined');
    // Without a session id (the loop gives none yet), the tool instance is the session.
    await run('var mine = 1');
    expect((await run('mine + 1')).data.result).toBe(2);
    // A timeout keeps the state; the next call goes on.
    expect((await run('while (true) {}', 'a')).error).toMatch(/^timeout_secs/);
    expect((await run('total', 'a')).data.result).toBe(15);
  });

  it('drops a session that hit memory_limit and says so', async () => {
    await call(persisted, { code: 'var keep = 1' }, { sessionId: 'm' });
    const full = await call(
      persisted,
      { code: 'var hog = []; while (true) hog.push(new ArrayBuffer(1 << 20))' },
      { sessionId: 'm' },
    );
    expect(full.error).toMatch(/^memory_limit exceeded: .*; the session state was reset$/);
    expect(full.data.stateReset).toBe(true);
    expect((await call(persisted, { code: 'typeof keep' }, { sessionId: 'm' })).data.result).toBe(
      'undefined',
    );
  });
});
