// Runs the hostile cases and prints one JSON line of results: started by unprivileged.test.ts as
// an unprivileged user, so the whole backend runs without root.
import { createServer } from 'node:net';
import { createCodeInterpreterTool } from '../tool/code-interpreter.js';
import { call } from './harness.js';

const server = createServer((socket) => {
  connections++;
  socket.destroy();
});
let connections = 0;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };
const tool = await createCodeInterpreterTool({
  timeout_secs: 3,
  pids_limit: 16,
  file_size_limit: '4m',
  unconfined: process.argv.includes('--unconfined'),
});
const cases: Record<string, { language: string; code: string }> = {
  uid: { language: 'python', code: 'import os\nos.getuid()' },
  loop: { language: 'python', code: 'while True: pass' },
  memory: { language: 'python', code: 'x = bytearray(1 << 30)' },
  recursion: { language: 'python', code: 'def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nf(100000)' },
  forks: { language: 'python', code: 'import os\nwhile True:\n    os.fork()' },
  etc: { language: 'python', code: 'open("/etc/x", "w").write("x")' },
  outside: { language: 'python', code: 'open("../outside", "w").write("x")' },
  socket: {
    language: 'python',
    code: `import socket\nsocket.create_connection(("127.0.0.1", ${port}), timeout=2)`,
  },
  env: { language: 'shell', code: 'env' },
  print: {
    language: 'python',
    code: 'import sys\nfor _ in range(100):\n    sys.stdout.write("x" * (1 << 20))',
  },
  js: { language: 'javascript', code: 'function f(n) { return n === 0 ? 0 : 1 + f(n - 1) } f(100000)' },
};
const results: Record<string, unknown> = {};
for (const [name, args] of Object.entries(cases)) {
  const result = await call(tool, args);
  results[name] = {
    ok: result.ok,
    error: result.error,
    result: result.data.result,
    stdout: String(result.data.stdout).slice(0, 2000),
    stderr: String(result.data.stderr).slice(-500),
    confinement: (result.data.limits as { confinement?: string }).confinement,
  };
}
await tool.dispose();
server.close();
console.log(JSON.stringify({ uid: process.getuid?.(), connections, notes: tool.notes, results }));
