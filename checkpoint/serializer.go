package checkpoint

import "encoding/json"

// Serializer turns channel values into bytes and back. Wrap JSON to add
// compression or encryption.
type Serializer interface {
	Marshal(v any) ([]byte, error)
	Unmarshal(data []byte, v any) error
}

// JSON is the default Serializer: encoding/json.
var JSON Serializer = jsonSerializer{}

type jsonSerializer struct{}

func (jsonSerializer) Marshal(v any) ([]byte, error)      { return json.Marshal(v) }
func (jsonSerializer) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
