import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type ApprovalResponse, type FinishUpdate, getErrorMessage, SessionConflictError } from '@raf/core';
import { DeclError, formatDiagnostic } from '@raf/decl';
import type { ChatClientAgent } from '@raf/framework';
import type { CliArgs } from '../args.js';
import { attachedInput } from '../attachments.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { builderFor, warnOnStderr } from '../load-agent.js';
import { awaitConsolidation } from '../memory-wait.js';
import { OpenedSession } from '../opened-session.js';
import { refuseWrongKind } from '../path-kind.js';
import { escapeJson } from '../render/escape.js';
import { HumanRenderer } from '../render/human.js';
import { NdjsonRenderer } from '../render/ndjson.js';
import { readAll } from '../terminal.js';
import { pendingRequests, runTurn } from '../turn.js';
import {
  answerApprovals,
  refuseInputWhileApproving,
  runInputAnswers,
  sayWhatWaits,
} from './approval-answers.js';
import { saveOrFinish } from './save-turn.js';

/**
 * `raf run <file>`: one turn. A pause for approval is answered by `--approve all|none`, by a
 * prompt on a terminal, or ends the process with exit 3 (resume: `--session ID --approve …`).
 */
export async function runCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [file] = args.files;
  if (!file) throw new CliError('raf run needs an agent file: raf run agent.yaml -i "hello"');
  if (args.durable) return (await import('../durable/run-durable.js')).runDurable(file, args, io);
  if (args.trace) await checkTraceTarget(args.trace, io);
  // Registered before the agent runs; loaded only when asked for (the SDK is not a cold-start cost).
  const recorder = args.trace
    ? await (await import('../trace-file.js')).startTraceRecorder(io.cwd)
    : undefined;
  let code: number | undefined;
  try {
    code = await runAgent(file, args, io);
    return code;
  } finally {
    if (recorder && args.trace)
      await recorder.write(resolve(io.cwd, args.trace)).catch((error: unknown) => {
        const message = `--trace ${args.trace}: cannot write it: ${getErrorMessage(error)}`;
        // A failed run's own error and exit code are what the user must see; the trace's is said beside.
        if (code !== EXIT.ok) io.stderr.write(`raf: ${message}\n`);
        else throw new CliError(message);
      });
  }
}

/** A trace file that cannot be written is a usage error found before the run, not after it. */
async function checkTraceTarget(target: string, io: CliIO): Promise<void> {
  const path = resolve(io.cwd, target);
  await refuseWrongKind('--trace', target, io.cwd, { file: 'trace.json' });
  if (!(await stat(dirname(path)).catch(() => undefined))?.isDirectory())
    throw new CliError(`--trace ${target}: the folder ${dirname(target)} does not exist`);
}

/**
 * `--json` readers wait for `finish` (SPEC §11.1: always last), also when the agent cannot be
 * built (a stdio MCP server that exits at start): the error, then `finish`, no session yet.
 */
function endUnbuiltStream(io: CliIO, error: unknown): void {
  const message = DeclError.isInstance(error)
    ? error.diagnostics
        .filter((d) => d.severity === 'error')
        .map((d) => formatDiagnostic(d))
        .join('\n')
    : getErrorMessage(error);
  for (const line of [
    { type: 'error', code: 'RAF_CONFIG', message },
    { type: 'finish', reason: 'other', sessionId: null },
  ])
    io.stdout.write(`${escapeJson(JSON.stringify(line))}\n`);
}

async function runAgent(file: string, args: CliArgs, io: CliIO): Promise<number> {
  let built: Awaited<ReturnType<Awaited<ReturnType<typeof builderFor>>['buildAgent']>>;
  try {
    built = await (await builderFor(file, args, io)).buildAgent({
      onWarnings: warnOnStderr(file, io),
    });
  } catch (error) {
    if (args.json) endUnbuiltStream(io, error);
    throw error;
  }
  // The lease first: a second turn on the session waits here, then starts from the first one's result.
  const opened = await OpenedSession.open(args, io, args.session, { lease: true });
  try {
    if (!('chatClient' in built))
      return await (await import('./run-workflow.js')).runWorkflow(file, built, args, io, opened);
    return await runChatAgent(file, built, args, io, opened);
  } finally {
    await opened.close();
  }
}

/**
 * `--approve all|none` on a session that has no paused batch and no new input. When its last
 * paused batch was claimed (`OpenedSession.claimPending` marks it), another process resumed it
 * first: exit 5. Otherwise nothing waits for an answer, and saying "another process" would be
 * false: a usage error (exit 2) that says so.
 */
export async function refuseResumedTwice(
  opened: OpenedSession,
  args: CliArgs,
  io: CliIO,
): Promise<string | undefined> {
  if (args.approve === 'ask' || !opened.resumed || io.stdin.isTTY) return undefined;
  const text = (await readAll(io.stdin)).trim();
  if (text) return text;
  const id = opened.session.id;
  if (opened.resumedApproval !== undefined)
    throw new SessionConflictError(
      id,
      'claimed',
      `session ${id} has no paused approval to resume: another process resumed it already`,
    );
  throw new CliError(
    `session ${id} has no paused approval to resume: --approve ${args.approve} answers a turn paused for approval; give new input with -i "…" or on stdin`,
  );
}

