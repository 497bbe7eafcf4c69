import { chown, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeRun } from '../code-run.js';
import { formatByteSize } from '../config/byte-size.js';
import type { CodeLanguage } from '../config/sandbox-config.js';
import type { SandboxSettings } from '../config/sandbox-settings.js';
import { bubblewrapArguments, SANDBOX_DIR } from './bubblewrap-args.js';
import { classifyExit } from './classify-exit.js';
import { limitArguments } from './limit-args.js';
import { dropArguments, type ProcessHost, SYSTEM_DIRS } from './process-host.js';
import { PYTHON_DRIVER } from './python-driver.js';
import { runProcess } from './run-process.js';
import { SANDBOX_PATH, sandboxEnvironment } from './sandbox-env.js';

/** Scratch space per tmpfs, as a multiple of the file size limit. */
const SCRATCH_FILES = 4;

export interface ProcessRunOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** A persisted session's scratch folder; without it each run gets a fresh one. */
  scratchDir?: string;
}

/** How Python and shell run on this host: `bubblewrap`, `none` (unconfined), or not at all and why. */
export type ProcessMode = { mode: 'bubblewrap' | 'none' } | { mode: 'disabled'; reason: string };

export function processMode(
  language: CodeLanguage,
  host: ProcessHost,
  settings: SandboxSettings,
): ProcessMode {
  if (settings.backend === 'wasm') return { mode: 'disabled', reason: 'backend: wasm runs JavaScript only' };
  if (!host.prlimit && !host.bash)
    return { mode: 'disabled', reason: 'neither prlimit nor bash is installed to set resource limits' };
  const program = language === 'python' ? host.python : host.shell;
  if (!program)
    return { mode: 'disabled', reason: `${language === 'python' ? 'python3' : 'sh'} is not installed` };
  if (host.bwrap) {
    if (!SYSTEM_DIRS.some((dir) => program.startsWith(dir)))
      return {
        mode: 'disabled',
        reason: `${program} is outside the system folders the sandbox mounts (/usr, /bin, /lib)`,
      };
    return { mode: 'bubblewrap' };
  }
  if (settings.unconfined) return { mode: 'none' };
  return {
    mode: 'disabled',
    reason: 'bubblewrap (bwrap) is not installed; set unconfined: true to run it without isolation',
  };
}

/** Processes the user owns now: without a user namespace, RLIMIT_NPROC counts them all. */
async function processesOf(uid: number): Promise<number> {
  let count = 0;
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if ((await stat(`/proc/${name}`)).uid === uid) count++;
    } catch {
      // exited meanwhile
    }
  }
  return count;
}

/** A fresh folder for code to write in, owned by the user the code runs as. */
export async function makeScratchDir(host: ProcessHost): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'raf-sandbox-'));
  if (host.dropTo) await chown(dir, host.dropTo.uid, host.dropTo.gid);
  return dir;
}

/**
 * Runs Python (through a driver that returns the last expression) or shell: inside bubblewrap
 * when the host has it, else — only with `unconfined: true` — as a plain child process; both
 * under rlimits, as an unprivileged user when the host is root, with a scrubbed environment.
 */
export async function runInProcess(
  language: CodeLanguage,
  code: string,
  host: ProcessHost,
  settings: SandboxSettings,
  options: ProcessRunOptions,
): Promise<CodeRun> {
  const mode = processMode(language, host, settings);
  if (mode.mode === 'disabled')
    return { stdout: '', stderr: '', error: `${language} is disabled: ${mode.reason}` };
  const confined = mode.mode === 'bubblewrap';
  const fresh = !confined && !options.scratchDir ? await makeScratchDir(host) : undefined;
  const hostDir = options.scratchDir ?? fresh;
  try {
    const home = confined ? SANDBOX_DIR : (hostDir as string);
    const env = sandboxEnvironment({ home, path: SANDBOX_PATH, host: process.env, explicit: settings.env });
    let processes = settings.pidsLimit;
    // Inside bubblewrap's user namespace the count starts at zero; outside it counts the user's others.
    if (!confined) processes += await processesOf(host.dropTo?.uid ?? process.getuid?.() ?? 0);
    const cpuSecs = Math.ceil(settings.timeoutSecs) + 1;
    const limits = limitArguments(
      {
        cpuSecs,
        addressSpaceBytes: settings.memoryBytes,
        processes,
        fileSizeBytes: settings.fileSizeBytes,
      },
      host,
    );
    const program =
      language === 'python'
        ? [host.python as string, '-u', '-s', '-c', PYTHON_DRIVER, code]
        : [host.shell as string, '-c', code];
    const sandbox = confined
      ? [
          host.bwrap as string,
          ...bubblewrapArguments({
            ...(options.scratchDir && { scratchHostDir: options.scratchDir }),
            scratchBytes: settings.fileSizeBytes * SCRATCH_FILES,
            network: settings.network,
            env,
            ...(host.bwrapFeatures && { features: host.bwrapFeatures }),
          }),
        ]
      : [];
    let outcome: Awaited<ReturnType<typeof runProcess>>;
    try {
      outcome = await runProcess({
        argv: [...dropArguments(host), ...sandbox, ...limits, ...program],
        cwd: confined ? tmpdir() : home,
        env: confined ? { PATH: SANDBOX_PATH } : env,
        timeoutMs: options.timeoutMs,
        outputBytes: settings.outputBytes,
        signal: options.signal,
      });
    } catch (error) {
      return { stdout: '', stderr: '', error: `could not start ${language}: ${(error as Error).message}` };
    }
    const run: CodeRun = { stdout: outcome.stdout, stderr: outcome.stderr, exitCode: outcome.exitCode };
    if (outcome.result) run.result = outcome.result;
    if (outcome.timedOut) {
      run.timedOut = true;
      run.limit = {
        name: 'timeout_secs',
        detail: `the code ran longer than ${settings.timeoutSecs} s and was stopped`,
      };
    } else if (outcome.outputExceeded) {
      run.limit = {
        name: 'output_limit',
        detail: `the code wrote more than ${formatByteSize(settings.outputBytes)} of output and was stopped`,
      };
    } else {
      const limit = classifyExit({
        exitCode: outcome.exitCode,
        stderr: outcome.stderr,
        cpuSecs,
        memoryBytes: settings.memoryBytes,
        pidsLimit: settings.pidsLimit,
        fileSizeBytes: settings.fileSizeBytes,
      });
      if (limit) run.limit = limit;
    }
    return run;
  } finally {
    if (fresh) await rm(fresh, { recursive: true, force: true });
  }
}
