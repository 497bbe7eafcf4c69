import { createInterface } from 'node:readline';
import type { ToolApprovalRequestUpdate } from '@raf/core';
import type { AgentSession } from '@raf/framework';
import { ApprovalCancelled, askApprovals, denyAll } from '../approval-prompt.js';
import type { CliArgs } from '../args.js';
import { inputAnswerHandler } from '../input-answers.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { builderFor, warnOnStderr } from '../load-agent.js';
import { awaitConsolidation } from '../memory-wait.js';
import { OpenedSession } from '../opened-session.js';
import { escapeLine } from '../render/escape.js';
import { HumanRenderer } from '../render/human.js';
import { pendingRequests, runTurn } from '../turn.js';
import { CHAT_HELP, chatCommandOf } from './chat-commands.js';

const CANCELLED_REASON = 'Cancelled by the user (Ctrl-C at the approval prompt)';

/**
 * `raf chat <file>`: an interactive session. Answers stream as they come, each tool call is one
 * line with its result, approvals show the target (and a diff for writes). Ctrl-C cancels the
 * turn (at the approval prompt too), not the session; `/exit` or Ctrl-D leaves, `/help` lists the
 * chat's own commands (never sent to the model). Sessions live in `--sessions-dir`.
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
  // A read cancelled by Ctrl-C stays pending: the next question takes the line it gets.
  let pendingRead: Promise<IteratorResult<string>> | undefined;
  let cancelPrompt: (() => void) | undefined;
  const ask = async (question: string, cancellable = false) => {
    io.stdout.write(question);
    pendingRead ??= lines.next();
    const cancelled = new Promise<'cancelled'>((resolve) => {
      cancelPrompt = cancellable ? () => resolve('cancelled') : undefined;
    });
    const next = await Promise.race([pendingRead, cancelled]);
    cancelPrompt = undefined;
    if (next === 'cancelled') {
      io.stdout.write('\n');
      throw new ApprovalCancelled();
    }
    pendingRead = undefined;
    if (next.done) ended = true;
    return next.done ? '' : next.value;
  };
  let controller: AbortController | undefined;
  rl.on('SIGINT', () => {
    if (cancelPrompt) cancelPrompt();
    else if (controller) controller.abort(new Error('cancelled by Ctrl-C'));
    else rl.close();
  });
  const stopListening = io.onInterrupt(() => {
    if (cancelPrompt) cancelPrompt();
    else controller?.abort(new Error('cancelled by Ctrl-C'));
  });
  const human = new HumanRenderer(io.stdout, io.stderr);
  // A server's question (MCP elicitation) is asked here, at the chat's own prompt (SPEC §14.4).
  const onInputRequest = inputAnswerHandler({
    answers: [],
    show: (text) => {
      human.quiet();
      io.stderr.write(text);
    },
    ask: (question) => ask(question),
  });
  const always = new Set<string>();
  const approve = async (requests: readonly ToolApprovalRequestUpdate[]) => {
    try {
      return {
        answers: await askApprovals(
          requests,
          (q) => ask(q, true),
          (t) => io.stderr.write(t),
          always,
        ),
      };
    } catch (error) {
      if (!(error instanceof ApprovalCancelled)) throw error;
      return { answers: denyAll(requests, CANCELLED_REASON), cancelled: true };
    }
  };
  io.stderr.write(
    `${agent.name} — session ${session.id}${resumed ? ' (resumed)' : ''}. /help lists commands, /exit leaves, Ctrl-C cancels a turn.\n`,
  );
  try {
    let pending = session.pendingApproval
      ? await approve(pendingRequests(session.pendingApproval))
      : undefined;
    while (!ended) {
      let input: string | undefined;
      if (!pending) {
        input = (await ask('› ')).trim();
        if (ended) break;
        if (input === '') continue;
        const command = chatCommandOf(input);
        if (command === 'exit') break;
        if (command) {
          io.stderr.write(command === 'help' ? CHAT_HELP : chatReply(command, session, always));
          continue;
        }
        if (input.startsWith('//')) input = input.slice(1);
      }
      controller = new AbortController();
      const turn = controller;
      human.waiting();
      const outcome = await runTurn(
        agent,
        input,
        {
          session,
          signal: turn.signal,
          journal,
          onInputRequest,
          ...(pending && { approvals: pending.answers }),
        },
        (u) => {
          human.render(u);
          // Ctrl-C at the prompt: the denials are recorded, then the turn ends before the model is asked again.
          if (pending?.cancelled && u.type === 'tool-called') turn.abort(new Error('cancelled by Ctrl-C'));
        },
      );
      const cancelledAtPrompt = pending?.cancelled === true;
      controller = undefined;
      pending = undefined;
      await opened.save();
      if (outcome.finish.reason === 'cancelled' || cancelledAtPrompt) io.stderr.write('(turn cancelled)\n');
      else if (outcome.finish.reason === 'awaitingApproval') pending = await approve(outcome.requests);
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

/** What `/session` and `/always` answer. */
function chatReply(command: string, session: AgentSession, always: ReadonlySet<string>): string {
  if (command === 'session') return `session ${session.id}\n`;
  if (command === 'always')
    return always.size === 0
      ? 'no tool is approved for this session (answer `a` at an approval prompt)\n'
      : `approved for this session: ${escapeLine([...always].join(', '))}\n`;
  return `unknown command /${escapeLine(command)} (/help lists them; start a message with // to send a slash)\n`;
}
