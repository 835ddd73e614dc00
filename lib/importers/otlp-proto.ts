/**
 * Decoding of binary OTLP trace requests. @opentelemetry/otlp-transformer 0.223 no longer
 * ships a generated protobufjs root (it has a hand-written encoder only) nor the .proto
 * files, so the messages needed for decoding are declared here as a protobufjs JSON
 * descriptor, transcribed from opentelemetry-proto (trace/v1/trace.proto,
 * common/v1/common.proto, resource/v1/resource.proto, collector/trace/v1/trace_service.proto).
 * Field names are the proto3 JSON names, so a decoded request has the OTLP JSON shape and
 * goes through the same code as JSON; ids stay bytes and 64-bit times stay exact strings.
 */
import * as protobuf from "protobufjs/light";

const F = (type: string, id: number, rule?: "repeated") => (rule ? { type, id, rule } : { type, id });

const DESCRIPTOR = {
  nested: {
    otlp: {
      nested: {
        ExportTraceServiceRequest: { fields: { resourceSpans: F("ResourceSpans", 1, "repeated") } },
        ResourceSpans: {
          fields: {
            resource: F("Resource", 1),
            scopeSpans: F("ScopeSpans", 2, "repeated"),
            schemaUrl: F("string", 3),
            // Deprecated since OTLP 0.19, still sent by old SDKs and collectors.
            instrumentationLibrarySpans: F("ScopeSpans", 1000, "repeated"),
          },
        },
        ScopeSpans: { fields: { scope: F("InstrumentationScope", 1), spans: F("Span", 2, "repeated"), schemaUrl: F("string", 3) } },
        InstrumentationScope: {
          fields: {
            name: F("string", 1),
            version: F("string", 2),
            attributes: F("KeyValue", 3, "repeated"),
            droppedAttributesCount: F("uint32", 4),
          },
        },
        Resource: { fields: { attributes: F("KeyValue", 1, "repeated"), droppedAttributesCount: F("uint32", 2) } },
        Span: {
          fields: {
            traceId: F("bytes", 1),
            spanId: F("bytes", 2),
            traceState: F("string", 3),
            parentSpanId: F("bytes", 4),
            flags: F("fixed32", 16),
            name: F("string", 5),
            kind: F("SpanKind", 6),
            startTimeUnixNano: F("fixed64", 7),
            endTimeUnixNano: F("fixed64", 8),
            attributes: F("KeyValue", 9, "repeated"),
            droppedAttributesCount: F("uint32", 10),
            events: F("Event", 11, "repeated"),
            droppedEventsCount: F("uint32", 12),
            links: F("Link", 13, "repeated"),
            droppedLinksCount: F("uint32", 14),
            status: F("Status", 15),
          },
        },
        SpanKind: {
          values: {
            SPAN_KIND_UNSPECIFIED: 0,
            SPAN_KIND_INTERNAL: 1,
            SPAN_KIND_SERVER: 2,
            SPAN_KIND_CLIENT: 3,
            SPAN_KIND_PRODUCER: 4,
            SPAN_KIND_CONSUMER: 5,
          },
        },
        Event: {
          fields: {
            timeUnixNano: F("fixed64", 1),
            name: F("string", 2),
            attributes: F("KeyValue", 3, "repeated"),
            droppedAttributesCount: F("uint32", 4),
          },
        },
        Link: {
          fields: {
            traceId: F("bytes", 1),
            spanId: F("bytes", 2),
            traceState: F("string", 3),
            attributes: F("KeyValue", 4, "repeated"),
            droppedAttributesCount: F("uint32", 5),
            flags: F("fixed32", 6),
          },
        },
        Status: { fields: { message: F("string", 2), code: F("StatusCode", 3) } },
        StatusCode: { values: { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 } },
        AnyValue: {
          oneofs: { value: { oneof: ["stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"] } },
          fields: {
            stringValue: F("string", 1),
            boolValue: F("bool", 2),
            intValue: F("int64", 3),
            doubleValue: F("double", 4),
            arrayValue: F("ArrayValue", 5),
            kvlistValue: F("KeyValueList", 6),
            bytesValue: F("bytes", 7),
          },
        },
        ArrayValue: { fields: { values: F("AnyValue", 1, "repeated") } },
        KeyValueList: { fields: { values: F("KeyValue", 1, "repeated") } },
        KeyValue: { fields: { key: F("string", 1), value: F("AnyValue", 2) } },
        // the answer (collector/trace/v1/trace_service.proto)
        ExportTraceServiceResponse: { fields: { partialSuccess: F("ExportTracePartialSuccess", 1) } },
        ExportTracePartialSuccess: { fields: { rejectedSpans: F("int64", 1), errorMessage: F("string", 2) } },
      },
    },
  },
};

let root: protobuf.Root | undefined;
let requestType: protobuf.Type | undefined;
let responseType: protobuf.Type | undefined;

function type(): protobuf.Type {
  root ??= protobuf.Root.fromJSON(DESCRIPTOR);
  requestType ??= root.lookupType("otlp.ExportTraceServiceRequest");
  return requestType;
}

/**
 * A binary ExportTraceServiceResponse: empty when every span was taken, else its
 * partial_success with the spans rejected and why (OTLP/HTTP, "Partial Success").
 */
export function encodeExportTraceServiceResponse(partial?: { rejectedSpans: number; errorMessage: string }): Uint8Array {
  if (!partial) return new Uint8Array(0);
  root ??= protobuf.Root.fromJSON(DESCRIPTOR);
  responseType ??= root.lookupType("otlp.ExportTraceServiceResponse");
  return responseType.encode(responseType.fromObject({ partialSuccess: partial })).finish();
}

export class OtlpDecodeError extends Error {}

/**
 * Bytes → a plain object in the OTLP JSON shape. Only fields present on the wire appear
 * (`defaults: false`), so an unset `parentSpanId` is absent rather than empty bytes.
 */
export function decodeExportTraceServiceRequest(bytes: Uint8Array): Record<string, unknown> {
  const t = type();
  let message: protobuf.Message;
  try {
    message = t.decode(bytes);
  } catch (e) {
    throw new OtlpDecodeError(`not an OTLP ExportTraceServiceRequest: ${e instanceof Error ? e.message : String(e)}`);
  }
  return t.toObject(message, { longs: String, enums: String, defaults: false, arrays: false, oneofs: false }) as Record<string, unknown>;
}
