import {
  ConfigError,
  createToolManifest,
  defineTool,
  type ITool,
  type JSONValue,
  type ToolResult,
  toolFailure,
} from '@raf/core';
import { z } from 'zod';
import type { CodeRun } from '../code-run.js';
import { formatByteSize } from '../config/byte-size.js';
import { type CodeLanguage, parseSandboxConfig } from '../config/sandbox-config.js';
import { resolveSettings, type SandboxSettings } from '../config/sandbox-settings.js';
import { JS_STACK_BYTES, JsSandbox } from '../js/js-sandbox.js';
import { makeScratchDir, type ProcessMode, processMode, runInProcess } from '../process/process-backend.js';
import { type ProcessHost, processHost } from '../process/process-host.js';
import { formatRun } from './format-result.js';
import { SessionPool } from './session-pool.js';

export const CODE_INTERPRETER = 'code_interpreter';
/** The session key when the tool loop gives no session id: one state per tool instance. */
const TOOL_SESSION = '(tool)';
/** Non-persisted JavaScript calls share one interpreter instance, each in a fresh runtime. */
const CALLS_SESSION = '(calls)';
const MAX_CODE_BYTES = 100_000;
/** Persisted sessions per tool; each JavaScript one may hold up to 2 × memory_limit + 32 MiB. */
const MAX_SESSIONS = 8;
const IDLE_MS = 15 * 60_000;

/**
 * Sequential: a persisted session's calls share one interpreter and one scratch folder, so two
 * calls of one turn must not interleave; each call may also use the whole limit budget.
 * Builtin, needs a shell, proxied from sub-agent workers to the main process (SPEC §7).
 */
export const CODE_INTERPRETER_MANIFEST = createToolManifest({
  kind: 'builtin',
  executionMode: 'sequential',
  supportedInWorker: true,
  workerRoutingHint: 'main-process-proxy',
  requiresShell: true,
});

export interface CodeInterpreterOptions {
  /** The PATH searched for bwrap, prlimit, setpriv, python3 and bash (default: this process's). */
  pathEnv?: string;
}

/** `code_interpreter {language?, code}`, with what it can run here and how to free it. */
export interface CodeInterpreterTool extends ITool {
  /** The languages it runs on this machine. */
  readonly languages: readonly CodeLanguage[];
  readonly defaultLanguage: CodeLanguage;
  /** What is disabled or weaker here, and why (shown by `raf inspect` as warnings). */
  readonly notes: readonly string[];
  /**
   * Starts the JavaScript worker thread now rather than at the first call (about 100 ms on a
   * loaded 2-core machine; a new session after that costs a few milliseconds).
   */
  warmUp(): Promise<void>;
  /** Frees every session's interpreter and scratch folder. */
  dispose(): Promise<void>;
}

const LANGUAGE_TEXT: Readonly<Record<CodeLanguage, string>> = {
  javascript:
    'javascript (QuickJS: the language only — no require, process, fetch or timers; console.log prints; the value of the last expression is returned)',
  python:
    'python (python3 with its standard library; the repr of a final expression is returned; files go to the current folder)',
  shell: 'shell (bash -c)',
};

function describe(
  settings: SandboxSettings,
  languages: readonly CodeLanguage[],
  modes: ReadonlyMap<CodeLanguage, ProcessMode>,
  notes: readonly string[],
): string {
  const lines = [
    `Run code and get its output. Languages: ${languages.map((l) => LANGUAGE_TEXT[l]).join('; ')}.`,
    `Limits per call: ${settings.timeoutSecs} s, ${formatByteSize(settings.memoryBytes)} memory, ${formatByteSize(settings.outputBytes)} output.`,
  ];
  if (languages.some((l) => l !== 'javascript')) {
    const confined = [...modes.values()].some((m) => m.mode === 'bubblewrap');
    lines.push(
      confined
        ? `Python/shell run in an isolated sandbox: ${settings.network ? 'network allowed' : 'no network'}, read-only system, a writable scratch folder, at most ${settings.pidsLimit} processes and ${formatByteSize(settings.fileSizeBytes)} per file.`
        : 'Python/shell run UNCONFINED (no bubblewrap): only time, memory, process and file-size limits apply.',
    );
  }
  lines.push(
    settings.persist
      ? 'State persists between calls of a session (JavaScript variables; files in the scratch folder).'
      : 'Each call starts fresh: nothing persists between calls.',
  );
  if (notes.length > 0) lines.push(`Note: ${notes.join('; ')}.`);
  return lines.join(' ');
}

