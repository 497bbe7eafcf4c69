import { PlainSession } from '@raf/core';

/**
 * The session an agent node keeps between its runs, saved in each checkpoint as plain data so a
 * paused approval survives a restart. `@raf/core`'s `PlainSession` under the name workflows use.
 */
export class NodeSession extends PlainSession {}
