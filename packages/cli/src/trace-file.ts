import { writeFile } from 'node:fs/promises';
import { importOptional } from './optional-package.js';

const OTEL_PACKAGES = [
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/resources',
  '@opentelemetry/otlp-transformer',
];

/** Collects the run's spans in memory; `write` saves them as one OTLP JSON export request. */
export interface TraceRecorder {
  write(file: string): Promise<void>;
}

/**
 * Registers an OpenTelemetry tracer provider that keeps every span (`raf run --trace FILE`).
 * The SDK is imported here, on demand: a run without `--trace` never loads it.
 */
export async function startTraceRecorder(cwd: string): Promise<TraceRecorder> {
  // Optional peers (OpenTelemetry 2.x, which supports Node 20): a run without `--trace` needs none.
  const [{ trace }, sdk, { resourceFromAttributes }, { JsonTraceSerializer }] = await importOptional(
    OTEL_PACKAGES,
    '--trace',
    () =>
      Promise.all([
        import('@opentelemetry/api'),
        import('@opentelemetry/sdk-trace'),
        import('@opentelemetry/resources'),
        import('@opentelemetry/otlp-transformer'),
      ]),
    cwd,
  );
  const exporter = new sdk.InMemorySpanExporter();
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'raf' }),
    spanProcessors: [new sdk.SimpleSpanProcessor({ exporter })],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    async write(file) {
      await provider.forceFlush();
      const body = JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans()) ?? new Uint8Array();
      await writeFile(file, body);
      await provider.shutdown();
      trace.disable();
    },
  };
}
