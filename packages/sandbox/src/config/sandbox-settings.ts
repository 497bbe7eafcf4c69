import { CODE_LANGUAGES, type CodeLanguage, type SandboxConfig } from './sandbox-config.js';

/** A config with every default filled in: what one `code_interpreter` runs under. */
export interface SandboxSettings {
  backend: 'process' | 'wasm';
  timeoutSecs: number;
  memoryBytes: number;
  pidsLimit: number;
  fileSizeBytes: number;
  outputBytes: number;
  network: boolean;
  unconfined: boolean;
  persist: boolean;
  env: Readonly<Record<string, string>>;
  languages: readonly CodeLanguage[];
  defaultLanguage: CodeLanguage | undefined;
}

export const SANDBOX_DEFAULTS = Object.freeze({
  timeoutSecs: 30,
  memoryBytes: 256 * 1024 * 1024,
  pidsLimit: 32,
  fileSizeBytes: 16 * 1024 * 1024,
  outputBytes: 1024 * 1024,
});

/** Fills the defaults; `container`/`docker`/`podman` run on the process backend (the caller warns). */
export function resolveSettings(config: SandboxConfig): SandboxSettings {
  return {
    backend: config.backend === 'wasm' ? 'wasm' : 'process',
    timeoutSecs: config.timeoutSecs ?? SANDBOX_DEFAULTS.timeoutSecs,
    memoryBytes: config.memoryLimit ?? SANDBOX_DEFAULTS.memoryBytes,
    pidsLimit: config.pidsLimit ?? SANDBOX_DEFAULTS.pidsLimit,
    fileSizeBytes: config.fileSizeLimit ?? SANDBOX_DEFAULTS.fileSizeBytes,
    outputBytes: config.outputLimit ?? SANDBOX_DEFAULTS.outputBytes,
    network: config.network ?? false,
    unconfined: config.unconfined ?? false,
    persist: config.persist ?? false,
    env: config.env ?? {},
    languages: config.languages ? [...new Set(config.languages)] : CODE_LANGUAGES,
    defaultLanguage: config.defaultLanguage,
  };
}
