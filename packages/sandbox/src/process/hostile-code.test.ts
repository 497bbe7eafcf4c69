import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, has, isRoot, peakRssGrowth, processesOf } from '../test-support/harness.js';
import { type CodeInterpreterTool, createCodeInterpreterTool } from '../tool/code-interpreter.js';

// Hostile Python and shell, each a real run inside bubblewrap with rlimits. On this machine the
// tests run as root: the code runs as nobody (setpriv), so the process limit holds.
describe.runIf(has('bwrap') && has('python3'))('Python and shell in bubblewrap', () => {
  let tool: CodeInterpreterTool;
  let server: Server;
  let port = 0;
  let connections = 0;
  let work: string;
  const secret = 'sk-test-do-not-leak-0123456789';
  let before = 0;

  beforeAll(async () => {
    process.env.RAF_TEST_OPENAI_API_KEY = secret;
    process.env.RAF_TEST_GITHUB_TOKEN = secret;
    work = await mkdtemp(join(tmpdir(), 'raf-hostile-'));
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    before = await processesOf(isRoot ? 65534 : (process.getuid?.() ?? 0));
    tool = await createCodeInterpreterTool({
      timeout_secs: 3,
      memory_limit: '256m',
      pids_limit: 16,
      file_size_limit: '4m',
      output_limit: '1m',
    });
  });
  afterAll(async () => {
    delete process.env.RAF_TEST_OPENAI_API_KEY;
    delete process.env.RAF_TEST_GITHUB_TOKEN;
    await tool.dispose();
    await new Promise((resolve) => server.close(resolve));
    await rm(work, { recursive: true, force: true });
  });

  const py = (code: string, options?: Parameters<typeof call>[2]) =>
    call(tool, { language: 'python', code }, options);
  const sh = (code: string) => call(tool, { language: 'shell', code });

  it('runs Python: output, the repr of the last expression, the limits it ran under', async () => {
    const result = await py('import math\nprint("hello")\nmath.factorial(20)');
    expect(result).toMatchObject({
      ok: true,
      data: { ok: true, stdout: 'hello\n', stderr: '', result: '2432902008176640000', exitCode: 0 },
    });
    expect(result.data.limits).toEqual({
      timeout_secs: 3,
      memory_limit: '256m',
      output_limit: '1m',
      pids_limit: 16,
      file_size_limit: '4m',
      network: false,
      confinement: 'bubblewrap',
    });
  });

  it('shows a traceback from the code (not the driver) and fails with its last line', async () => {
    const result = await py('x = 1\nraise ValueError("bad value")');
    expect(result.error).toBe('python exited with code 1: ValueError: bad value');
    expect(result.data.stderr).toBe(
      'Traceback (most recent call last):\n  File "code.py", line 2, in <module>\n    raise ValueError("bad value")\nValueError: bad value\n',
    );
  });

  it('stops while True: pass at timeout_secs, killing the whole process group', async () => {
    const started = Date.now();
    const result = await py('import subprocess\nsubprocess.Popen(["sleep", "60"])\nwhile True: pass');
    expect(result.error).toMatch(/^timeout_secs exceeded: the code ran longer than 3 s/);
    expect(result.data.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('refuses 1 GB at memory_limit', async () => {
    const result = await py('x = bytearray(1024 * 1024 * 1024)');
    expect(result.error).toMatch(/^memory_limit exceeded: the code needed more than 256m/);
    expect(result.data.stderr).toMatch(/MemoryError/);
  });

  it('ends 100,000-deep recursion with a RecursionError at the stack limit', async () => {
    const result = await py('def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nf(100000)');
    expect(result.error).toMatch(/^stack_limit exceeded/);
    expect(result.data.stderr).toMatch(/RecursionError/);
  });

  it('bounds an os.fork() loop by pids_limit', async () => {
    const started = Date.now();
    const result = await py('import os\nwhile True:\n    os.fork()');
    expect(result.error).toMatch(/^pids_limit exceeded: the code tried to run more than 16 processes/);
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('bounds a shell fork bomb too, and leaves no process behind', async () => {
    const started = Date.now();
    const result = await sh('f() { f | f & }; f; sleep 1; echo done');
    // The kernel refused the forks past the limit (bash says so and retries), and the run ended.
    expect(result.data.stderr).toMatch(/fork: (retry: )?Resource temporarily unavailable/);
    expect(Date.now() - started).toBeLessThan(8_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await processesOf(isRoot ? 65534 : (process.getuid?.() ?? 0))).toBeLessThanOrEqual(before);
  });

  it('cannot write /etc/x, ../outside, or the host folder it was started from', async () => {
    const etc = await py('open("/etc/x", "w").write("x")');
    expect(etc.data.stderr).toMatch(/Read-only file system|Permission denied|No such file/);
    const outside = await py('open("../outside", "w").write("x")');
    expect(outside.data.stderr).toMatch(/Read-only file system|Permission denied/);
    const host = await sh(`echo x > ${join(work, 'y')}; ls ${work}`);
    expect(host.ok).toBe(false);
    expect(existsSync('/etc/x')).toBe(false);
    expect(existsSync(join(work, 'y'))).toBe(false);
    // The scratch folder is writable, and files up to file_size_limit fit.
    expect((await py('open("note.txt", "w").write("kept")\nopen("note.txt").read()')).data.result).toBe(
      "'kept'",
    );
  });

  it('stops a file at file_size_limit', async () => {
    const result = await py('open("big", "wb").write(b"x" * (8 << 20))');
    expect(result.error).toMatch(/^file_size_limit exceeded: a file grew past 4m/);
  });

  it('cannot open a socket to 127.0.0.1 (the listener gets no connection)', async () => {
    const result = await py(
      `import socket\ns = socket.create_connection(("127.0.0.1", ${port}), timeout=2)\nprint("connected")`,
    );
    expect(result.ok).toBe(false);
    expect(result.data.stdout).toBe('');
    expect(result.data.stderr).toMatch(/ConnectionRefusedError|Network is unreachable|OSError/);
    expect(connections).toBe(0);
  });

  it('sees none of the host environment: API keys are absent', async () => {
    const result = await py(
      'import os\nprint(sorted(os.environ))\n[v for v in os.environ.values() if "sk-test" in v]',
    );
    expect(result.data.result).toBe('[]');
    expect(result.data.stdout).not.toMatch(/KEY|TOKEN/);
    const shell = await sh('env; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"');
    expect(String(shell.data.stdout)).not.toContain(secret);
  });

  it('stops printing 100 MB at output_limit; host RSS stays bounded', async () => {
    const { value: result, growthMiB } = await peakRssGrowth(() =>
      py('import sys\nline = "x" * (1 << 20)\nfor _ in range(100):\n    sys.stdout.write(line)'),
    );
    expect(result.error).toMatch(/^output_limit exceeded: the code wrote more than 1m of output/);
    expect(result.data.truncated).toBe(true);
    expect(String(result.data.stdout).length).toBeLessThan(25_000);
    expect(growthMiB).toBeLessThan(100);
  });

  it('an abort kills the process group at once', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const result = await py('import time\ntime.sleep(30)', { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, error: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it.runIf(isRoot && has('setpriv'))('runs the code as nobody when the host is root', async () => {
    expect((await py('import os\n(os.getuid(), os.getgid())')).data.result).toBe('(65534, 65534)');
    const caps = await sh('grep CapEff /proc/self/status');
    expect(caps.data.stdout).toBe('CapEff:\t0000000000000000\n');
  });
});

describe.runIf(has('bwrap') && has('python3'))('persist: true with Python', () => {
  it('keeps the scratch folder of a session between calls, and removes it on dispose', async () => {
    const tool = await createCodeInterpreterTool({ persist: true, timeout_secs: 5 });
    try {
      await call(
        tool,
        { language: 'python', code: 'open("data.csv", "w").write("a,b\\n1,2\\n")' },
        { sessionId: 's1' },
      );
      const again = await call(tool, { language: 'shell', code: 'cat data.csv' }, { sessionId: 's1' });
      expect(again.data.stdout).toBe('a,b\n1,2\n');
      const other = await call(tool, { language: 'shell', code: 'ls' }, { sessionId: 's2' });
      expect(other.data.stdout).toBe('');
    } finally {
      await tool.dispose();
    }
  });
});
