await import('/work/wt/perf/node_modules/.pnpm/zod@4.6.7/node_modules/zod/v4/classic/schemas.js')
