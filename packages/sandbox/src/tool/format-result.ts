import { type JSONValue, type ToolResult, toolFailure, toolSuccess } from '@raf/core';
import type { CodeRun } from '../code-run.js';
import type { CodeLanguage } from '../config/sandbox-config.js';

/** Per stream, what the model reads: the head and the tail of longer output. */
const SHOWN_CHARS = 20_000;
const ERROR_CHARS = 4_000;

function clip(text: string, max: number): { text: string; clipped: boolean } {
  if (text.length <= max) return { text, clipped: false };
  const half = Math.floor(max / 2);
  const omitted = text.length - 2 * half;
  return {
    text: `${text.slice(0, half)}\n… [${omitted} characters omitted] …\n${text.slice(-half)}`,
    clipped: true,
  };
}

function lastLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1);
}

/**
 * The model's view of a run: `{ok, language, stdout, stderr, result?, exitCode?, timedOut?,
 * truncated?, limits}` as `data`, and for a failed run an `error` that says why — the limit by
 * its setting's name (`timeout_secs exceeded: …`), the exception, or the exit code.
 */
export function formatRun(
  language: CodeLanguage,
  run: CodeRun,
  limits: Record<string, JSONValue>,
): ToolResult {
  const stdout = clip(run.stdout, SHOWN_CHARS);
  const stderr = clip(run.stderr, SHOWN_CHARS);
  let error: string | undefined;
  if (run.limit) {
    error = `${run.limit.name} exceeded: ${run.limit.detail}`;
    if (run.error) error += ` (${clip(run.error, ERROR_CHARS).text})`;
  } else if (run.error !== undefined) error = clip(run.error, ERROR_CHARS).text;
  else if (run.exitCode !== undefined && run.exitCode !== 0) {
    const why = lastLine(run.stderr);
    error = `${language} exited with code ${run.exitCode}${why ? `: ${clip(why, 500).text}` : ''}`;
  }
  if (error && run.stateReset) error += '; the session state was reset';
  const data: Record<string, JSONValue> = {
    ok: error === undefined,
    language,
    stdout: stdout.text,
    stderr: stderr.text,
  };
  if (run.result !== undefined) data.result = run.result;
  if (run.exitCode !== undefined) data.exitCode = run.exitCode;
  if (run.timedOut) data.timedOut = true;
  if (stdout.clipped || stderr.clipped || run.limit?.name === 'output_limit') data.truncated = true;
  if (run.stateReset) data.stateReset = true;
  data.limits = limits;
  return error === undefined ? toolSuccess(data) : toolFailure(error, data);
}
