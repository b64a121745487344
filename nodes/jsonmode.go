package nodes

import (
	"encoding/json"
	"regexp"
	"slices"

	"github.com/stategraph/stategraph/nodes/tool"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// inputSchemaOf returns t's input schema when it is a tool.SchemaTool (a
// tool.Typed), or nil.
func inputSchemaOf(t tools.Tool) json.RawMessage {
	if st, ok := t.(tool.SchemaTool); ok {
		return slices.Clone(st.InputSchema())
	}
	return nil
}

// jsonMode is the call options asking a model for JSON: JSON mode, for
// every model (see ResilientModel for one that refuses it).
func jsonMode(llms.Model) []llms.CallOption {
	return []llms.CallOption{llms.WithJSONMode()}
}

// asksJSON reports whether opts ask for JSON mode.
func asksJSON(opts []llms.CallOption) bool {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o.JSONMode
}

// withoutJSONMode takes back an llms.WithJSONMode given before it.
func withoutJSONMode(o *llms.CallOptions) { o.JSONMode = false }

// jsonRefusal matches the errors of a model refusing JSON mode: a bad
// request (400, 422) or a message naming it or the response format.
var jsonRefusal = regexp.MustCompile(`(?i)HTTP 4(00|22)\b|status code:? 4(00|22)\b|response_format|response.?mime.?type|json.?mode|json_object`)

// refusesJSON reports whether err, of a call that asked for JSON mode,
// may be the model refusing it.
func refusesJSON(err error) bool { return jsonRefusal.MatchString(err.Error()) }
