import { createInterface } from 'node:readline';
import type { CliIO } from './io.js';

/** Reads stdin to the end (piped input for `raf run`). */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream)
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}

/** Asks one question on the terminal; resolves with the line typed (empty at end of input). */
export function askLine(io: CliIO, question: string): Promise<string> {
  const rl = createInterface({
    input: io.stdin,
    output: io.stderr as NodeJS.WritableStream,
    terminal: Boolean(io.stdin.isTTY),
  });
  return new Promise((resolve) => {
    let answered = false;
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      resolve(answer);
    });
    rl.once('close', () => {
      if (!answered) resolve('');
    });
  });
}
