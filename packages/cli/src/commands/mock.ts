import { resolve } from 'node:path';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { answerFor, describeAnswer, type MockMode } from '../mock/mock-answers.js';
import { loadMockScript } from '../mock/mock-script.js';
import { escapeLine } from '../render/escape.js';

const MODES: readonly MockMode[] = ['script', 'echo', 'tools'];

/**
 * `raf mock [script.yaml] [--port P] [--mode script|echo|tools]`: an OpenAI-compatible model
 * server on 127.0.0.1 (the `@raf/client/testing` mock server), until Ctrl-C or SIGTERM. One line
 * per answer on stderr; the URL, and how to point an agent at it, on stdout.
 */
export async function mockCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [file] = args.files;
  const mode = (args.mode ?? (file ? 'script' : 'echo')) as MockMode;
  if (!MODES.includes(mode)) throw new CliError(`--mode must be script, echo or tools (got "${mode}")`);
  if (mode === 'script' && !file)
    throw new CliError('raf mock --mode script needs a script file: raf mock script.yaml');
  if (mode !== 'script' && file)
    throw new CliError(`raf mock --mode ${mode} plays no script; drop ${file} or --mode ${mode}`);
  const script = file ? await loadMockScript(resolve(io.cwd, file), file) : [];
  const answer = answerFor(mode, script);
  const { startMockModelServer } = await import('@raf/client/testing');
  let served = 0;
  const server = await startMockModelServer({
    turns: (request) => {
      const turn = answer(request);
      served++;
      io.stderr.write(`#${served} ${escapeLine(describeAnswer(turn))}\n`);
      return turn;
    },
    // A server left running for hours keeps no requests.
    recordRequests: false,
    ...(args.port !== undefined && { port: args.port }),
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE')
      throw new CliError(`port ${args.port} on 127.0.0.1 is in use (raf mock --port N)`);
    throw error;
  });
  const what = mode === 'script' ? `${file}, ${script.length} turn${script.length === 1 ? '' : 's'}` : mode;
  io.stdout.write(
    `raf mock: an OpenAI-compatible model at ${server.baseURL} (${escapeLine(what)})\n` +
      `  raf run agent.yaml --base-url ${server.baseURL} -i "hello"\n` +
      'Ctrl-C stops it.\n',
  );
  await new Promise<void>((done) => {
    const stops: ((() => void) | undefined)[] = [];
    // Listeners removed once fired: a second Ctrl-C while closing falls back to Node's default.
    const stop = () => {
      for (const off of stops) off?.();
      done();
    };
    stops.push(io.onInterrupt(stop), io.onTerminate?.(stop));
  });
  await server.close();
  io.stderr.write(`raf mock: stopped after ${served} answer${served === 1 ? '' : 's'}\n`);
  return EXIT.ok;
}
