import type { ApprovalResponse, ToolApprovalRequestUpdate } from '@raf/core';
import type { InputRequestHandler } from '@raf/framework';
import { askApprovals } from '../approval-prompt.js';
import type { CliArgs } from '../args.js';
import { inputAnswerHandler } from '../input-answers.js';
import { CliError, type CliIO } from '../io.js';
import { escapeLine } from '../render/escape.js';
import type { HumanRenderer } from '../render/human.js';
import { askLine } from '../terminal.js';

// How `raf run` answers a pause, shared with workflows (`run-workflow.ts`): its own module, so the
// two commands do not import each other.

/** The answers to a pause: asked on the terminal (`--approve ask`), or decided by the flag. */
export async function answerApprovals(
  requests: readonly ToolApprovalRequestUpdate[],
  args: CliArgs,
  io: CliIO,
  always?: Set<string>,
): Promise<ApprovalResponse[]> {
  if (args.approve !== 'ask') return decide(requests, args.approve === 'all', io);
  return askApprovals(
    requests,
    (q) => askLine(io, q),
    (t) => io.stderr.write(t),
    always,
  );
}

/** A pause nobody can answer here (exit 3): what waits, one line per call, then how to resume. */
export function sayWhatWaits(requests: readonly ToolApprovalRequestUpdate[], io: CliIO): void {
  for (const r of requests) {
    const by = r.agentPath?.length ? `${r.agentPath.join(' › ')}: ` : '';
    const target = r.resolvedTarget ? ` ${r.resolvedTarget}` : '';
    io.stderr.write(
      `waiting for approval: ${escapeLine(`${by}${r.name}${target}`)} ${escapeLine(JSON.stringify(r.arguments) ?? '')}\n`,
    );
  }
}

export function decide(
  requests: readonly ToolApprovalRequestUpdate[],
  approve: boolean,
  io: CliIO,
): ApprovalResponse[] {
  return requests.map((r) => {
    const what = r.resolvedTarget ?? JSON.stringify(r.arguments);
    const by = r.agentPath?.length ? `${r.agentPath.join(' › ')}: ` : '';
    io.stderr.write(
      `${approve ? '✓ approved' : '✗ denied'} (--approve ${approve ? 'all' : 'none'}): ${escapeLine(`${by}${r.name} ${what}`)}\n`,
    );
    return approve
      ? { callId: r.callId, approved: true }
      : { callId: r.callId, approved: false, reason: 'Denied by --approve none' };
  });
}

/**
 * Resuming a pause for approval sends no new input: text given with it would be dropped. (An
 * `--answer` still answers the questions the approved calls ask.)
 */
export function refuseInputWhileApproving(sessionId: string, args: CliArgs): void {
  const given = args.input !== undefined ? '-i' : args.attach !== undefined ? '--attach' : undefined;
  if (given)
    throw new CliError(
      `session ${sessionId} is waiting for approval, not for ${given}: resume with --approve all|none, then send the next input`,
    );
}

/** Who answers the questions of a `raf run` (SPEC §14.4): `--answer`s in order, the terminal, or nobody. */
export function runInputAnswers(args: CliArgs, io: CliIO, human: HumanRenderer): InputRequestHandler {
  const terminal = args.approve === 'ask' && io.stdin.isTTY === true && !args.json;
  return inputAnswerHandler({
    answers: args.answers,
    show: (text) => {
      human.quiet();
      io.stderr.write(text);
    },
    declineAll: args.approve === 'none',
    ...(terminal && { ask: (question: string) => askLine(io, question) }),
  });
}
