import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeProtobufExport } from './otlp-protobuf.js';
import type { ReceivedSpan } from './received-span.js';

export interface OtlpReceiver {
  /** The base URL (OTEL_EXPORTER_OTLP_ENDPOINT); exports go to `<url>/v1/traces`. */
  url: string;
  spans: ReceivedSpan[];
  /** Each export's content type and headers, in order. */
  exports: { contentType: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

type JsonValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonValue[] };
};
type JsonKeyValue = { key: string; value?: JsonValue };

/** OTLP/JSON ids are hex; base64 is read too, in case an exporter sends the protobuf mapping. */
function toHex(id: string | undefined): string {
  if (id === undefined || id === '') return '';
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

function fromJsonValue(value: JsonValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(fromJsonValue);
  return undefined;
}

function fromJsonAttributes(list: JsonKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((item) => [item.key, fromJsonValue(item.value)]));
}

function decodeJsonExport(body: Buffer): ReceivedSpan[] {
  type JsonSpan = {
    traceId?: string;
    spanId?: string;
    parentSpanId?: string;
    traceState?: string;
    name?: string;
    kind?: number;
    startTimeUnixNano?: string | number;
    endTimeUnixNano?: string | number;
    attributes?: JsonKeyValue[];
    status?: { code?: number; message?: string };
  };
  const parsed = JSON.parse(body.toString('utf8')) as {
    resourceSpans?: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: { spans?: JsonSpan[] }[];
    }[];
  };
  return (parsed.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = fromJsonAttributes(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: toHex(span.traceId),
        spanId: toHex(span.spanId),
        parentSpanId: toHex(span.parentSpanId),
        traceState: span.traceState ?? '',
        name: span.name ?? '',
        kind: span.kind ?? 0,
        startNs: BigInt(span.startTimeUnixNano ?? 0),
        endNs: BigInt(span.endTimeUnixNano ?? 0),
        attributes: fromJsonAttributes(span.attributes),
        status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
        resource,
      })),
    );
  });
}

/** A real OTLP/HTTP traces receiver on port 0: decodes protobuf and JSON exports, answers 200. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const exports: OtlpReceiver['exports'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      const body = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      const contentType = request.headers['content-type'] ?? '';
      exports.push({ contentType, headers: request.headers });
      const json = contentType.startsWith('application/json');
      spans.push(...(json ? decodeJsonExport(body) : decodeProtobufExport(body)));
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      response.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    exports,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
