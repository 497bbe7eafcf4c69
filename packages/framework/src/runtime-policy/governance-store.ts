import { readFile } from 'node:fs/promises';
import { ConfigError, describeZodIssues } from '@raf/core';
import { writeFileAtomic } from '../io/atomic-write.js';
import { emptyGovernance, type GovernanceData, governanceDataSchema } from './tool-governance.js';

/** Where global tool governance lives (SPEC §7.1). */
export interface GovernanceStore {
  load(options?: { signal?: AbortSignal }): Promise<GovernanceData>;
  save(data: GovernanceData, options?: { signal?: AbortSignal }): Promise<void>;
}

const copy = (data: GovernanceData): GovernanceData => structuredClone(data);

export class InMemoryGovernanceStore implements GovernanceStore {
  private data: GovernanceData;

  constructor(initial: GovernanceData = emptyGovernance()) {
    this.data = copy(initial);
  }

  async load(): Promise<GovernanceData> {
    return copy(this.data);
  }

  /** What it holds now, as a copy (a sub-agent's worker process gets this snapshot). */
  snapshot(): GovernanceData {
    return copy(this.data);
  }

  async save(data: GovernanceData): Promise<void> {
    this.data = copy(data);
  }
}

/** The project's default governance file, relative to the project folder. */
export const DEFAULT_GOVERNANCE_FILE = '.raf/governance.json';

/**
 * Governance as a JSON file (default `.raf/governance.json`), replaced atomically on save. A
 * missing file is empty governance; a broken one is a `ConfigError` naming the file and the field.
 */
export class FileGovernanceStore implements GovernanceStore {
  constructor(readonly file: string) {}

  async load(options: { signal?: AbortSignal } = {}): Promise<GovernanceData> {
    let text: string;
    try {
      text = await readFile(this.file, {
        encoding: 'utf8',
        ...(options.signal && { signal: options.signal }),
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyGovernance();
      throw new ConfigError(`cannot read ${this.file}: ${(error as Error).message}`, { cause: error });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`${this.file} is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    const parsed = governanceDataSchema().safeParse(value);
    if (!parsed.success) throw new ConfigError(`${this.file}: ${describeZodIssues(parsed.error)}`);
    return parsed.data;
  }

  save(data: GovernanceData, options: { signal?: AbortSignal } = {}): Promise<void> {
    return writeFileAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`, options);
  }
}
