import { PlainSession, type SessionSnapshot } from '@raf/core';
import { nodeCrypto } from '../lazy-builtins.js';
import { parseSessionSnapshot } from './session-snapshot-schema.js';

/**
 * One conversation: its messages, each provider's state, metadata, and a paused approval batch.
 * Everything is plain data (`PlainSession` in `@raf/core`), so `toJSON()` → store →
 * `AgentSession.fromJSON()` resumes it anywhere, including a paused run in another process.
 */
export class AgentSession extends PlainSession {
  constructor(id: string = nodeCrypto().randomUUID(), snapshot?: SessionSnapshot) {
    super(id, snapshot);
  }

  /** Restores a session from `toJSON()` output; malformed data is a `SessionError`, not a crash. */
  static fromJSON(data: unknown, source?: string): AgentSession {
    const snapshot = parseSessionSnapshot(data, source);
    return new AgentSession(snapshot.id, snapshot);
  }
}
