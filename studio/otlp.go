package studio

import (
	"compress/gzip"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// OTLPPath is where Beside receives OTLP/HTTP trace exports when given
// WithTraces: the path an exporter appends to OTEL_EXPORTER_OTLP_ENDPOINT.
const OTLPPath = "/v1/traces"

// maxOTLPBody bounds one export request (the SDK's batches are far smaller).
const maxOTLPBody = 32 << 20

// OTLP returns a handler receiving OpenTelemetry trace exports over
// OTLP/HTTP in protobuf, as the Go SDK's otlptracehttp exporter sends them
// (gzip or not): the spans of another program's runs, recorded as if t
// had seen them end in this process. Mount it at OTLPPath ("/v1/traces");
// Beside does when given WithTraces. A program whose
// OTEL_EXPORTER_OTLP_ENDPOINT is the studio's address then shows its runs
// in the trace view. OTLP/JSON is refused with 415, naming the protobuf
// protocol to use instead.
func (t *Traces) OTLP() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "studio: OTLP trace exports are POSTed", http.StatusMethodNotAllowed)
			return
		}
		if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/x-protobuf" {
			http.Error(w, fmt.Sprintf("studio: OTLP body of type %q is not read: export in protobuf (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, Content-Type application/x-protobuf)", ct), http.StatusUnsupportedMediaType)
			return
		}
		var body io.Reader = http.MaxBytesReader(w, r.Body, maxOTLPBody)
		switch r.Header.Get("Content-Encoding") {
		case "", "identity":
		case "gzip":
			zr, err := gzip.NewReader(body)
			if err != nil {
				http.Error(w, "studio: OTLP body is not gzip: "+err.Error(), http.StatusBadRequest)
				return
			}
			defer zr.Close()
			body = io.LimitReader(zr, maxOTLPBody+1)
		default:
			http.Error(w, fmt.Sprintf("studio: OTLP body encoding %q is not read (gzip or none)", r.Header.Get("Content-Encoding")), http.StatusUnsupportedMediaType)
			return
		}
		raw, err := io.ReadAll(body)
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe) || len(raw) > maxOTLPBody:
			http.Error(w, fmt.Sprintf("studio: OTLP body over %d bytes", maxOTLPBody), http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			http.Error(w, "studio: read OTLP body: "+err.Error(), http.StatusBadRequest)
			return
		}
		// An ExportTraceServiceRequest is, on the wire, a TracesData: both
		// are field 1, repeated ResourceSpans (the collector package would
		// bring gRPC along for nothing).
		var data tracepb.TracesData
		if err := proto.Unmarshal(raw, &data); err != nil {
			http.Error(w, "studio: OTLP body is not an ExportTraceServiceRequest: "+err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range data.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					t.record(hex.EncodeToString(s.GetTraceId()), spanOf(s))
				}
			}
		}
		// An empty ExportTraceServiceResponse: every span was taken.
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	})
}

// spanOf converts an OTLP span to the recorder's form.
func spanOf(s *tracepb.Span) traceSpan {
	sp := traceSpan{
		SpanID: hex.EncodeToString(s.GetSpanId()), Name: s.GetName(),
		Start: unixNano(s.GetStartTimeUnixNano()), End: unixNano(s.GetEndTimeUnixNano()),
		Attrs: attrsOf(s.GetAttributes()),
	}
	if p := s.GetParentSpanId(); len(p) > 0 {
		sp.ParentID = hex.EncodeToString(p)
	}
	if st := s.GetStatus(); st.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
		sp.Error = st.GetMessage()
		if sp.Error == "" {
			sp.Error = "error"
		}
	}
	for _, ev := range s.GetEvents() {
		e := traceEvent{Name: ev.GetName(), Time: unixNano(ev.GetTimeUnixNano())}
		if len(ev.GetAttributes()) > 0 {
			e.Attrs = attrsOf(ev.GetAttributes())
		}
		sp.Events = append(sp.Events, e)
	}
	return sp
}

func unixNano(n uint64) time.Time { return time.Unix(0, int64(n)) }

func attrsOf(kvs []*commonpb.KeyValue) map[string]any {
	out := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		out[kv.GetKey()] = valueOf(kv.GetValue())
	}
	return out
}

// valueOf is an OTLP attribute value as the SDK's AsInterface gives it
// in process (bytes, which the SDK has not, as hex).
func valueOf(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BytesValue:
		return hex.EncodeToString(x.BytesValue)
	case *commonpb.AnyValue_ArrayValue:
		out := make([]any, 0, len(x.ArrayValue.GetValues()))
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, valueOf(e))
		}
		return out
	case *commonpb.AnyValue_KvlistValue:
		return attrsOf(x.KvlistValue.GetValues())
	}
	return nil
}