/**
 * The turn was killed before it ended (and no batch is paused): the history ends in the user's
 * message (the model had not answered yet) or in calls some of which have no result.
 */
function interrupted(session: OpenedSession['session']): boolean {
  if (session.pendingApproval) return false;
  const messages = session.messages;
  if (messages.at(-1)?.role === 'user') return true;
  let at = messages.length - 1;
  while (at >= 0 && messages[at]?.role === 'tool') at--;
  const calls = messages[at]?.role === 'assistant' ? (messages[at]?.toolCalls ?? []) : [];
  const answered = new Set(messages.slice(at + 1).map((m) => m.toolCallId));
  return calls.some((call) => !answered.has(call.id));
}

async function runChatAgent(
  file: string,
  agent: ChatClientAgent,
  args: CliArgs,
  io: CliIO,
  opened: OpenedSession,
): Promise<number> {
  const { session, journal } = opened;
  let input = args.input;
  let approvals: ApprovalResponse[] | undefined;
  // `a` at the prompt: that tool is approved for the rest of this process's run.
  const always = new Set<string>();
  if (session.pendingApproval) {
    refuseInputWhileApproving(session.id, args);
    const requests = pendingRequests(session.pendingApproval);
    if (args.approve === 'ask' && !io.stdin.isTTY) {
      sayWhatWaits(requests, io);
      throw new CliError(
        `session ${session.id} is waiting for approval; resume with --approve all or --approve none`,
        EXIT.paused,
      );
    }
    approvals = await answerApprovals(requests, args, io, always);
    // Exactly one process runs the approved calls; the other is told the batch was resumed.
    await opened.claimPending();
    input = undefined;
  } else if (input === undefined && interrupted(session)) {
    // A turn killed before the model answered (it is asked again) or between a call and its
    // result: continue it (journaled results are not run again).
    io.stderr.write(`resuming the interrupted turn of session ${session.id}\n`);
  } else if (input === undefined) {
    if (io.stdin.isTTY) throw new CliError('raf run needs input: -i "…" or text on stdin');
    input = (await refuseResumedTwice(opened, args, io)) ?? (await readAll(io.stdin)).trim();
    if (!input) throw new CliError('raf run got no input: -i "…" or text on stdin');
  } else if (!input.trim() && !args.attach) throw new CliError('raf run got no input: -i is empty');
  if (args.attach && input === undefined)
    throw new CliError(
      `session ${session.id} resumes an interrupted turn; --attach goes with the next input`,
    );
  // A new turn: the last claimed batch is history now (`refuseResumedTwice` reads the mark).
  if (input !== undefined) opened.forgetResumedApproval();
  // Read before the turn starts: a missing or unreadable attachment is a usage error, exit 2.
  let message = args.attach && input !== undefined ? await attachedInput(input, args.attach, io.cwd) : input;

  const human = new HumanRenderer(io.stdout, io.stderr);
  if (session.pendingApproval) human.remember(pendingRequests(session.pendingApproval));
  const onInputRequest = runInputAnswers(args, io, human);
  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => controller.abort(new Error('interrupted')));
  const json = new NdjsonRenderer((line) => io.stdout.write(line));
  // A finish held back while the CLI goes on: printed if going on fails, so one always ends --json.
  let held: FinishUpdate | undefined;
  try {
    for (;;) {
      if (!args.json) human.waiting();
      const outcome = await runTurn(
        agent,
        message,
        { session, signal: controller.signal, journal, onInputRequest, ...(approvals && { approvals }) },
        (update) => {
          // `finish` waits: it is printed only when this process stops here (one, always last).
          if (!args.json) human.render(update);
          else if (update.type !== 'finish') json.render(update, session.id);
        },
      );
      held = undefined; // the turn ended: saveOrFinish ends the stream if the save fails
      await saveOrFinish(opened, args, json, outcome.finish);
      const goesOn =
        outcome.finish.reason === 'awaitingApproval' &&
        !controller.signal.aborted &&
        (args.approve !== 'ask' || io.stdin.isTTY === true);
      if (args.json) {
        held = goesOn ? outcome.finish : undefined;
        if (goesOn) json.continueAfter(outcome.finish);
        else json.render(outcome.finish, session.id);
      }
      if (outcome.finish.reason === 'cancelled' || controller.signal.aborted) return EXIT.interrupted;
      if (outcome.finish.reason !== 'awaitingApproval')
        return outcome.configError ? EXIT.config : outcome.failed ? EXIT.model : EXIT.ok;
      if (args.approve === 'ask' && !io.stdin.isTTY) {
        sayWhatWaits(outcome.requests, io);
        io.stderr.write(
          `paused for approval; resume with: raf run ${file} --session ${session.id} --approve all|none\n`,
        );
        return EXIT.paused;
      }
      approvals = await answerApprovals(outcome.requests, args, io, always);
      await opened.claimPending();
      message = undefined;
    }
  } catch (error) {
    if (held) json.render({ type: 'finish', reason: held.reason }, session.id);
    throw error;
  } finally {
    // Memory queued by this run is written before the process ends (Ctrl-C stops the waiting).
    await awaitConsolidation(agent, io, controller.signal);
    stopListening();
  }
}
