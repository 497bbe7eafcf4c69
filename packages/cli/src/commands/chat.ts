import { createInterface } from 'node:readline';
import type { ApprovalResponse } from '@raf/core';
import { askApprovals } from '../approval-prompt.js';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { builderFor, warnOnStderr } from '../load-agent.js';
import { awaitConsolidation } from '../memory-wait.js';
import { OpenedSession } from '../opened-session.js';
import { HumanRenderer } from '../render/human.js';
import { pendingRequests, runTurn } from '../turn.js';

/**
 * `raf chat <file>`: an interactive session. Answers stream as they come, each tool call is one
 * line with its result, approvals show the target (and a diff for writes). Ctrl-C cancels the
 * turn, not the session; `/exit` or Ctrl-D leaves. Sessions live in `--sessions-dir`.
 */
export async function chatCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [file] = args.files;
  if (!file) throw new CliError('raf chat needs an agent file: raf chat agent.yaml');
  const agent = await (await builderFor(file, args, io)).build({ onWarnings: warnOnStderr(file, io) });
  // The chat holds the session's lease while it is open: a `raf run` on it waits for the chat to end.
  const opened = await OpenedSession.open(args, io, args.session, { lease: true });
  const { session, resumed, journal } = opened;
  const rl = createInterface({
    input: io.stdin,
    output: io.stdout as NodeJS.WritableStream,
    terminal: Boolean(io.stdin.isTTY),
  });
  const lines = rl[Symbol.asyncIterator]();
  let ended = false;
  // Buffered lines are still read after the input closes: the iterator, not 'close', says when it ends.
  const ask = async (question: string) => {
    io.stdout.write(question);
    const next = await lines.next();
    if (next.done) ended = true;
    return next.done ? '' : next.value;
  };
  let controller: AbortController | undefined;
  rl.on('SIGINT', () => {
    if (controller) controller.abort(new Error('cancelled by Ctrl-C'));
    else rl.close();
  });
  const stopListening = io.onInterrupt(() => controller?.abort(new Error('cancelled by Ctrl-C')));
  const human = new HumanRenderer(io.stdout, io.stderr);
  io.stderr.write(
    `${agent.name} — session ${session.id}${resumed ? ' (resumed)' : ''}. /exit to leave, Ctrl-C cancels a turn.\n`,
  );
  try {
    let approvals: ApprovalResponse[] | undefined = session.pendingApproval
      ? await askApprovals(pendingRequests(session.pendingApproval), ask, (t) => io.stderr.write(t))
      : undefined;
    while (!ended) {
      let input: string | undefined;
      if (!approvals) {
        input = (await ask('› ')).trim();
        if (ended) break;
        if (input === '/exit' || input === '/quit') break;
        if (input === '') continue;
      }
      controller = new AbortController();
      human.waiting();
      const outcome = await runTurn(
        agent,
        input,
        { session, signal: controller.signal, journal, ...(approvals && { approvals }) },
        (u) => human.render(u),
      );
      controller = undefined;
      approvals = undefined;
      await opened.save();
      if (outcome.finish.reason === 'cancelled') io.stderr.write('(turn cancelled)\n');
      if (outcome.finish.reason === 'awaitingApproval') {
        approvals = await askApprovals(outcome.requests, ask, (t) => io.stderr.write(t));
      }
    }
  } finally {
    rl.close();
    // Consolidation runs in the background while chatting; what is queued is finished on leaving.
    const leaving = new AbortController();
    const stopWaiting = io.onInterrupt(() => leaving.abort(new Error('interrupted')));
    await awaitConsolidation(agent, io, leaving.signal);
    stopWaiting();
    stopListening();
    await opened.close();
  }
  io.stderr.write(`session saved: ${session.id} (resume with --session ${session.id})\n`);
  return EXIT.ok;
}
