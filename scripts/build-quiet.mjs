#!/usr/bin/env node
// Builds what a root script needs (`turbo run build` with the arguments given) and says one line
// about it on stderr instead of turbo's banner and summary; turbo's whole output is shown only
// when the build fails. Used by `pnpm quickstart`, `pnpm raf` and `pnpm bench`.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const turbo = createRequire(import.meta.url).resolve('turbo/bin/turbo');
const started = Date.now();
const slow = setTimeout(
  () => process.stderr.write('building the packages (the first time takes a minute or two)…\n'),
  1500,
);
const child = spawn(
  process.execPath,
  [turbo, 'run', 'build', '--output-logs=errors-only', ...process.argv.slice(2)],
  {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1' },
  },
);
const output = [];
child.stdout.on('data', (chunk) => output.push(chunk));
child.stderr.on('data', (chunk) => output.push(chunk));
child.on('error', (error) => {
  process.stderr.write(`build: could not start turbo: ${error.message}\n`);
  process.exit(1);
});
child.on('close', (code) => {
  clearTimeout(slow);
  if (code === 0) {
    if (Date.now() - started > 1500)
      process.stderr.write(`built in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    return;
  }
  process.stderr.write(Buffer.concat(output));
  process.exit(code ?? 1);
});
