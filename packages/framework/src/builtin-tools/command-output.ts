import type { JSONObject } from '@raf/core';
import type { CapturedOutput } from '../workspace/operations/tool-operations.js';

export type OutputLevel = 'error' | 'warning' | 'info' | 'all';

const KiB = 1024;

/** The whole output when it was captured whole, else its first and last parts joined. */
function whole(output: CapturedOutput): Buffer {
  return output.totalBytes <= output.head.length
    ? output.head
    : Buffer.concat([output.head, Buffer.from('\n'), output.tail]);
}

/** Keep-tail truncation (upstream `smart_truncate`): `...[omitted N bytes]\n` then the last bytes. */
export function keepTail(output: CapturedOutput, limit: number): { text: string; truncated: boolean } {
  if (output.totalBytes <= limit) return { text: whole(output).toString('utf8'), truncated: false };
  const source = output.totalBytes <= output.head.length ? output.head : output.tail;
  const kept = source.subarray(Math.max(0, source.length - limit));
  return {
    text: `...[omitted ${output.totalBytes - kept.length} bytes]\n${kept.toString('utf8')}`,
    truncated: true,
  };
}

/** Keep-head truncation (upstream `hard_truncate`): the first bytes, then `...[truncated, N bytes total]`. */
export function keepHead(output: CapturedOutput, limit: number): { text: string; truncated: boolean } {
  if (output.totalBytes <= limit) return { text: whole(output).toString('utf8'), truncated: false };
  const kept = output.head.subarray(0, limit).toString('utf8');
  return { text: `${kept}...[truncated, ${output.totalBytes} bytes total]`, truncated: true };
}

/** Shapes a command's output for the model as the upstream `output_level` table says. */
export function formatCommandOutput(
  level: OutputLevel,
  stdout: CapturedOutput,
  stderr: CapturedOutput,
): JSONObject {
  const result: JSONObject = {};
  if (level === 'all') {
    const out = keepHead(stdout, 1_000_000);
    const err = keepHead(stderr, 500 * KiB);
    return {
      stdout: out.text,
      stdout_truncated: out.truncated,
      stdout_bytes_total: stdout.totalBytes,
      stderr: err.text,
      stderr_truncated: err.truncated,
      stderr_bytes_total: stderr.totalBytes,
    };
  }
  const err = keepTail(stderr, 100 * KiB);
  if (level === 'info') {
    const out = keepTail(stdout, 500 * KiB);
    Object.assign(result, {
      stdout: out.text,
      stdout_truncated: out.truncated,
      stdout_bytes_total: stdout.totalBytes,
    });
    if (out.truncated || err.truncated) {
      result.truncation_note = `Output was truncated. Use output_level="error" for errors only (${stderr.totalBytes} bytes stderr), or output_level="all" for full output (up to 1MB).`;
    }
  } else if (level === 'warning') {
    const warnings = whole(stdout)
      .toString('utf8')
      .split('\n')
      .filter((line) => /warn/i.test(line));
    const joined = Buffer.from(warnings.join('\n'));
    const out = keepTail({ head: joined, tail: joined, totalBytes: joined.length }, 200 * KiB);
    Object.assign(result, {
      stdout_warnings: out.text,
      warning_count: warnings.length,
      stdout_truncated: out.truncated || stdout.totalBytes > stdout.head.length,
      stdout_bytes_total: stdout.totalBytes,
    });
  }
  Object.assign(result, {
    stderr: err.text,
    stderr_truncated: err.truncated,
    stderr_bytes_total: stderr.totalBytes,
  });
  return result;
}
