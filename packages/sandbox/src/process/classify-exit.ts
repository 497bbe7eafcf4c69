import type { CodeRun } from '../code-run.js';
import { formatByteSize } from '../config/byte-size.js';

const SIGXCPU = 24;
const SIGXFSZ = 25;
const SIGSEGV = 11;

export interface ExitFacts {
  exitCode: number;
  stderr: string;
  cpuSecs: number;
  memoryBytes: number;
  pidsLimit: number;
  fileSizeBytes: number;
}

/**
 * Which rlimit a failed process ran into, read from its exit signal or from what the interpreter
 * printed (`MemoryError`, `BlockingIOError`, `File too large`): the kernel says no more than that.
 * A clean exit hit no limit, whatever it printed.
 */
export function classifyExit(facts: ExitFacts): CodeRun['limit'] {
  const { exitCode, stderr } = facts;
  if (exitCode === 0) return undefined;
  if (exitCode === 128 + SIGXCPU || /CPU time limit exceeded/i.test(stderr))
    return { name: 'timeout_secs', detail: `the code used more than ${facts.cpuSecs} s of CPU time` };
  if (exitCode === 128 + SIGXFSZ || /File too large|File size limit exceeded|\[Errno 27\]/.test(stderr))
    return {
      name: 'file_size_limit',
      detail: `a file grew past ${formatByteSize(facts.fileSizeBytes)}`,
    };
  if (exitCode === 128 + SIGSEGV || /RecursionError|maximum recursion depth/.test(stderr))
    return { name: 'stack_limit', detail: 'recursion went deeper than the interpreter allows' };
  if (/MemoryError|Cannot allocate memory|out of memory|std::bad_alloc|\[Errno 12\]/i.test(stderr))
    return {
      name: 'memory_limit',
      detail: `the code needed more than ${formatByteSize(facts.memoryBytes)} of memory`,
    };
  if (/Resource temporarily unavailable|BlockingIOError|fork: retry|Cannot fork|\[Errno 11\]/i.test(stderr))
    return {
      name: 'pids_limit',
      detail: `the code tried to run more than ${facts.pidsLimit} processes at once`,
    };
  return undefined;
}
