package chat

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// decodeContent reads content: null or missing (no parts), a string (one
// text part unless empty) or a list of blocks, whose reasoning blocks it
// returns apart, with their places in the list.
func decodeContent(raw json.RawMessage) ([]llms.ContentPart, []Reasoning, error) {
	if isNull(raw) {
		return nil, nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, bad("content", "%v", err)
		}
		if s == "" {
			return nil, nil, nil
		}
		return []llms.ContentPart{llms.TextContent{Text: s}}, nil, nil
	case '[':
	default:
		return nil, nil, bad("content", "want a string or a list of content blocks, got %s", kindOf(raw))
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, nil, bad("content", "%v", err)
	}
	parts := make([]llms.ContentPart, 0, len(blocks))
	var reasoning []Reasoning
	for i, b := range blocks {
		r, isReasoning, err := decodeReasoning(b)
		var p llms.ContentPart
		if !isReasoning && err == nil {
			p, err = decodeBlock(b)
		}
		if err != nil {
			var me *MessageError
			if errors.As(err, &me) {
				me.Field = fmt.Sprintf("content[%d]", i) + dotted(me.Field)
			}
			return nil, nil, err
		}
		if isReasoning {
			reasoning = append(reasoning, Reasoning{At: i, Block: r})
			continue
		}
		parts = append(parts, p)
	}
	return parts, reasoning, nil
}

func dotted(f string) string {
	if f == "" {
		return ""
	}
	return "." + f
}

// block is a content block in any of LangChain's forms.
type block struct {
	Type       string          `json:"type"`
	Text       *string         `json:"text"`
	ImageURL   json.RawMessage `json:"image_url"`
	SourceType string          `json:"source_type"`
	URL        string          `json:"url"`
	Data       string          `json:"data"`
	Base64     string          `json:"base64"`
	MIMEType   string          `json:"mime_type"`
	Source     *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// decodeBlock reads one content block: text, image_url, image (by URL or
// base64, in LangChain's standard form, its v1 form or Anthropic's),
// audio and file as base64 data, tool_use (read as a tool call), or a
// bare string (text).
func decodeBlock(raw json.RawMessage) (llms.ContentPart, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, bad("", "%v", err)
		}
		return llms.TextContent{Text: s}, nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, bad("", "want a content block object or a string, got %s", kindOf(raw))
	}
	var b block
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, bad("", "%v", err)
	}
	switch b.Type {
	case "text":
		if b.Text == nil {
			return nil, bad("text", "missing: a text block needs its text")
		}
		return llms.TextContent{Text: *b.Text}, nil
	case "image_url":
		if isNull(b.ImageURL) {
			return nil, bad("image_url", "missing")
		}
		var img struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		}
		if b.ImageURL[0] == '"' {
			if err := json.Unmarshal(b.ImageURL, &img.URL); err != nil {
				return nil, bad("image_url", "%v", err)
			}
		} else if err := json.Unmarshal(b.ImageURL, &img); err != nil {
			return nil, bad("image_url", "want a URL or {url, detail}: %v", err)
		}
		if img.URL == "" {
			return nil, bad("image_url.url", "missing")
		}
		return llms.ImageURLContent{URL: img.URL, Detail: img.Detail}, nil
	case "image", "audio", "file":
		return decodeData(b)
	case "tool_use":
		if b.Name == "" {
			return nil, bad("name", "missing: a tool_use block names its tool")
		}
		args := b.Input
		if isNull(args) {
			args = json.RawMessage("{}")
		}
		if !isObject(args) {
			return nil, bad("input", "want an object, got %s", kindOf(args))
		}
		return llms.ToolCall{ID: b.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: b.Name, Arguments: string(compactRaw(args))}}, nil
	case "":
		return nil, bad("type", "missing: a content block needs a type")
	}
	return nil, bad("type", "unknown content block type %q (want text, image_url, image, audio, file, tool_use, reasoning, thinking or redacted_thinking)", b.Type)
}

// decodeReasoning reads a reasoning block, which a message keeps as it
// came: LangChain's {"type": "reasoning", "reasoning": "…"} (or OpenAI's
// "summary" list), Anthropic's {"type": "thinking", "thinking": "…",
// "signature": "…"} and {"type": "redacted_thinking", "data": "…"}. It
// reports false for any other block.
func decodeReasoning(raw json.RawMessage) (json.RawMessage, bool, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false, nil
	}
	var b map[string]json.RawMessage
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, false, bad("", "%v", err)
	}
	var typ string
	if json.Unmarshal(b["type"], &typ) != nil {
		return nil, false, nil // decodeBlock names it
	}
	want := func(key, kind string, required bool) error {
		v, ok := b[key]
		if !ok || isNull(v) {
			if required {
				return bad(key, "missing: a %s block needs its %s", typ, key)
			}
			return nil
		}
		if kindOf(v) != kind {
			return bad(key, "want %s, got %s", kind, kindOf(v))
		}
		return nil
	}
	var err error
	switch typ {
	case "reasoning":
		if err = want("reasoning", "a string", false); err == nil {
			err = want("summary", "a list", false)
		}
	case "thinking":
		if err = want("thinking", "a string", true); err == nil {
			err = want("signature", "a string", false)
		}
	case "redacted_thinking":
		err = want("data", "a string", true)
	default:
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	return compactRaw(raw), true, nil
}

// decodeData reads an image, audio or file block: base64 data becomes
// binary content, an image URL image-URL content.
func decodeData(b block) (llms.ContentPart, error) {
	data, mime, url := b.Data, b.MIMEType, b.URL
	if b.Base64 != "" { // v1 blocks
		data = b.Base64
	}
	if s := b.Source; s != nil { // Anthropic's blocks
		switch s.Type {
		case "base64":
			data, mime = s.Data, s.MediaType
		case "url":
			url = s.URL
		default:
			return nil, bad("source.type", "unknown source type %q (want base64 or url)", s.Type)
		}
	}
	switch {
	case data != "" && b.SourceType != "url":
		raw, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, bad("data", "not base64: %v", err)
		}
		if mime == "" {
			return nil, bad("mime_type", "missing: base64 data needs its MIME type")
		}
		return llms.BinaryContent{MIMEType: mime, Data: raw}, nil
	case url != "" && b.Type == "image":
		return llms.ImageURLContent{URL: url}, nil
	case url != "":
		return nil, bad("url", "a %s block by URL is not supported (send its data as base64)", b.Type)
	}
	return nil, bad("data", "missing: an %s block needs base64 data or a URL", b.Type)
}
