package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource is a resource an MCP server lists (resources/list).
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        int64 // in bytes; 0 when the server does not say
}

// ResourceContent is a piece of a resource as resources/read gives it:
// Text for a text resource, Blob (decoded) for a binary one.
type ResourceContent struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
}

// Prompt is a prompt template an MCP server lists (prompts/list).
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is an argument of a prompt template.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// PromptMessage is a message of a prompt the server filled in
// (prompts/get): its role ("user" or "assistant") and its text, a
// non-text block described in a line as a tool result's are.
type PromptMessage struct {
	Role string
	Text string
}

// Resources lists the server's resources, every page of them.
func (c *Client) Resources(ctx context.Context) ([]Resource, error) {
	var out []Resource
	err := c.request(ctx, "list resources", func(ctx context.Context, cs *sdk.ClientSession) error {
		out = out[:0]
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return err
			}
			out = append(out, Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: r.Size})
		}
		return nil
	})
	return out, err
}

// ReadResource reads the resource at uri.
func (c *Client) ReadResource(ctx context.Context, uri string) ([]ResourceContent, error) {
	var out []ResourceContent
	err := c.request(ctx, fmt.Sprintf("read resource %q", uri), func(ctx context.Context, cs *sdk.ClientSession) error {
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			return err
		}
		out = make([]ResourceContent, 0, len(res.Contents))
		for _, rc := range res.Contents {
			if rc != nil {
				out = append(out, ResourceContent{URI: rc.URI, MIMEType: rc.MIMEType, Text: rc.Text, Blob: rc.Blob})
			}
		}
		return nil
	})
	return out, err
}

// Prompts lists the server's prompt templates, every page of them.
func (c *Client) Prompts(ctx context.Context) ([]Prompt, error) {
	var out []Prompt
	err := c.request(ctx, "list prompts", func(ctx context.Context, cs *sdk.ClientSession) error {
		out = out[:0]
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return err
			}
			pr := Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				if a != nil {
					pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
				}
			}
			out = append(out, pr)
		}
		return nil
	})
	return out, err
}

// GetPrompt fills in the prompt template name with args and returns its
// messages.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) ([]PromptMessage, error) {
	var out []PromptMessage
	err := c.request(ctx, fmt.Sprintf("get prompt %q", name), func(ctx context.Context, cs *sdk.ClientSession) error {
		res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			return err
		}
		out = make([]PromptMessage, 0, len(res.Messages))
		for _, m := range res.Messages {
			if m == nil {
				continue
			}
			text := resultText(&sdk.CallToolResult{Content: []sdk.Content{m.Content}})
			out = append(out, PromptMessage{Role: string(m.Role), Text: text})
		}
		return nil
	})
	return out, err
}

// request runs fn on the live session within the call timeout; an error
// names the server and what was asked, and a broken connection is
// dropped, so the next request connects again.
func (c *Client) request(ctx context.Context, what string, fn func(context.Context, *sdk.ClientSession) error) error {
	cs, err := c.session(ctx)
	if err != nil {
		return fmt.Errorf("%w (%s not done)", err, what)
	}
	cctx, cancel := context.WithTimeout(ctx, c.o.timeout)
	defer cancel()
	err = fn(cctx, cs)
	if err == nil {
		return nil
	}
	var rpc *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("mcp: server %q: %s: %w", c.name, what, ctx.Err())
	case cctx.Err() != nil:
		return fmt.Errorf("mcp: server %q: %s: no answer within %s: %w", c.name, what, c.o.timeout, context.DeadlineExceeded)
	case errors.As(err, &rpc) && rpc.Code != codeRejected && !errors.Is(err, sdk.ErrSessionMissing):
		return fmt.Errorf("mcp: server %q: %s: %w", c.name, what, err)
	}
	c.drop(cs)
	return downf(err, "mcp: server %q died during a request to %s (the next request reconnects)", c.name, what)
}