function limitsOf(
  settings: SandboxSettings,
  language: CodeLanguage,
  mode: ProcessMode | undefined,
): Record<string, JSONValue> {
  const common = {
    timeout_secs: settings.timeoutSecs,
    memory_limit: formatByteSize(settings.memoryBytes),
    output_limit: formatByteSize(settings.outputBytes),
  };
  if (language === 'javascript')
    return { ...common, stack_limit: formatByteSize(JS_STACK_BYTES), confinement: 'quickjs' };
  return {
    ...common,
    pids_limit: settings.pidsLimit,
    file_size_limit: formatByteSize(settings.fileSizeBytes),
    network: settings.network && mode?.mode === 'bubblewrap',
    confinement: mode?.mode === 'bubblewrap' ? 'bubblewrap' : 'none',
  };
}

/**
 * Builds `code_interpreter` from a sandbox config (either spelling; `ConfigError` names a bad
 * field). Python and shell need bubblewrap, or `unconfined: true`; JavaScript always runs in
 * QuickJS. A config whose languages all cannot run here is a `ConfigError`.
 */
export async function createCodeInterpreterTool(
  config: unknown = {},
  options: CodeInterpreterOptions = {},
): Promise<CodeInterpreterTool> {
  const settings = resolveSettings(parseSandboxConfig(config));
  const wantsProcess = settings.languages.some((l) => l !== 'javascript');
  const host: ProcessHost | undefined = wantsProcess ? await processHost(options.pathEnv) : undefined;
  const modes = new Map<CodeLanguage, ProcessMode>();
  const notes: string[] = [];
  const languages: CodeLanguage[] = [];
  for (const language of settings.languages) {
    if (language === 'javascript' || !host) {
      languages.push(language);
      continue;
    }
    const mode = processMode(language, host, settings);
    modes.set(language, mode);
    if (mode.mode === 'disabled') notes.push(`${language} is disabled: ${mode.reason}`);
    else languages.push(language);
  }
  if (languages.length === 0)
    throw new ConfigError(`code_interpreter can run none of its languages here: ${notes.join('; ')}`);
  if ([...modes.values()].some((m) => m.mode === 'none'))
    notes.push(
      'python/shell run unconfined (unconfined: true and no bubblewrap): no filesystem or network isolation',
    );
  if (host && languages.some((l) => l !== 'javascript')) notes.push(...host.notes);
  let defaultLanguage = settings.defaultLanguage;
  if (defaultLanguage && !languages.includes(defaultLanguage)) {
    notes.push(`default_language ${defaultLanguage} is not available; using ${languages[0]}`);
    defaultLanguage = undefined;
  }
  defaultLanguage ??= languages.includes('python') ? 'python' : (languages[0] as CodeLanguage);

  const js = new JsSandbox(settings);
  const pool = new SessionPool({ maxSessions: MAX_SESSIONS, idleMs: IDLE_MS, onDrop: (key) => js.drop(key) });
  const timeoutMs = settings.timeoutSecs * 1000;

  async function runOnce(language: CodeLanguage, code: string, sessionKey: string, signal: AbortSignal) {
    if (language === 'javascript')
      return js.run(settings.persist ? sessionKey : CALLS_SESSION, code, { signal, timeoutMs });
    const processOptions = { signal, timeoutMs };
    if (!settings.persist || !host)
      return runInProcess(language, code, host as ProcessHost, settings, processOptions);
    const entry = pool.get(sessionKey);
    if (!entry.scratchDir) pool.trackScratch(entry, await makeScratchDir(host));
    return runInProcess(language, code, host, settings, {
      ...processOptions,
      scratchDir: entry.scratchDir as string,
    });
  }

  const parameters = z.object({
    language: z
      .enum(languages as [CodeLanguage, ...CodeLanguage[]])
      .optional()
      .describe(`The language of the code (default ${defaultLanguage})`),
    code: z
      .string()
      .min(1)
      .refine((code) => Buffer.byteLength(code) <= MAX_CODE_BYTES, {
        message: `code must be at most ${MAX_CODE_BYTES} bytes`,
      })
      .refine((code) => !code.includes('\0'), { message: 'code must not contain NUL characters' })
      .describe('The program to run'),
  });

  const tool = defineTool({
    name: CODE_INTERPRETER,
    description: describe(settings, languages, modes, notes),
    parameters,
    kind: 'code',
    manifest: CODE_INTERPRETER_MANIFEST,
    async execute(args, context): Promise<ToolResult> {
      const language = args.language ?? defaultLanguage;
      const sessionKey = context.sessionId ?? TOOL_SESSION;
      let run: CodeRun;
      if (settings.persist) {
        const entry = pool.get(sessionKey);
        run = await pool.serialize(entry, () => runOnce(language, args.code, sessionKey, context.signal));
      } else run = await runOnce(language, args.code, sessionKey, context.signal);
      if (context.signal.aborted) return toolFailure('cancelled');
      return formatRun(language, run, limitsOf(settings, language, modes.get(language)));
    },
  });
  return Object.assign(tool, {
    languages,
    defaultLanguage,
    notes,
    warmUp: () => js.warmUp(),
    async dispose() {
      await pool.dropAll();
      await js.terminate();
    },
  });
}
