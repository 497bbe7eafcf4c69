import { getErrorMessage } from '@raf/core';
import { type ChatClientAgent, SuperBrainContextProvider } from '@raf/framework';
import type { CliIO } from './io.js';
import { escapeLine } from './render/escape.js';
import { Spinner } from './render/spinner.js';

/** The agent's super-brain providers. */
export function memoryProviders(agent: ChatClientAgent): SuperBrainContextProvider[] {
  return agent.contextProviders.filter(
    (p): p is SuperBrainContextProvider => p instanceof SuperBrainContextProvider,
  );
}

/**
 * Waits for the memory consolidation the run queued (a spinner on a terminal) and says when one
 * failed. A signal (Ctrl-C) stops the waiting: what the curator wrote so far stays, whole.
 */
export async function awaitConsolidation(
  agent: ChatClientAgent,
  io: CliIO,
  signal?: AbortSignal,
): Promise<void> {
  const busy = memoryProviders(agent).filter((p) => p.consolidating);
  if (busy.length === 0) return;
  const before = busy.map((p) => p.stats.failed);
  const spinner = new Spinner(io.stderr);
  spinner.start('consolidating memory');
  try {
    await Promise.all(busy.map((p) => p.whenIdle(signal)));
  } catch (error) {
    spinner.stop();
    io.stderr.write(`memory consolidation stopped: ${escapeLine(getErrorMessage(error))}\n`);
    return;
  } finally {
    spinner.stop();
  }
  for (const [i, provider] of busy.entries()) {
    const outcome = provider.lastOutcome;
    if (provider.stats.failed > (before[i] ?? 0))
      io.stderr.write(`memory consolidation failed: ${escapeLine(outcome?.error ?? 'unknown error')}\n`);
    else if (outcome?.updatedFiles.length)
      io.stderr.write(`memory: ${outcome.status} ${escapeLine(outcome.updatedFiles.join(', '))}\n`);
  }
}
