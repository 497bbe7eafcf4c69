import { ConfigError } from '@raf/core';

export type DbosSdk = typeof import('@dbos-inc/dbos-sdk');
export type Dbos = DbosSdk['DBOS'];

let loading: Promise<Dbos> | undefined;

/** `@dbos-inc/dbos-sdk`, imported the first time a durable run needs it (an optional peer). */
export function loadDbos(): Promise<Dbos> {
  loading ??= import('@dbos-inc/dbos-sdk').then(
    (sdk) => sdk.DBOS ?? (sdk as unknown as { default: DbosSdk }).default.DBOS,
    (error: unknown) => {
      loading = undefined;
      throw new ConfigError(
        'durable runs need @dbos-inc/dbos-sdk 5.3 or later (pnpm add @dbos-inc/dbos-sdk)',
        { cause: error },
      );
    },
  );
  return loading;
}
