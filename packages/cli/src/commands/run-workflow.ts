import type { ApprovalResponse, FinishUpdate } from '@raf/core';
import type { WorkflowAgent, WorkflowEvent } from '@raf/workflow';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import type { OpenedSession } from '../opened-session.js';
import { escapeJson, escapeLine } from '../render/escape.js';
import { HumanRenderer } from '../render/human.js';
import { NdjsonRenderer } from '../render/ndjson.js';
import { askLine, readAll } from '../terminal.js';
import { pendingRequests } from '../turn.js';
import { answerApprovals, refuseInputWhileApproving } from './approval-answers.js';
import { saveOrFinish } from './save-turn.js';

/** One line per node event on stderr: what runs, what it produced, what failed. */
function describeEvent(event: WorkflowEvent): string | undefined {
  switch (event.type) {
    case 'node-invoking':
      return `▸ ${event.nodeId}${event.label ? ` (${event.label})` : ''}${event.attempt > 1 ? ` try ${event.attempt}` : ''}`;
    case 'node-failed':
      return `✗ ${event.nodeId}: ${event.message}${event.retrying ? ' (retrying)' : ''}`;
    case 'halted':
      return event.request.kind === 'input'
        ? `⏸ ${event.nodeId} asks: ${event.request.prompt}`
        : `⏸ ${event.nodeId} waits for approval`;
    case 'resumed':
      return `▶ resumed at step ${event.step}`;
    default:
      return undefined;
  }
}

/**
 * `raf run` of a workflow file or an orchestration: node events on stderr (with `--json`, each as
 * a `{"type":"workflow-event"}` line among the updates). A pause for input ends with exit 3;
 * `--session ID --answer TEXT` continues it, also in a new process.
 */
export async function runWorkflow(
  file: string,
  agent: WorkflowAgent,
  args: CliArgs,
  io: CliIO,
  opened: OpenedSession,
): Promise<number> {
  const { session } = opened;
  const paused = agent.pausedRun(session);
  const waitingFor = paused?.halted.find((h) => h.request.kind === 'input');
  // The first --answer is the workflow's; the rest answer its agents' questions (SPEC §14.4).
  const answer = args.answers.length > 0 ? args.answers.shift() : undefined;
  if (answer !== undefined && args.session === undefined)
    throw new CliError('raf run: --answer resumes a workflow paused for input: give --session ID');
  if (answer !== undefined && args.input !== undefined)
    throw new CliError('raf run: -i and --answer exclude each other for a workflow; give one');
  // A workflow's input is text: attachments would be dropped without a word.
  if (args.attach !== undefined && answer === undefined)
    throw new CliError(
      `raf run: --attach goes to chat agents; ${file} is a workflow, which takes text input`,
    );
  if (answer !== undefined && args.attach !== undefined)
    throw new CliError(
      'raf run: --attach goes with new input, not with the --answer a paused workflow takes',
    );
  let input: string | undefined = answer ?? args.input;
  let approvals: ApprovalResponse[] | undefined;
  if (paused?.status === 'halted' && waitingFor) {
    if (input === undefined) {
      if (!io.stdin.isTTY)
        throw new CliError(
          `session ${session.id} is waiting for input (${waitingFor.request.kind === 'input' ? waitingFor.request.prompt : ''}); resume with --answer "…"`,
          EXIT.paused,
        );
      input = await askLine(
        io,
        `${waitingFor.request.kind === 'input' ? waitingFor.request.prompt : 'answer'} `,
      );
    }
  } else if (paused?.status === 'halted' && session.pendingApproval) {
    refuseInputWhileApproving(session.id, args);
    approvals = await decideApprovals(pendingRequests(session.pendingApproval), args, io);
    await opened.claimPending();
    input = undefined;
  } else if (input === undefined) {
    if (io.stdin.isTTY) throw new CliError('raf run needs input: -i "…" or text on stdin');
    input = (await readAll(io.stdin)).trim();
  }
  const human = new HumanRenderer(io.stdout, io.stderr);
  const json = new NdjsonRenderer((line) => io.stdout.write(line));
  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => controller.abort(new Error('interrupted')));
  const onEvent = (event: WorkflowEvent) => {
    if (args.json) io.stdout.write(`${escapeJson(JSON.stringify({ type: 'workflow-event', event }))}\n`);
    else {
      const line = describeEvent(event);
      if (line) io.stderr.write(`${escapeLine(line)}\n`);
    }
  };
  // A finish held back while the CLI goes on: printed if going on fails, so one always ends --json.
  let held: FinishUpdate | undefined;
  try {
    for (;;) {
      let finish: FinishUpdate = { type: 'finish', reason: 'stop' };
      let failed = false;
      let configError = false;
      const requests = [];
      for await (const update of agent.run(input, {
        session,
        signal: controller.signal,
        onEvent,
        ...(approvals && { approvals }),
      })) {
        if (update.type === 'finish') finish = update;
        if (update.type === 'error') {
          failed = true;
          configError ||= update.code === 'RAF_CONFIG';
        }
        if (update.type === 'tool-approval-request') requests.push(update);
        // `finish` waits: it is printed only when this process stops here (one, always last).
        if (!args.json) human.render(update);
        else if (update.type !== 'finish') json.render(update, session.id);
      }
      const { reason, rawReason } = finish;
      held = undefined; // the turn ended: saveOrFinish ends the stream if the save fails
      await saveOrFinish(opened, args, json, finish);
      const goesOn =
        reason === 'awaitingApproval' &&
        rawReason !== 'awaitingInput' &&
        !controller.signal.aborted &&
        (args.approve !== 'ask' || io.stdin.isTTY === true);
      if (args.json) {
        held = goesOn ? finish : undefined;
        if (goesOn) json.continueAfter(finish);
        else json.render(finish, session.id);
      }
      if (reason === 'cancelled' || controller.signal.aborted) return EXIT.interrupted;
      if (rawReason === 'awaitingInput') {
        io.stderr.write(
          `paused for input; resume with: raf run ${file} --session ${session.id} --answer "…"\n`,
        );
        return EXIT.paused;
      }
      if (reason !== 'awaitingApproval') return configError ? EXIT.config : failed ? EXIT.model : EXIT.ok;
      if (args.approve === 'ask' && !io.stdin.isTTY) {
        io.stderr.write(
          `paused for approval; resume with: raf run ${file} --session ${session.id} --approve all|none\n`,
        );
        return EXIT.paused;
      }
      approvals = await decideApprovals(requests, args, io);
      input = undefined;
    }
  } catch (error) {
    if (held) json.render({ type: 'finish', reason: held.reason }, session.id);
    throw error;
  } finally {
    stopListening();
  }
}

async function decideApprovals(
  requests: ReturnType<typeof pendingRequests>,
  args: CliArgs,
  io: CliIO,
): Promise<ApprovalResponse[]> {
  if (args.approve === 'ask' && !io.stdin.isTTY)
    throw new CliError(
      'the workflow is waiting for approval; resume with --approve all or --approve none',
      EXIT.paused,
    );
  return answerApprovals(requests, args, io);
}
