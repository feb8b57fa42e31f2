/**
 * A small reader of OTLP/protobuf trace exports (opentelemetry/proto/collector/trace/v1), enough for
 * tests: spans with ids, names, kinds, times, attributes and status, and the resource's attributes.
 */
import type { ReceivedSpan } from './received-span.js';

type Field = { number: number; wire: number; value: bigint | Buffer };

/** The fields of one message, in order. */
function readFields(buffer: Buffer): Field[] {
  const fields: Field[] = [];
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[offset];
      if (byte === undefined) throw new Error('protobuf: truncated varint');
      offset += 1;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (offset < buffer.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wire = key & 7;
    if (wire === 0) fields.push({ number, wire, value: varint() });
    else if (wire === 1) {
      fields.push({ number, wire, value: buffer.subarray(offset, offset + 8) });
      offset += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      fields.push({ number, wire, value: buffer.subarray(offset, offset + length) });
      offset += length;
    } else if (wire === 5) {
      fields.push({ number, wire, value: buffer.subarray(offset, offset + 4) });
      offset += 4;
    } else throw new Error(`protobuf: wire type ${wire} not read`);
  }
  return fields;
}

const bytesOf = (field: Field): Buffer => field.value as Buffer;
const numberOf = (field: Field): number => Number(field.value);

function readAnyValue(buffer: Buffer): unknown {
  for (const field of readFields(buffer)) {
    switch (field.number) {
      case 1:
        return bytesOf(field).toString('utf8');
      case 2:
        return numberOf(field) !== 0;
      case 3:
        return Number(BigInt.asIntN(64, field.value as bigint));
      case 4:
        return bytesOf(field).readDoubleLE(0);
      case 5:
        return readFields(bytesOf(field))
          .filter((item) => item.number === 1)
          .map((item) => readAnyValue(bytesOf(item)));
    }
  }
  return undefined;
}

function readAttributes(fields: Field[], number: number): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const field of fields.filter((item) => item.number === number)) {
    const parts = readFields(bytesOf(field));
    const key = parts.find((part) => part.number === 1);
    const value = parts.find((part) => part.number === 2);
    if (key !== undefined)
      attributes[bytesOf(key).toString('utf8')] =
        value === undefined ? undefined : readAnyValue(bytesOf(value));
  }
  return attributes;
}

function readSpan(buffer: Buffer, resource: Record<string, unknown>): ReceivedSpan {
  const fields = readFields(buffer);
  const one = (number: number): Field | undefined => fields.find((field) => field.number === number);
  const hex = (number: number): string => {
    const field = one(number);
    return field === undefined ? '' : bytesOf(field).toString('hex');
  };
  const text = (number: number): string => {
    const field = one(number);
    return field === undefined ? '' : bytesOf(field).toString('utf8');
  };
  const time = (number: number): bigint => {
    const field = one(number);
    return field === undefined ? 0n : bytesOf(field).readBigUInt64LE(0);
  };
  const statusField = one(15);
  const status = statusField === undefined ? [] : readFields(bytesOf(statusField));
  const statusMessage = status.find((field) => field.number === 2);
  const statusCode = status.find((field) => field.number === 3);
  const kind = one(6);
  return {
    traceId: hex(1),
    spanId: hex(2),
    traceState: text(3),
    parentSpanId: hex(4),
    name: text(5),
    kind: kind === undefined ? 0 : numberOf(kind),
    startNs: time(7),
    endNs: time(8),
    attributes: readAttributes(fields, 9),
    status: {
      code: statusCode === undefined ? 0 : numberOf(statusCode),
      message: statusMessage === undefined ? '' : bytesOf(statusMessage).toString('utf8'),
    },
    resource,
  };
}

/** Every span of an ExportTraceServiceRequest body. */
export function decodeProtobufExport(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of readFields(body).filter((field) => field.number === 1)) {
    const parts = readFields(bytesOf(resourceSpans));
    const resourceField = parts.find((part) => part.number === 1);
    const resource = resourceField === undefined ? {} : readAttributes(readFields(bytesOf(resourceField)), 1);
    for (const scopeSpans of parts.filter((part) => part.number === 2))
      for (const span of readFields(bytesOf(scopeSpans)).filter((field) => field.number === 2))
        spans.push(readSpan(bytesOf(span), resource));
  }
  return spans;
}
