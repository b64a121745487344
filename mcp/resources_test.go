package mcp_test

import (
	"strings"
	"testing"

	"github.com/stategraph/stategraph/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEverythingResourcesAndPrompts lists, reads and fills in the
// reference server's resources and prompts.
func TestEverythingResourcesAndPrompts(t *testing.T) {
	c, err := mcp.Connect(t.Context(), stdioServer(t))
	require.NoError(t, err)
	defer c.Close()
	ctx := t.Context()

	res, err := c.Resources(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, res)
	var text *mcp.Resource
	for i, r := range res {
		require.NotEmpty(t, r.URI)
		if text == nil && strings.HasPrefix(r.MIMEType, "text/") {
			text = &res[i]
		}
	}
	require.NotNil(t, text, "a text resource among %v", res)
	contents, err := c.ReadResource(ctx, text.URI)
	require.NoError(t, err)
	require.NotEmpty(t, contents)
	assert.Equal(t, text.URI, contents[0].URI)
	assert.NotEmpty(t, contents[0].Text)

	_, err = c.ReadResource(ctx, "nowhere://nothing")
	require.Error(t, err)
	assert.ErrorContains(t, err, `read resource "nowhere://nothing"`)
	assert.ErrorContains(t, err, `mcp: server "`+c.Name()+`"`)

	prompts, err := c.Prompts(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, prompts)
	var simple *mcp.Prompt
	for i, p := range prompts {
		required := false
		for _, a := range p.Arguments {
			required = required || a.Required
		}
		if !required && simple == nil {
			simple = &prompts[i]
		}
	}
	require.NotNil(t, simple, "a prompt without required arguments among %v", prompts)
	msgs, err := c.GetPrompt(ctx, simple.Name, nil)
	require.NoError(t, err)
	require.NotEmpty(t, msgs)
	for _, m := range msgs {
		assert.Contains(t, []string{"user", "assistant"}, m.Role)
		assert.NotEmpty(t, m.Text)
	}

	_, err = c.GetPrompt(ctx, "no-such-prompt", nil)
	require.Error(t, err)
	assert.ErrorContains(t, err, `get prompt "no-such-prompt"`)
}
